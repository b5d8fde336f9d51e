package sctp

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// The dispatch of the core's output to the associations. After every
// call into the core (packets read, timers run, a user call) the shell
// takes the core's events and hands each to its association (handleEvent),
// then wakes the goroutines waiting on the associations that changed: those
// the core lists (assoc.Endpoint.Changed) and those the shell noted itself
// (noteChanged). Everything here runs with Endpoint.mu held.

// dispatchAll is dispatch followed by a wake-up of every association's
// waiters: for the calls that reach every association at once (Close, a
// failed socket). Called with e.mu held.
func (e *Endpoint) dispatchAll() {
	e.dispatch()
	for _, as := range e.assocs {
		as.wakeWaiters()
	}
}

// dispatchCall is dispatch after a user call on as: as's waiters are woken
// whether or not the core lists as as changed. Called with e.mu held.
func (e *Endpoint) dispatchCall(as *Association) {
	e.noteChanged(as)
	e.dispatch()
}

// dispatch hands the core's events to their associations and wakes the
// waiters of the associations that input, timers and calls reached: those
// the core lists as changed and those e.changed holds already, not every
// association's, so that the cost does not grow with their number. Called
// with e.mu held.
func (e *Endpoint) dispatch() {
	e.deliverEvents()
	for _, a := range e.core.Changed() {
		if as := e.assocs[a]; as != nil {
			e.noteChanged(as)
		}
	}
	e.wakeChanged()
}

// noteChanged lists as in e.changed (once) for wakeChanged. Called with
// e.mu held.
func (e *Endpoint) noteChanged(as *Association) {
	if !as.inChanged {
		as.inChanged = true
		e.changed = append(e.changed, as)
	}
}

// wakeChanged wakes the goroutines of the associations in e.changed
// and empties it. Called with e.mu held.
func (e *Endpoint) wakeChanged() {
	for i, as := range e.changed {
		as.inChanged = false
		as.wakeWaiters()
		e.changed[i] = nil
	}
	e.changed = e.changed[:0]
}

// deliverEvents hands every event the core queued to its association.
// Called with e.mu held.
func (e *Endpoint) deliverEvents() {
	for ev := e.core.NextEvent(); ev != nil; ev = e.core.NextEvent() {
		e.handleEvent(ev)
	}
}

// handleEvent acts on one event of the core: a user event goes to the
// association's Events (EventUp of a passive association queues it for
// Accept), an answer to the call waiting for it, room on a stream to the
// stream's writers, and the association's end to the goroutines waiting
// on it.
func (e *Endpoint) handleEvent(ev *assoc.Event) {
	as := e.assocs[ev.Assoc]
	if as == nil {
		if ev.Quiet || ev.Kind != EventUp {
			return
		}
		if as = e.queueAccepted(ev.Assoc); as == nil {
			return
		}
	}
	switch {
	case ev.Room:
		if as.writerReading {
			as.roomCame = true
		}
		if q := as.streamWriters[ev.Stream]; q != nil {
			as.noteWriterWake(q)
			q.wake()
		}
	case ev.Quiet:
		as.answerReconf(ev.Op, publicErr(ev.Err))
	case ev.End != nil:
		as.recordEnd(ev)
	default:
		switch ev.Kind {
		case EventUp:
			as.established = true
			as.stateWaiters.wake()
		case EventSendFailed:
			// Messages given up under their PR-SCTP policy free send
			// buffer space: wakeWaiters wakes the writers.
			as.gaveUp = true
			e.noteChanged(as)
		}
		switch ev.Kind {
		case EventUp, EventRestart, EventPeerAddrChange:
			e.exitNoteAssoc(as) // new tags or addresses for the ABORT at exit
		}
		ev.Err = publicErr(ev.Err)
		as.emit(ev.Event)
	}
}

// queueAccepted wraps a new passive association and queues it for
// Accept, or aborts it when nobody can take it. The core bounds the
// associations not accepted yet by Config.Limits.Backlog (it drops a
// COOKIE ECHO beyond it); the queue also holds those that ended before
// Accept, and drops them to make room.
func (e *Endpoint) queueAccepted(a *assoc.Assoc) *Association {
	if len(e.acceptQueue) >= e.cfg.Limits.Backlog {
		q := e.acceptQueue[:0]
		for _, as := range e.acceptQueue {
			if !as.closed {
				q = append(q, as)
			}
		}
		clear(e.acceptQueue[len(q):])
		e.acceptQueue = q
	}
	if e.closed || e.listenPort == 0 || len(e.acceptQueue) >= e.cfg.Limits.Backlog {
		a.Abort(time.Now(), []byte(ErrAcceptQueueFull.Error()))
		return nil
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
	e.acceptQueue = append(e.acceptQueue, as)
	e.acceptWaiters.wake()
	return as
}

// wakeWaiters wakes the goroutines waiting on as whose condition may
// have changed: readers with data to read, writers with room to write,
// and it reports the sender dry once everything written was
// acknowledged. Called with ep.mu held.
func (as *Association) wakeWaiters() {
	if !as.core.Started() {
		return
	}
	as.wakeReaders()
	gaveUp := as.gaveUp
	as.gaveUp = false
	if gaveUp {
		// Messages given up free space without the SACKs the stream
		// limits' hysteresis waits for (the peer's window may be
		// shut): every stream's writers try again (a rare event, so
		// the walk over the waiting streams is cheap).
		for _, q := range as.streamWriters {
			q.wake()
		}
	}
	if (as.writers.waiting() || as.writerReading) && (as.writable() || gaveUp && as.messageFits()) {
		as.wantRoom = 0
		as.roomCame = as.writerReading
		as.noteWriterWake(&as.writers)
		as.writers.wake()
	}
	if as.wroteSinceDry && as.core.SendIdle() {
		as.wroteSinceDry = false
		if as.ep.cfg.SenderDryEvents {
			as.emit(Event{Kind: EventSenderDry})
		}
	}
}
