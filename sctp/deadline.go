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

// wait returns a channel closed once the deadline has passed.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.c == nil {
		d.c = make(chan struct{})
	}
	return d.c
}

// waitq wakes every goroutine waiting for a condition guarded by the
// endpoint lock. Its channel exists only while someone waits, so the
// uncontended path allocates nothing.
type waitq struct{ ch chan struct{} }

// wait returns the channel to wait on; call with the lock held.
func (w *waitq) wait() <-chan struct{} {
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

// wake wakes every waiter; call with the lock held.
func (w *waitq) wake() {
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}
