package sctp

import (
	"testing"
	"time"
)

// A deadline's timer that fired as the deadline was set again (its
// callback waiting for the lock that set held) closes nothing: the
// deadline set last holds, also when that setting kept the channel (a
// deadline cleared before it passed). Otherwise a later read fails with
// os.ErrDeadlineExceeded: the compat package's read looks for queued data
// with a deadline a microsecond away and then clears it.
func TestDeadlineStaleTimer(t *testing.T) {
	var d deadline
	d.set(time.Now().Add(time.Hour))
	stale := d.gen
	d.set(time.Time{})
	d.fire(stale) // the first setting's timer, late
	if d.passed() {
		t.Fatal("a deadline cleared before its timer's callback ran has passed")
	}
	select {
	case <-d.passedChan():
		t.Fatal("the cleared deadline's channel is closed")
	default:
	}

	d.set(time.Now().Add(time.Hour))
	d.fire(d.gen)
	if !d.passed() {
		t.Fatal("the current setting's timer did not pass the deadline")
	}
	d.set(time.Time{})
	if d.passed() {
		t.Fatal("a deadline cleared after it passed has passed")
	}
	d.set(time.Unix(1, 0))
	if !d.passed() {
		t.Fatal("a deadline in the past has not passed")
	}
}
