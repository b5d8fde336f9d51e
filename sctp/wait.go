package sctp

import (
	"os"
	"sync"
	"time"
)

// deadline is a settable deadline whose channel closes when it passes (the
// net.Conn deadline model). Setting one allocates at most a timer; waiting
// allocates nothing.
// Its lock is a leaf: nothing else is taken while it is held.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	done   chan struct{} // closed once the deadline passed
	closed bool          // done is closed
	gen    uint64        // bumped by every set: a timer of an earlier one closes nothing
}

// set sets the deadline to t; the zero time means none.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	// A timer that fired may be waiting for d.mu to close done: Stop
	// does not stop it, the generation does.
	d.gen++
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	if d.done == nil || d.closed {
		d.done, d.closed = make(chan struct{}), false
	}
	if t.IsZero() {
		return
	}
	dur := time.Until(t)
	if dur <= 0 {
		close(d.done)
		d.closed = true
		return
	}
	gen := d.gen
	d.timer = time.AfterFunc(dur, func() { d.fire(gen) })
}

// fire is the timer of the deadline set as generation gen: it closes done
// if no set came since.
func (d *deadline) fire(gen uint64) {
	d.mu.Lock()
	if d.gen == gen && !d.closed {
		close(d.done)
		d.closed = true
	}
	d.mu.Unlock()
}

// unset reports whether no deadline is set.
func (d *deadline) unset() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.timer == nil && !d.closed
}

// passed reports whether the deadline has passed: calls fail then even
// when they could proceed, as with net.Conn.
func (d *deadline) passed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// passedChan returns a channel closed once the deadline has passed.
func (d *deadline) passedChan() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done == nil {
		d.done = make(chan struct{})
	}
	return d.done
}

// waitq wakes the goroutines waiting for a condition guarded by the
// endpoint lock. Each waiter takes a one-slot channel from its endpoint's
// free list, so waiting allocates nothing in steady state (a per-endpoint
// list rather than a sync.Pool keeps channels inside one synctest
// bubble). Waiters re-check their condition after waking: a stale wake-up
// is harmless.
type waitq struct{ chans []chan struct{} }

// add registers waiter c; call with the lock held.
func (w *waitq) add(c chan struct{}) { w.chans = append(w.chans, c) }

// cancel removes waiter c that gave up; call with the lock held.
func (w *waitq) cancel(c chan struct{}) {
	for i, x := range w.chans {
		if x == c {
			last := len(w.chans) - 1
			w.chans[i] = w.chans[last]
			w.chans[last] = nil
			w.chans = w.chans[:last]
			return
		}
	}
}

// waiting reports whether anyone waits.
func (w *waitq) waiting() bool { return len(w.chans) > 0 }

// wake wakes every waiter; call with the lock held.
func (w *waitq) wake() {
	for i, c := range w.chans {
		select {
		case c <- struct{}{}:
		default:
		}
		w.chans[i] = nil
	}
	w.chans = w.chans[:0]
}

// waitOn waits on q until woken, or until stop1 or stop2 is closed (then it
// reports false). It is called and returns with e.mu held, and releases
// e.mu while it waits.
func (e *Endpoint) waitOn(q *waitq, stop1, stop2 <-chan struct{}) bool {
	var c chan struct{}
	if n := len(e.freeWaitChans); n > 0 {
		c = e.freeWaitChans[n-1]
		e.freeWaitChans = e.freeWaitChans[:n-1]
	} else {
		c = make(chan struct{}, 1)
	}
	q.add(c)
	e.nWaiting++
	if e.reader.role == readerNone {
		e.reader.handToLoop() // someone must read the socket for this waiter
	}
	e.mu.Unlock()
	ok := true
	select {
	case <-c:
	case <-stop1:
		ok = false
	case <-stop2:
		ok = false
	}
	e.mu.Lock()
	e.nWaiting--
	if !ok {
		q.cancel(c)
	}
	select {
	case <-c:
	default:
	}
	e.freeWaitChans = append(e.freeWaitChans, c)
	return ok
}

// stopErr is the error of a call that stopped waiting: ErrClosed when
// closed (a Stream's Close) is closed, else the deadline's.
func stopErr(closed <-chan struct{}) error {
	select {
	case <-closed:
		return ErrClosed
	default:
		return os.ErrDeadlineExceeded
	}
}
