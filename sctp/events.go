package sctp

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/assoc"
)

// EventKind names an association event.
type EventKind = api.EventKind

// The association events.
const (
	EventUp                     = api.EventUp                     // the association is established
	EventDown                   = api.EventDown                   // the association was lost (Event.Err says why)
	EventRestart                = api.EventRestart                // the peer restarted (RFC 9260 section 5.2.4)
	EventShutdown               = api.EventShutdown               // graceful shutdown completed
	EventPeerAddrChange         = api.EventPeerAddrChange         // a peer address became reachable or unreachable
	EventSendFailed             = api.EventSendFailed             // a message was not delivered (Event.Msg holds it)
	EventPartialDeliveryAborted = api.EventPartialDeliveryAborted // a partly delivered message will not complete
	EventSenderDry              = api.EventSenderDry              // everything written was acknowledged
	EventStreamReset            = api.EventStreamReset            // streams were reset, or a reset failed (RFC 6525; Event.Direction, Streams, Err)
	EventPeerError              = api.EventPeerError              // the peer sent an ERROR chunk (Event.Cause)
	EventStreamsAdded           = api.EventStreamsAdded           // streams were added, or an addition failed (RFC 6525; Event.Direction, Added, Err)
	EventAssocReset             = api.EventAssocReset             // the TSNs and every stream's numbering were reset, or a reset failed (RFC 6525 SSN/TSN Reset; Event.NextTSN, PeerNextTSN, Err)
	EventAuthNewKey             = api.EventAuthNewKey             // the peer's AUTH chunks use another shared key (RFC 6458 SCTP_AUTH_NEW_KEY; Event.KeyID)
	EventAuthKeyFree            = api.EventAuthKeyFree            // a deleted shared key is no longer used (SCTP_AUTH_FREE_KEY; Event.KeyID)
	EventPathMTU                = api.EventPathMTU                // a path's PLPMTU changed (path MTU discovery; Event.Addr, MTU)
)

// StreamDirection names the direction of the streams a reconfiguration
// touches, seen from this end.
type StreamDirection = api.StreamDirection

// Stream directions.
const (
	DirOutgoing = api.DirOutgoing // our outbound streams (what we send)
	DirIncoming = api.DirIncoming // our inbound streams (what the peer sends)
	DirBoth     = api.DirBoth
)

// Event is a notification about an association.
//
// EventStreamReset and EventStreamsAdded come for this end's requests
// (Association.ResetStreams, AddStreams) and for the peer's alike: a
// reset of the peer's outgoing streams is DirIncoming here. So does
// EventAssocReset (Association.ResetAssociation, or the peer's SSN/TSN
// Reset Request), with Direction DirBoth.
type Event = api.Event

// AddrChange says what an EventPeerAddrChange reports.
type AddrChange = api.AddrChange

// Address changes.
const (
	AddrReachability = api.AddrReachability // the address's reachability changed (Reachable, PathState)
	AddrAdded        = api.AddrAdded        // the peer added the address (RFC 5061 ASCONF)
	AddrRemoved      = api.AddrRemoved      // the peer deleted the address
	AddrMadePrimary  = api.AddrMadePrimary  // the address became the primary: the peer asked for it, or SetPrimary, or the data came back to it (Event.MadePrimary)
)

// dispatchAll hands the core's events to the associations and wakes the
// goroutines waiting on any of them. Called with e.mu held.
func (e *Endpoint) dispatchAll() {
	e.dispatch()
	for _, as := range e.assocs {
		as.wakeWaiters()
	}
}

// dispatchCall is dispatchAll after a user call on as alone: it wakes as's
// goroutines (and those of the associations the core lists as changed),
// not every association's (closing each of 10,000 associations would
// otherwise cost 10,000 visits). Called with e.mu held.
func (e *Endpoint) dispatchCall(as *Association) {
	e.noteChanged(as)
	e.dispatch()
}

// dispatch is dispatchAll for the associations that input, timers and
// calls reached: those the core lists as changed, and those e.changed
// holds already. Called with e.mu held.
func (e *Endpoint) dispatch() {
	e.deliverEvents()
	for _, a := range e.core.Changed() {
		if as := e.assocs[a]; as != nil {
			e.noteChanged(as)
		}
	}
	e.wakeChanged()
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

// noteChanged lists as for the wake-ups of wakeChanged.
func (e *Endpoint) noteChanged(as *Association) {
	if !as.inChanged {
		as.inChanged = true
		e.changed = append(e.changed, as)
	}
}

// deliverEvents hands every event the core queued to its association.
func (e *Endpoint) deliverEvents() {
	for {
		ev, ok := e.core.NextEvent()
		if !ok {
			break
		}
		e.handleEvent(&ev)
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
		if q := as.streamWriters[ev.Stream]; q != nil {
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
			// buffer space: progress wakes the writers.
			as.gaveUp = true
			e.noteChanged(as)
		}
		ev.Err = publicErr(ev.Err)
		as.emit(ev.Event)
	}
}

// queueAccepted wraps a new passive association and queues it for Accept, or
// aborts it when nobody can take it. The core bounds the associations not
// queueAccepted yet by Config.Limits.Backlog (it drops a COOKIE ECHO beyond it); the
// queue also holds those that ended before Accept, and drops them to
// make room.
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

// recordEnd records the recordEnd of the association that ev, its last event,
// reports: its final counters, the messages it did not send (every one,
// before EventDown) and why it ended (EventDown's AbortError). Called with
// ep.mu held.
func (as *Association) recordEnd(ev *assoc.Event) {
	if as.claimedPort != 0 {
		as.ep.ports.Release(as.claimedPort)
		as.claimedPort = 0
	}
	end := ev.End
	as.final = &end.Stats
	for i := range end.Unsent {
		if as.events == nil && len(as.earlyEvents) >= as.eventCap() {
			as.eventsDropped++ // nobody asked for events yet
			continue
		}
		as.emit(end.Unsent[i])
	}
	var err error
	if ev.Kind == EventDown {
		r := end.Reason
		err = &AbortError{ByPeer: r.ByPeer(), Reason: r.String(), Cause: ev.Cause, UserReason: end.UserReason,
			Causes: end.Causes, timeout: r.Timeout(), refused: r.Refused()}
	}
	as.terminate(err)
}

// DefaultEventQueue is Config.EventQueue's default: the capacity of an
// association's Events channel.
const DefaultEventQueue = 64

// maxPendingOther bounds the events other than send failures and the
// terminal ones waiting behind a full Events channel; more are dropped
// and counted. Send failures are bounded by the send buffer (failedBytesHeld),
// terminal events are never dropped.
const maxPendingOther = 4096

// eventLinger is how long the events of an association that ended wait
// for the reader to take each of them;
// then the rest are dropped (counted) and the channel closed, so that a
// program that stopped reading leaks no goroutine.
const eventLinger = 2 * time.Second

// eventCap returns the capacity of the Events channel.
func (as *Association) eventCap() int {
	if n := as.ep.cfg.EventQueue; n > 0 {
		return n
	}
	return DefaultEventQueue
}

// terminal reports whether ev is an association's last event.
func terminal(ev *Event) bool { return ev.Kind == EventDown || ev.Kind == EventShutdown }

// emit queues an event for the user; called with ep.mu held. Before the
// first Events call events wait in early (non-terminal ones beyond the
// channel's capacity are dropped and counted: nobody may ever ask).
// Afterwards an event goes straight into the channel when nothing waits
// and it has room, else behind the others in pending, which the pump
// goroutine feeds into the channel at the reader's pace: nothing is
// dropped for a reader that keeps reading. Send failures in pending hold
// send buffer space (failedBytesHeld) until they are in the channel, so that a
// writer whose messages are given up faster than the events are read
// waits for the reader instead of growing the queue; other events are
// few (at most maxPendingOther wait), terminal ones are never dropped.
func (as *Association) emit(ev Event) {
	if as.closed && !terminal(&ev) {
		return
	}
	if as.events == nil {
		if n := len(as.earlyEvents); ev.Kind == EventSenderDry && n > 0 && as.earlyEvents[n-1].Kind == EventSenderDry {
			return // one wait for the first Events call says it
		}
		if len(as.earlyEvents) < as.eventCap() || terminal(&ev) {
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
	if as.pendingHead == len(as.pendingEvents) && !as.pumping {
		select {
		case as.events <- ev:
			return
		default:
		}
	}
	as.queuePending(ev)
}

// queuePending puts ev in pending and starts the pump; called with ep.mu held.
func (as *Association) queuePending(ev Event) {
	switch {
	case ev.Kind == EventSendFailed && !as.closed:
		as.failedBytesHeld += len(ev.Msg)
	case !terminal(&ev) && ev.Kind != EventSendFailed:
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

// pumpEvents feeds the pending events into the Events channel, blocking on it
// at the reader's pace, and closes the channel after the last event of an
// association that ended. It runs only while events wait.
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
		case !terminal(&ev) && ev.Kind != EventSendFailed:
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

// emitEarly is emit for an event that waited in early, also after the
// association ended.
func (as *Association) emitEarly(ev Event) {
	if !as.pumping {
		select {
		case as.events <- ev:
			return
		default:
		}
	}
	as.queuePending(ev)
}

// closeEvents closes the Events channel at the end of the association,
// unless the pump still feeds it (then the pump closes it); called with
// ep.mu held.
func (as *Association) closeEvents() {
	if as.events != nil && !as.pumping && !as.eventsClosed {
		as.eventsClosed = true
		close(as.events)
	}
}

// EventsDropped returns how many events were dropped: they came before
// the first Events call and found Config.EventQueue others waiting, or the
// reader stopped taking them (see Events).
func (as *Association) EventsDropped() uint64 {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.eventsDropped
}
