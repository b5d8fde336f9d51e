package sctp

import (
	"context"
	"errors"
	"slices"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// Stream resets (RFC 6525), by which data channels close (RFC 8831
// section 6.7): Stream.Close resets the stream's outgoing direction, and
// the peer's reset of its own makes the stream's reads end with io.EOF
// once every message sent before it was read.
//
// The peer's reset arrives as an event while the reader may be blocked in
// ReadMsg or hold messages not yet queued, so the event loop hands the
// streams to the reader (kickReset) and wakes it with an expired read
// deadline; the reader then takes the reset streams' remaining messages
// from their usctp stream queues (everything sent before the reset was
// deliverable when the event came) before it ends them.

// resetBatch is the most streams one Outgoing SSN Reset Request names.
const resetBatch = 64

// eventLoop handles the association's events until the last.
func (a *Association) eventLoop(events <-chan usctp.Event) {
	for ev := range events {
		switch ev.Kind {
		case usctp.EventStreamReset:
			if ev.Err == nil && ev.Direction&usctp.DirIncoming != 0 {
				a.kickReset(ev.Streams)
			}
		case usctp.EventBufferedLow:
			a.mu.Lock()
			s := a.streams[ev.Stream]
			a.mu.Unlock()
			if s != nil {
				s.bufferedLow()
			}
		}
	}
}

// kickReset hands the streams the peer reset (none: all) to the reader.
func (a *Association) kickReset(sids []uint16) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(sids) == 0 {
		a.inResetAll = true
	}
	a.inResets = append(a.inResets, sids...)
	a.resetKick = true
	a.recvCond.Broadcast()
	a.as.SetReadDeadline(time.Now())
}

// applyResets ends the streams the peer reset: their messages still in
// usctp's queues are queued first, then their reads return io.EOF and a
// later message on the stream opens a new one (AcceptStream). Called by
// the reader.
func (a *Association) applyResets(buf *[]byte, partial map[uint16][]byte) {
	a.mu.Lock()
	sids := a.inResets
	if a.inResetAll {
		sids = sids[:0]
		for sid := range a.streams {
			sids = append(sids, sid)
		}
	}
	a.inResets, a.inResetAll, a.resetKick = nil, false, false
	a.as.SetReadDeadline(time.Time{})
	a.mu.Unlock()
	slices.Sort(sids)
	for _, sid := range slices.Compact(sids) {
		h := a.as.Stream(sid)
		for h.Readable() {
			n, info, err := h.ReadMsg(*buf)
			if err != nil {
				break
			}
			a.take(buf, n, info, partial)
		}
		delete(partial, sid)
		a.mu.Lock()
		if s := a.streams[sid]; s != nil {
			delete(a.streams, sid)
			s.inboundReset()
		}
		a.mu.Unlock()
	}
}

// queueReset asks for the outgoing direction of stream sid to be reset.
func (a *Association) queueReset(sid uint16) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended || a.closing {
		return ErrResetPacketInStateNotExist
	}
	a.outResets = append(a.outResets, sid)
	select {
	case a.outWake <- struct{}{}:
	default:
	}
	return nil
}

// resetLoop sends the outgoing resets Stream.Close asks for, up to
// resetBatch streams in one request, one request at a time.
func (a *Association) resetLoop() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-a.done
		cancel()
	}()
	for {
		select {
		case <-a.outWake:
		case <-a.done:
			return
		}
		for {
			a.mu.Lock()
			n := min(len(a.outResets), resetBatch)
			batch := slices.Clone(a.outResets[:n])
			a.outResets = a.outResets[n:]
			a.mu.Unlock()
			if n == 0 {
				break
			}
			for {
				err := a.as.ResetStreams(ctx, usctp.DirOutgoing, batch...)
				if errors.Is(err, usctp.ErrReconfigBusy) {
					select {
					case <-time.After(10 * time.Millisecond):
						continue
					case <-a.done:
						return
					}
				}
				if err != nil && ctx.Err() == nil {
					a.log.Debugf("[%s] reset of streams %v: %v", a.name, batch, err)
				}
				break
			}
			if ctx.Err() != nil {
				return
			}
		}
	}
}
