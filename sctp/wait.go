package sctp

import (
	"sync"
	"time"
)

// deadline is a settable deadline whose channel closes when it passes (the
// net.Conn deadline model). Setting one allocates at most a timer; waiting
// allocates nothing.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	c      chan struct{}
	closed bool
}

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	if d.c == nil || d.closed {
		d.c, d.closed = make(chan struct{}), false
	}
	if t.IsZero() {
		return
	}
	dur := time.Until(t)
	if dur <= 0 {
		close(d.c)
		d.closed = true
		return
	}
	c := d.c
	d.timer = time.AfterFunc(dur, func() {
		d.mu.Lock()
		if d.c == c && !d.closed {
			close(c)
			d.closed = true
		}
		d.mu.Unlock()
	})
}

// none reports whether no deadline is set.
func (d *deadline) none() bool {
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

// wait returns a channel closed once the deadline has passed.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.c == nil {
		d.c = make(chan struct{})
	}
	return d.c
}

// waitq wakes the goroutines waiting for a condition guarded by the
// endpoint lock. Each waiter takes a one-slot channel from its endpoint's
// free list, so waiting allocates nothing in steady state (a per-endpoint
// list rather than a sync.Pool keeps channels inside one synctest bubble). Waiters re-check their
// condition after waking: a stale wake-up is harmless.
type waitq struct{ ws []chan struct{} }

// add registers waiter c; call with the lock held.
func (w *waitq) add(c chan struct{}) { w.ws = append(w.ws, c) }

// cancel removes waiter c that gave up; call with the lock held.
func (w *waitq) cancel(c chan struct{}) {
	for i, x := range w.ws {
		if x == c {
			last := len(w.ws) - 1
			w.ws[i] = w.ws[last]
			w.ws[last] = nil
			w.ws = w.ws[:last]
			return
		}
	}
}

// waiting reports whether anyone waits.
func (w *waitq) waiting() bool { return len(w.ws) > 0 }

// wake wakes every waiter; call with the lock held.
func (w *waitq) wake() {
	for i, c := range w.ws {
		select {
		case c <- struct{}{}:
		default:
		}
		w.ws[i] = nil
	}
	w.ws = w.ws[:0]
}
