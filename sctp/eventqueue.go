package sctp

import "time"

// eventQueue holds an association's events on their way to its user,
// guarded by Endpoint.mu. The Events channel is made by the first Events
// call: until then emitted events wait in earlyEvents (at most
// Config.EventQueue), so an association whose user never asks for events
// holds a few of them, not a channel. Events that find the channel full
// wait in pendingEvents (from pendingHead), fed into it by the
// pumpEvents goroutine while pumping.
type eventQueue struct {
	events          chan Event
	earlyEvents     []Event
	pendingEvents   []Event
	pendingHead     int
	pendingOther    int    // events in pendingEvents other than send failures and terminal ones
	failedBytesHeld int    // bytes of the messages of the send failures in pendingEvents
	eventsDropped   uint64 // events dropped (EventsDropped)
	pumping         bool   // the pumpEvents goroutine runs
	eventsClosed    bool   // events is closed
}

// DefaultEventQueue is Config.EventQueue's default: the capacity of an
// association's Events channel.
const DefaultEventQueue = 64

// maxPendingOther bounds the events other than send failures and the
// terminal ones waiting behind a full Events channel; more are dropped
// and counted. Send failures are bounded by the send buffer
// (failedBytesHeld), terminal events are never dropped.
const maxPendingOther = 4096

// eventLinger is how long each event of an association that ended waits
// for the reader to take it; then the rest are dropped (counted) and the
// channel closed, so that a program that stopped reading leaks no
// goroutine.
const eventLinger = 2 * time.Second

// Events returns the channel of the association's events. A program that
// keeps reading it receives every event, in order: events that find the
// channel full (Config.EventQueue, default 64) wait behind it, and
// EventSendFailed events waiting so hold send buffer space, so a writer
// whose messages are given up faster than they are reported waits for the
// reader. The channel is closed after the association's last event
// (EventShutdown or EventDown, never dropped). The channel is made by the
// first call: until then events wait for it (at most Config.EventQueue of
// them, the rest dropped and counted in EventsDropped and
// Stats.EventsDropped), in order, except that EventSenderDry events in a
// row wait as one. Once the association ended, an event the reader does
// not take within 2 seconds is dropped with those behind it, and the
// channel closed.
func (as *Association) Events() <-chan Event {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.events == nil {
		as.events = make(chan Event, as.eventCap())
		early := as.earlyEvents
		as.earlyEvents = nil
		for _, ev := range early {
			as.emitEarly(ev)
		}
		if as.closed && !as.pumping && !as.eventsClosed {
			as.eventsClosed = true
			close(as.events)
		}
	}
	return as.events
}

// EventsDropped returns how many events were dropped: they came before
// the first Events call and found Config.EventQueue others waiting, or the
// reader stopped taking them (see Events).
func (as *Association) EventsDropped() uint64 {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.eventsDropped
}

// eventCap returns the capacity of the Events channel.
func (as *Association) eventCap() int {
	if n := as.ep.cfg.EventQueue; n > 0 {
		return n
	}
	return DefaultEventQueue
}

// isLastEvent reports whether ev is an association's last event.
func isLastEvent(ev *Event) bool { return ev.Kind == EventDown || ev.Kind == EventShutdown }

// emit queues an event for the user; called with ep.mu held. Before the
// first Events call events wait in earlyEvents (non-terminal ones beyond
// the channel's capacity are dropped and counted: nobody may ever ask).
// Afterwards an event goes straight into the channel when nothing waits
// and it has room, else behind the others in pendingEvents, which the
// pumpEvents goroutine feeds into the channel at the reader's pace:
// nothing is dropped for a reader that keeps reading. Send failures in
// pendingEvents hold send buffer space (failedBytesHeld) until they are
// in the channel, so that a writer whose messages are given up faster
// than the events are read waits for the reader instead of growing the
// queue; other events are few (at most maxPendingOther wait), terminal
// ones are never dropped.
func (as *Association) emit(ev Event) {
	if as.closed && !isLastEvent(&ev) {
		return
	}
	if as.events == nil {
		if n := len(as.earlyEvents); ev.Kind == EventSenderDry && n > 0 && as.earlyEvents[n-1].Kind == EventSenderDry {
			return // one wait for the first Events call says it
		}
		if len(as.earlyEvents) < as.eventCap() || isLastEvent(&ev) {
			as.earlyEvents = append(as.earlyEvents, ev)
		} else {
			as.eventsDropped++
		}
		return
	}
	if as.eventsClosed {
		as.eventsDropped++
		return
	}
	as.emitEarly(ev)
}

// emitEarly is emit for an event that waited in earlyEvents, also after
// the association ended: straight into the channel when nothing waits
// and it has room, else behind the others. Called with ep.mu held.
func (as *Association) emitEarly(ev Event) {
	if as.pendingHead == len(as.pendingEvents) && !as.pumping {
		select {
		case as.events <- ev:
			return
		default:
		}
	}
	as.queuePending(ev)
}

// queuePending puts ev in pendingEvents and starts the pumpEvents
// goroutine if it does not run; called with ep.mu held.
func (as *Association) queuePending(ev Event) {
	switch {
	case ev.Kind == EventSendFailed && !as.closed:
		as.failedBytesHeld += len(ev.Msg)
	case !isLastEvent(&ev) && ev.Kind != EventSendFailed:
		if as.pendingOther >= maxPendingOther {
			as.eventsDropped++
			return
		}
		as.pendingOther++
	}
	as.pendingEvents = append(as.pendingEvents, ev)
	if !as.pumping {
		as.pumping = true
		go as.pumpEvents()
	}
}

// pumpEvents feeds pendingEvents into the Events channel, blocking on it
// at the reader's pace (without ep.mu held), and closes the channel after
// the last event of an association that ended. It runs as a goroutine of
// its own only while events wait.
func (as *Association) pumpEvents() {
	e := as.ep
	var linger *time.Timer
	e.mu.Lock()
	for {
		if as.pendingHead == len(as.pendingEvents) {
			as.pendingEvents, as.pendingHead = as.pendingEvents[:0], 0
			as.pumping = false
			if as.closed && !as.eventsClosed {
				as.eventsClosed = true
				close(as.events)
			}
			e.mu.Unlock()
			if linger != nil {
				linger.Stop()
			}
			return
		}
		ev := as.pendingEvents[as.pendingHead]
		as.pendingEvents[as.pendingHead] = Event{}
		as.pendingHead++
		switch {
		case ev.Kind == EventSendFailed && as.failedBytesHeld > 0:
			as.failedBytesHeld = max(as.failedBytesHeld-len(ev.Msg), 0)
			if as.writers.waiting() && as.messageFits() {
				as.wantRoom = 0
				as.writers.wake()
			}
		case !isLastEvent(&ev) && ev.Kind != EventSendFailed:
			as.pendingOther--
		}
		gone := as.closed
		e.mu.Unlock()
		if !gone {
			as.events <- ev
			e.mu.Lock()
			continue
		}
		if linger == nil {
			linger = time.NewTimer(eventLinger)
		} else {
			linger.Reset(eventLinger)
		}
		select {
		case as.events <- ev:
			e.mu.Lock()
		case <-linger.C:
			e.mu.Lock()
			as.eventsDropped += uint64(1 + len(as.pendingEvents) - as.pendingHead)
			clear(as.pendingEvents[as.pendingHead:])
			as.pendingHead = len(as.pendingEvents)
		}
	}
}

// closeEvents closes the Events channel at the end of the association,
// unless pumpEvents still feeds it (then pumpEvents closes it); called
// with ep.mu held.
func (as *Association) closeEvents() {
	if as.events != nil && !as.pumping && !as.eventsClosed {
		as.eventsClosed = true
		close(as.events)
	}
}
