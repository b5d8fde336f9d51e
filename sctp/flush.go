package sctp

import (
	"errors"
	"net"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Flushing: the core's packets are polled into the write area and written
// to the socket in batches (one WriteBatch each). Only the holder of
// Endpoint.flushMu flushes; it takes flushMu before mu and releases mu
// before it writes, so a socket write never holds up the callers that
// need mu.

// flush sends every packet the core has, in batches.
func (e *Endpoint) flush() {
	e.flushMu.Lock()
	e.flushLocked()
	e.unlockFlush()
}

// sendNow sends what a user call just queued from the calling goroutine
// (write-through): no hand-off to the owner goroutine, so a request or a
// response leaves with one sendmmsg on the writer's thread. When another
// goroutine is flushing, that goroutine sends it instead (e.flushAgain).
func (e *Endpoint) sendNow() {
	e.flushAgain.Store(true)
	for e.flushAgain.Load() && e.flushMu.TryLock() {
		e.flushAgain.Store(false)
		e.flushLocked()
		e.flushMu.Unlock()
	}
}

// unlockFlush releases e.flushMu, then flushes again for a sendNow that
// found it taken: a writer sets e.flushAgain before its TryLock, and every
// holder looks at it after unlocking, so no request is left behind.
func (e *Endpoint) unlockFlush() {
	e.flushMu.Unlock()
	for e.flushAgain.Load() && e.flushMu.TryLock() {
		e.flushAgain.Store(false)
		e.flushLocked()
		e.flushMu.Unlock()
	}
}

// flushLocked is flush with e.flushMu held: it sends what is collected in
// e.batch and everything the core has besides.
func (e *Endpoint) flushLocked() {
	for {
		now := time.Now()
		e.mu.Lock()
		full := e.collectPackets(now)
		// Building packets may have cut queued messages (the writers of
		// the streams that got room are woken now rather than at the
		// next SACK) and given messages up (PR-SCTP: reported, and the
		// writers the space freed woken): the core's events say which,
		// so the cost does not grow with the number of associations.
		e.deliverEvents()
		e.wakeChanged()
		if !full {
			if d := e.core.Deadline(); !d.IsZero() && (e.timerAt.IsZero() || d.Before(e.timerAt)) {
				// An earlier deadline (a timer the packets started):
				// the owner's timer moves to it, the owner sleeps on.
				e.armOwner(d)
			}
		}
		gone := e.dialAssocGone && !full
		e.mu.Unlock()
		e.writeCollected()
		if gone {
			e.stopIO()
		}
		if !full {
			return
		}
	}
}

// collectPackets polls the core's packets into e.batch after the
// e.batchLen already there, built in the write area (nextPacketBuf); it
// reports whether the batch is full. Called with e.flushMu and e.mu held.
func (e *Endpoint) collectPackets(now time.Time) bool {
	if e.batchLen == 0 && e.holesUsed > 0 {
		// The packets with holes collected before are written: the
		// messages they referenced may be reused.
		e.core.BatchWritten()
		e.holesUsed = 0
	}
	for next := false; ; next = true {
		buf := e.nextPacketBuf()
		if buf == nil {
			return true
		}
		if e.holes != nil {
			u := e.holesUsed
			e.polled = e.holes[u:u:min(u+maxPacketHoles, len(e.holes))]
		}
		// After the first packet nothing else reaches the core until the
		// loop ends: PollNext builds a run of DATA packets faster.
		var p assoc.Packet
		var ok bool
		if next {
			p, ok = e.core.PollNext(now, buf)
		} else {
			p, ok = e.core.Poll(now, buf)
		}
		if !ok {
			return false
		}
		e.commitPacketBuf(p.Data)
		o := &e.batch[e.batchLen]
		o.Buf, o.N, o.Addr, o.ECN = p.Data, len(p.Data), p.To, p.ECN
		if e.holes != nil {
			e.commitHoles(o)
		}
		if e.multihome.choosesSource() {
			o.Local = e.multihome.source(p.To.Addr())
		}
		e.batchLen++
		if p.MayFragment {
			// Larger than its path's PLPMTU (chunks cut before it
			// shrank): it goes alone, with IP fragmentation allowed.
			e.fragmentAt = e.batchLen
			return true
		}
	}
}

// writeCollected sends the packets collected in e.batch with one
// WriteBatch (a packet that may be fragmented with a write of its own).
// Called with e.flushMu held and e.mu not held.
func (e *Endpoint) writeCollected() {
	if e.batchLen > 0 {
		e.nWrites.Add(1)
		pkts := e.batch[:e.batchLen]
		var frag []netio.Packet
		if e.fragmentAt > 0 {
			pkts, frag = pkts[:e.fragmentAt-1], pkts[e.fragmentAt-1:e.fragmentAt]
			e.fragmentAt = 0
		}
		for len(pkts) > 0 {
			// A lost packet is a lost packet; the error of WriteBatch
			// concerns pkts[n] alone (no route to one path's address, a
			// packet over the local MTU with DF): the rest go on.
			n, err := e.conn.WriteBatch(pkts)
			if err == nil || n >= len(pkts) || errors.Is(err, net.ErrClosed) {
				break
			}
			e.noteRefused(&pkts[n], err)
			e.noteNoRoute(&pkts[n], err)
			pkts = pkts[n+1:]
		}
		if len(frag) > 0 {
			if f, ok := e.conn.(netio.FragmentWriter); ok {
				f.WriteFragmentable(frag)
			} else {
				e.conn.WriteBatch(frag)
			}
		}
		if e.holesUsed > 0 {
			e.nHoles.Add(uint64(e.holesUsed))
		}
		e.batchLen, e.slabUsed = 0, 0
		refused := e.passRefused() // the core may send a probe of the local MTU now
		if e.passNoRoute() || refused {
			e.wakeOwner()
		}
	}
}
