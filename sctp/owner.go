package sctp

import "time"

// The owner goroutine (ownerLoop) runs the core's timers with one
// time.Timer armed at the core's earliest deadline (or at the next check
// of the reader role), and sends what user calls queued when they wake it
// (wakeOwner). User calls never wait for it. A flush that starts an
// earlier timer moves the owner's timer itself (armOwner) rather than
// wake the owner to do it: on a bulk sender, where a flush moves it
// hundreds of times a second, each wake would ready a goroutine on an
// idle P.

// wakeOwner wakes the owner goroutine to send what the core has queued
// and to look at the core's deadline again. It never blocks.
func (e *Endpoint) wakeOwner() {
	select {
	case e.ownerWake <- struct{}{}:
	default:
	}
}

// ownerLoop is the owner goroutine: it runs the timers that expired and
// the checks of the reader role, then flushes, until the endpoint stops.
func (e *Endpoint) ownerLoop() {
	defer e.wg.Done()
	t := e.ownerTimer
	for {
		select {
		case <-e.ownerWake:
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
			e.dispatch()
		}
		e.checkReader(now)
		e.mu.Unlock()
		e.flush()
		e.mu.Lock()
		e.armOwner(e.ownerDeadline())
		e.mu.Unlock()
	}
}

// ownerDeadline returns when the owner is next due: the core's earliest
// deadline, or the next check of the reader role while readLoop is parked
// if that comes first. Called with e.mu held.
func (e *Endpoint) ownerDeadline() time.Time {
	d := e.core.Deadline()
	if e.reader.role != readerLoop && (d.IsZero() || e.reader.nextCheck.Before(d)) {
		d = e.reader.nextCheck
	}
	return d
}

// armOwner sets the owner's timer for d (stops it for the zero time).
// Called with e.mu held, so a flush moving the timer and the owner
// setting it after its run take turns.
func (e *Endpoint) armOwner(d time.Time) {
	e.timerAt = d
	if d.IsZero() {
		e.ownerTimer.Stop()
		return
	}
	// A deadline the core could not serve must not make the owner spin.
	e.ownerTimer.Reset(max(time.Until(d), 50*time.Microsecond))
}
