package sctp

import (
	"errors"
	"net"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// poke wakes the owner goroutine to send what the core has queued.
func (e *Endpoint) poke() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// ownerLoop sends what user calls queued and runs the timers.
func (e *Endpoint) ownerLoop() {
	defer e.wg.Done()
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-e.kick:
		case <-t.C:
		case <-e.done:
			t.Stop()
			return
		}
		e.nOwnerWakes.Add(1)
		now := time.Now()
		e.mu.Lock()
		if d := e.core.Deadline(); !d.IsZero() && !d.After(now) {
			e.core.Expire(now)
			// Wake the goroutines of the associations whose timers
			// ran (the core lists them), not of all of them.
			e.afterPackets()
		}
		e.checkReader(now)
		e.mu.Unlock()
		e.flush()
		e.mu.Lock()
		d := e.core.Deadline()
		if e.rd.role != readerLoop && (d.IsZero() || e.rd.next.Before(d)) {
			d = e.rd.next
		}
		e.armed = d
		e.mu.Unlock()
		if !d.IsZero() {
			// A deadline the core could not serve must not make this
			// loop spin.
			t.Reset(max(time.Until(d), 50*time.Microsecond))
		} else {
			t.Stop()
		}
	}
}

// flush sends every packet the core has, in batches.
func (e *Endpoint) flush() {
	e.wmu.Lock()
	e.flushHeld()
	e.unlockW()
}

// sendNow sends what a user call just queued from the calling goroutine
// (write-through): no hand-off to the owner goroutine, so a request or a
// response leaves with one sendmmsg on the writer's thread. When another
// goroutine is flushing, that goroutine sends it instead (e.sendReq).
func (e *Endpoint) sendNow() {
	e.sendReq.Store(true)
	for e.sendReq.Load() && e.wmu.TryLock() {
		e.sendReq.Store(false)
		e.flushHeld()
		e.wmu.Unlock()
	}
}

// unlockW releases e.wmu, then flushes again for a sendNow that found it
// taken: a writer sets e.sendReq before its TryLock, and every holder
// looks at it after unlocking, so no request is left behind.
func (e *Endpoint) unlockW() {
	e.wmu.Unlock()
	for e.sendReq.Load() && e.wmu.TryLock() {
		e.sendReq.Store(false)
		e.flushHeld()
		e.wmu.Unlock()
	}
}

// flushHeld is flush with e.wmu held: it sends what is collected in e.out
// and everything the core has besides.
func (e *Endpoint) flushHeld() {
	for {
		now := time.Now()
		e.mu.Lock()
		full := e.collect(now)
		// Building packets may have cut queued messages (the writers of
		// the streams that got room are woken now rather than at the
		// next SACK) and given messages up (PR-SCTP: reported, and the
		// writers the space freed woken): the core's events say which,
		// so the cost does not grow with the number of associations.
		e.deliverEvents()
		e.progressTouched()
		rearm := false
		if !full {
			if d := e.core.Deadline(); !d.IsZero() && (e.armed.IsZero() || d.Before(e.armed)) {
				rearm = true
			}
		}
		gone := e.ownerGone && !full
		e.mu.Unlock()
		e.writeOut()
		if rearm {
			e.poke()
		}
		if gone {
			e.stop()
		}
		if !full {
			return
		}
	}
}

// collect polls the core's packets into e.out after the e.nout already
// there, built in the write area (writearea.go); it reports whether the
// batch is full. Called with e.wmu and e.mu held.
func (e *Endpoint) collect(now time.Time) bool {
	for {
		buf := e.nextOut()
		if buf == nil {
			return true
		}
		p, ok := e.core.Poll(now, buf)
		if !ok {
			return false
		}
		e.tookOut(p.Data)
		o := &e.out[e.nout]
		o.Buf, o.N, o.Addr, o.ECN = p.Data, len(p.Data), p.To, p.ECN
		if e.mh.on() {
			o.Local = e.mh.source(p.To.Addr())
		}
		e.nout++
		if p.MayFragment {
			// Larger than its path's PLPMTU (chunks cut before it
			// shrank): it goes alone, with IP fragmentation allowed.
			e.fragAt = e.nout
			return true
		}
	}
}

// writeOut sends the packets collected in e.out with one WriteBatch.
// Called with e.wmu held and e.mu not held.
func (e *Endpoint) writeOut() {
	if e.nout > 0 {
		e.nWrites.Add(1)
		pkts := e.out[:e.nout]
		var frag []netio.Packet
		if e.fragAt > 0 {
			pkts, frag = pkts[:e.fragAt-1], pkts[e.fragAt-1:e.fragAt]
			e.fragAt = 0
		}
		for len(pkts) > 0 {
			// A lost packet is a lost packet; the error of WriteBatch
			// concerns pkts[n] alone (no route to one path's address, a
			// packet over the local MTU with DF): the rest go on.
			n, err := e.conn.WriteBatch(pkts)
			if err == nil || n >= len(pkts) || errors.Is(err, net.ErrClosed) {
				break
			}
			e.noteRefused(&pkts[n], err) // toobig.go
			pkts = pkts[n+1:]
		}
		if len(frag) > 0 {
			if f, ok := e.conn.(netio.FragmentWriter); ok {
				f.WriteFragmentable(frag)
			} else {
				e.conn.WriteBatch(frag)
			}
		}
		e.nout, e.slabOff = 0, 0
		if e.passRefused() {
			e.poke() // the core may send a probe of the local MTU now
		}
	}
}
