package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
	"github.com/usctp/usctp/stream"
)

// send queues a reliable message (the tests' shorthand for Send).
func (a *Assoc) send(now time.Time, sid uint16, ppid uint32, unordered bool, msg []byte) error {
	return a.Send(now, &Message{Stream: sid, PPID: ppid, Unordered: unordered, Payload: msg})
}

// read reads the next delivered message part and, as the shell does, lets
// a SACK go when reading opened the window.
func (a *Assoc) read(b []byte) (int, transfer.RecvInfo, error) {
	n, info, err := a.Read(b)
	a.WindowUpdate()
	return n, info, err
}

// walkParams calls fn for each TLV of b; fn returns false to stop. It
// reports false when b is malformed (before fn stopped the walk).
func walkParams(b []byte, fn func(typ chunk.ParamType, val, raw []byte) bool) bool {
	it := chunk.Params(b)
	for {
		off := it.Offset()
		p, ok := it.Next()
		if !ok {
			return it.Err() == nil
		}
		if !fn(p.Type, p.Value, b[off:off+p.Len()]) {
			return true
		}
	}
}

// forEachChunkType calls fn with the type of each chunk of a packet we
// built.
func forEachChunkType(pkt []byte, fn func(t chunk.Type)) {
	it := chunk.Chunks(pkt[min(len(pkt), commonHeaderLen):])
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		fn(c.Type)
	}
}

// requestHeartbeat is the REQUEST HEARTBEAT primitive (section 11.1 J):
// send a HEARTBEAT now. It is refused outside the states where the peer
// answers heartbeats.
func (a *Assoc) requestHeartbeat(now time.Time) error {
	defer a.ep.reached(a)
	switch {
	case a.closed:
		return ErrClosed
	case a.state != stateEstablished && a.state != stateShutdownPending && a.state != stateShutdownReceived:
		return errNotReady
	}
	a.sendHeartbeat(now)
	return nil
}

// setStreamState sets the state of outbound stream sid: a stream that is
// not Open keeps its queued messages but does not hold up the others; back
// to Open, it may send again at once.
func (a *Assoc) setStreamState(sid uint16, st stream.State) error {
	if err := a.usable(); err != nil {
		return err
	}
	if err := a.data.eng.SetStreamState(sid, st); err != nil {
		return err
	}
	if st == stream.Open {
		a.ep.markReady(a)
	}
	return nil
}

// running reports whether timer id is set.
func (t *timers) running(id timerID) bool { return !t.at[id].IsZero() }
