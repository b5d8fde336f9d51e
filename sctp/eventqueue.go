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
	events        chan Event
	earlyEvents   []Event
	pendingEvents []Event
	pendingHead   int
	pendingOther  int    // events in pendingEvents other than send failures and terminal ones
	failuresHeld  int    // memory of the send failures in pendingEvents (failureCost)
	eventsDropped uint64 // events dropped (EventsDropped)
	ending        bool   // the association's end is being reported: its unsent messages are all reported
	pumping       bool   // the pumpEvents goroutine runs
	eventsClosed  bool   // events is closed
}

// DefaultEventQueue is Config.EventQueue's default: the capacity of an
// association's Events channel.
const DefaultEventQueue = 64

// maxPendingOther bounds the events other than send failures and the
// terminal ones waiting behind a full Events channel; more are dropped
// and counted. Send failures are bounded by their memory (failuresHeld,
// at most the send buffer's size), terminal events are never dropped.
const maxPendingOther = 4096

// eventOverhead is the memory an event waiting behind the channel costs
// besides its message: about an Event's size.
const eventOverhead = 256

// failureCost is the memory that the send failure ev, waiting behind a
// full Events channel, is charged: its message and the event.
func failureCost(ev *Event) int { return len(ev.Msg) + eventOverhead }

// eventLinger is how long each event of an association that ended waits
// for the reader to take it; then the rest are dropped (counted) and the
// channel closed, so that a program that stopped reading leaks no
// goroutine.
const eventLinger = 2 * time.Second

// Events returns the channel of the association's events, in order.
// The channel is closed after the association's last event
// (EventShutdown or EventDown, never dropped).
//
// No call waits for the reader of the channel: a program may read it
// once (for EventUp) and never again. Events that find the channel full
// (Config.EventQueue, default 64) wait behind it, within bounds: the
// EventSendFailed events of messages given up while the association
// runs, with their messages, up to the size of the send buffer
// (Config.Buffers.SendBuffer); others, up to 4,096. Events past a bound
// are dropped and counted (EventsDropped, Stats.EventsDropped). A message
// given up frees its send buffer space at once, whether or not its event
// was read. The messages still queued when the association ends are all
// reported, before the last event.
//
// The channel is made by the first call: until then events wait for it
// (at most Config.EventQueue of them, the rest dropped and counted), in
// order. Once the association ended, an event the reader does not take
// within 2 seconds is dropped with those behind it, and the channel
// closed, so a program that stopped reading leaks nothing.
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
// pumpEvents goroutine feeds into the channel at the reader's pace,
// within the bounds Events documents.
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
// goroutine if it does not run; called with ep.mu held. An EventSenderDry
// behind another one waits as that one: "everything written was
// acknowledged" once says it (coalesced, not dropped).
func (as *Association) queuePending(ev Event) {
	if n := len(as.pendingEvents); ev.Kind == EventSenderDry && n > as.pendingHead && as.pendingEvents[n-1].Kind == EventSenderDry {
		return
	}
	switch {
	case ev.Kind == EventSendFailed:
		// While the association runs, the reports of messages given up
		// are bounded by the send buffer's size; at its end, the queued
		// messages are reported whole (they were in that buffer).
		cost := failureCost(&ev)
		if !as.ending && !as.closed && as.failuresHeld+cost > as.failureLimit() {
			as.eventsDropped++
			return
		}
		as.failuresHeld += cost
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

// failureLimit returns the memory the send failures waiting behind a full
// Events channel may hold: the send buffer's size. Called with ep.mu held.
func (as *Association) failureLimit() int {
	_, capacity := as.core.SendRoom()
	return capacity
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
		case ev.Kind == EventSendFailed:
			as.failuresHeld -= failureCost(&ev)
		case !isLastEvent(&ev) && ev.Kind != EventSendFailed:
			as.pendingOther--
		}
		gone := as.closed
		e.mu.Unlock()
		if !gone {
			// Until the association ends, at the reader's pace; once
			// it ended, with the linger below.
			select {
			case as.events <- ev:
				e.mu.Lock()
				continue
			case <-as.done:
			}
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
			as.pendingOther, as.failuresHeld = 0, 0
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
