package sctp

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// EventKind names an association event.
type EventKind uint8

// The association events.
const (
	EventUp                     EventKind = iota // the association is established
	EventDown                                    // the association was lost (Event.Err says why)
	EventRestart                                 // the peer restarted (RFC 9260 section 5.2.4)
	EventShutdown                                // graceful shutdown completed
	EventPeerAddrChange                          // a peer address became reachable or unreachable
	EventSendFailed                              // a message was not delivered (Event.Msg holds it)
	EventPartialDeliveryAborted                  // a partly delivered message will not complete
	EventSenderDry                               // everything written was acknowledged
	EventStreamReset                             // streams were reset, or a reset failed (RFC 6525; Event.Direction, Streams, Err)
	EventPeerError                               // the peer sent an ERROR chunk (Event.Cause)
	EventStreamsAdded                            // streams were added, or an addition failed (RFC 6525; Event.Direction, Added, Err)
	EventAssocReset                              // the TSNs and every stream's numbering were reset, or a reset failed (RFC 6525 SSN/TSN Reset; Event.NextTSN, PeerNextTSN, Err)
)

var eventKindNames = [...]string{"up", "down", "restart", "shutdown", "peer address change",
	"send failed", "partial delivery aborted", "sender dry", "stream reset", "peer error", "streams added", "association reset"}

// String returns a short name of the event kind.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "event(?)"
}

// StreamDirection names the direction of the streams a reconfiguration
// touches, seen from this end.
type StreamDirection uint8

// Stream directions.
const (
	DirOutgoing StreamDirection = 1 << iota // our outbound streams (what we send)
	DirIncoming                             // our inbound streams (what the peer sends)
	DirBoth     = DirOutgoing | DirIncoming
)

var dirNames = [...]string{"none", "outgoing", "incoming", "both"}

// String returns "outgoing", "incoming" or "both".
func (d StreamDirection) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return "direction(?)"
}

// Event is a notification about an association.
//
// EventStreamReset and EventStreamsAdded come for this end's requests
// (Association.ResetStreams, AddStreams) and for the peer's alike: a
// reset of the peer's outgoing streams is DirIncoming here. So does
// EventAssocReset (Association.ResetAssociation, or the peer's SSN/TSN
// Reset Request), with Direction DirBoth.
type Event struct {
	Kind        EventKind
	Err         error           // EventDown: why (an *AbortError); EventStreamReset, EventStreamsAdded, EventAssocReset: nil on success, else ErrReconfigDenied or ErrReconfigFailed
	Addr        netip.AddrPort  // EventPeerAddrChange: the peer address (IP, UDP port)
	Reachable   bool            // EventPeerAddrChange: the address answers again
	PathState   PathState       // EventPeerAddrChange: the address's new state (multi-homing; PathActive or PathInactive otherwise)
	Stream      uint16          // EventSendFailed, EventPartialDeliveryAborted: the stream
	PPID        uint32          // EventSendFailed: the message's PPID
	Msg         []byte          // EventSendFailed: a copy of the unsent message
	Sent        bool            // EventSendFailed: part of it had been transmitted
	Unordered   bool            // EventSendFailed: it was sent unordered
	PR          PRPolicy        // EventSendFailed: the policy that gave it up (PRNone: the association ended)
	Cause       uint16          // EventPeerError: the error cause code
	Direction   StreamDirection // EventStreamReset, EventStreamsAdded: which streams
	Streams     []uint16        // EventStreamReset: the streams reset; empty: all of them
	Added       uint16          // EventStreamsAdded: how many streams were added
	NextTSN     uint32          // EventAssocReset: the TSN of our next DATA chunk
	PeerNextTSN uint32          // EventAssocReset: the TSN expected next from the peer
}

// afterInput hands the core's events to the associations and wakes the
// goroutines waiting on any of them. Called with e.mu held.
func (e *Endpoint) afterInput() {
	e.deliverEvents()
	for _, as := range e.assocs {
		as.progress()
	}
}

// afterPackets is afterInput for the associations that packets reached
// (e.touched). Called with e.mu held.
func (e *Endpoint) afterPackets() {
	e.deliverEvents()
	for i, as := range e.touched {
		as.touched = false
		as.progress()
		e.touched[i] = nil
	}
	e.touched = e.touched[:0]
}

// deliverEvents hands every event the core queued to its association.
func (e *Endpoint) deliverEvents() {
	for {
		ev, ok := e.core.NextEvent()
		if !ok {
			break
		}
		e.handle(ev)
	}
}

// handle turns one core event into the association's state and a user
// event.
func (e *Endpoint) handle(ev assoc.Event) {
	as := e.assocs[ev.Assoc]
	switch ev.Kind {
	case assoc.EventCommUp:
		if as == nil {
			as = e.accepted(ev.Assoc)
			if as == nil {
				return
			}
		}
		as.up = true
		as.swait.wake()
		as.emit(Event{Kind: EventUp})
		return
	}
	if as == nil {
		return
	}
	switch ev.Kind {
	case assoc.EventRestart:
		as.emit(Event{Kind: EventRestart})
	case assoc.EventPeerError:
		as.emit(Event{Kind: EventPeerError, Cause: uint16(ev.Cause)})
	case assoc.EventReconf:
		as.reconfDone(ev.Reconf)
	case assoc.EventPathDown, assoc.EventPathUp:
		peer, _ := ev.Assoc.Peer()
		st := PathInactive
		if ev.Kind == assoc.EventPathUp {
			st = PathActive
		}
		if ev.Addr.IsValid() { // a path of a multi-homed peer
			peer, st = ev.Addr, PathState(ev.Path)
		}
		as.emit(Event{Kind: EventPeerAddrChange, Addr: peer, Reachable: ev.Kind == assoc.EventPathUp, PathState: st})
	case assoc.EventShutdownComplete:
		as.terminate(nil)
	case assoc.EventCommLost, assoc.EventCantStart:
		ae := &AbortError{ByPeer: ev.Reason == assoc.ReasonPeerAbort, Reason: ev.Reason.String(), Cause: uint16(ev.Cause),
			timeout: ev.Reason.Timeout()}
		if ev.Reason == assoc.ReasonUserAbort {
			ae.UserReason = as.abortReason
		}
		as.terminate(ae)
	}
}

// accepted wraps a new passive association and queues it for Accept, or
// aborts it when nobody can take it.
func (e *Endpoint) accepted(a *assoc.Assoc) *Association {
	if e.closed || e.listenPort == 0 || len(e.acceptq) >= e.cfg.Backlog {
		a.Abort(time.Now(), []byte(ErrAcceptQueueFull.Error()))
		return nil
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
	e.acceptq = append(e.acceptq, as)
	e.acceptWait.wake()
	return as
}

// onDestroy is the core's hook as an association closes: keep its final
// counters and its receive side (unread messages stay readable), and
// report its unsent messages.
func (e *Endpoint) onDestroy(a *assoc.Assoc, r assoc.Reason) {
	as := e.assocs[a]
	if as == nil {
		return
	}
	s := a.Stats()
	final := statsOf(&s)
	as.final = &final
	as.takeFailed()
	if r != assoc.ReasonShutdown {
		a.DrainUnsent(func(m assoc.Unsent) {
			if as.eventRoom() > 0 {
				as.emit(Event{Kind: EventSendFailed, Stream: m.SID, PPID: m.PPID, Unordered: m.Unordered,
					Msg: append([]byte(nil), m.Payload...), Sent: m.Sent})
			}
		})
	}
}

// maxEvents bounds the events queued for a user who is not reading them.
const maxEvents = 64

// takeFailed reports the messages the engine gave up under their PR-SCTP
// policy as EventSendFailed events.
func (as *Association) takeFailed() {
	as.a.TakeFailed(func(f assoc.Failed) {
		as.emit(Event{Kind: EventSendFailed, Stream: f.SID, PPID: f.PPID, Unordered: f.Unordered, Msg: f.Payload,
			Sent: f.Sent, PR: PRPolicy(f.Policy)})
	})
}

// emit queues an event for the user, dropping it when the channel is full.
func (as *Association) emit(ev Event) {
	if as.closed && ev.Kind != EventDown && ev.Kind != EventShutdown {
		return
	}
	if as.events == nil {
		if n := len(as.early); ev.Kind == EventSenderDry && n > 0 && as.early[n-1].Kind == EventSenderDry {
			return // one wait for the first Events call says it
		}
		if len(as.early) < maxEvents {
			as.early = append(as.early, ev)
		} else {
			as.dropped++
		}
		return
	}
	select {
	case as.events <- ev:
	default:
		as.dropped++
	}
}

// Events returns the channel of the association's events. It holds at
// most 64; events that find it full are dropped (and counted in
// EventsDropped). It is closed after the association's last event
// (EventShutdown or EventDown). The channel is made by the first call:
// events before it wait for it, in order, except that EventSenderDry
// events in a row wait as one.
func (as *Association) Events() <-chan Event {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.events == nil {
		as.events = make(chan Event, maxEvents)
		for _, ev := range as.early {
			as.events <- ev
		}
		as.early = nil
		if as.closed {
			close(as.events)
		}
	}
	return as.events
}

// eventRoom returns how many more events fit before they are dropped;
// called with ep.mu held.
func (as *Association) eventRoom() int {
	if as.events == nil {
		return maxEvents - len(as.early)
	}
	return cap(as.events) - len(as.events)
}

// EventsDropped returns how many events found the channel full.
func (as *Association) EventsDropped() uint64 {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.dropped
}
