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
	EventAuthNewKey                              // the peer's AUTH chunks use another shared key (RFC 6458 SCTP_AUTH_NEW_KEY; Event.KeyID)
	EventAuthKeyFree                             // a deleted shared key is no longer used (SCTP_AUTH_FREE_KEY; Event.KeyID)
	EventPathMTU                                 // a path's PLPMTU changed (path MTU discovery; Event.Addr, MTU)
)

var eventKindNames = [...]string{"up", "down", "restart", "shutdown", "peer address change",
	"send failed", "partial delivery aborted", "sender dry", "stream reset", "peer error", "streams added", "association reset",
	"auth new key", "auth key free", "path MTU"}

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
	Cause       uint16          // EventPeerError: the error cause code; EventDown: the first cause of the ABORT (Err has them all)
	Direction   StreamDirection // EventStreamReset, EventStreamsAdded: which streams
	Streams     []uint16        // EventStreamReset: the streams reset; empty: all of them
	Added       uint16          // EventStreamsAdded: how many streams were added
	NextTSN     uint32          // EventAssocReset: the TSN of our next DATA chunk
	PeerNextTSN uint32          // EventAssocReset: the TSN expected next from the peer
	MadePrimary bool            // EventPeerAddrChange: the address became the primary (SetPrimary, or the data came back to it), as SCTP_ADDR_MADE_PRIM
	MTU         int             // EventPathMTU: the path's new PLPMTU, the largest SCTP packet (IP and UDP headers not included)
	KeyID       uint16          // EventAuthNewKey, EventAuthKeyFree: the shared key identifier
	Change      AddrChange      // EventPeerAddrChange: what changed (reachability, or the peer's ASCONF)
}

// AddrChange says what an EventPeerAddrChange reports.
type AddrChange uint8

// Address changes.
const (
	AddrReachability AddrChange = iota // the address's reachability changed (Reachable, PathState)
	AddrAdded                          // the peer added the address (RFC 5061 ASCONF)
	AddrRemoved                        // the peer deleted the address
	AddrMadePrimary                    // the address became the primary: the peer asked for it (Set Primary Address), or SetPrimary, or the data came back to it (Event.MadePrimary)
)

var addrChangeNames = [...]string{"reachability", "added", "removed", "made primary"}

// String returns a short name of the change.
func (c AddrChange) String() string {
	if int(c) < len(addrChangeNames) {
		return addrChangeNames[c]
	}
	return "change(?)"
}

// afterInput hands the core's events to the associations and wakes the
// goroutines waiting on any of them. Called with e.mu held.
func (e *Endpoint) afterInput() {
	e.deliverEvents()
	for _, as := range e.assocs {
		as.progress()
	}
}

// afterCall is afterInput after a user call on as alone: it wakes as's
// goroutines, not every association's (closing each of 10,000
// associations would otherwise cost 10,000 visits). Called with e.mu held.
func (e *Endpoint) afterCall(as *Association) {
	e.touch(as.a)
	e.afterPackets()
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
	case assoc.EventSendFailure:
		as.progress()
	case assoc.EventPeerError:
		as.emit(Event{Kind: EventPeerError, Cause: uint16(ev.Cause)})
	case assoc.EventReconf:
		as.reconfDone(ev.Reconf)
	case assoc.EventAuthNewKey:
		as.emit(Event{Kind: EventAuthNewKey, KeyID: ev.KeyID})
	case assoc.EventAuthKeyFree:
		as.emit(Event{Kind: EventAuthKeyFree, KeyID: ev.KeyID})
	case assoc.EventASCONFDone:
		as.asconfDone(ev)
	case assoc.EventPeerAddrAdded:
		as.emit(Event{Kind: EventPeerAddrChange, Addr: ev.Addr, Change: AddrAdded, PathState: PathUnconfirmed})
	case assoc.EventPeerAddrRemoved:
		as.emit(Event{Kind: EventPeerAddrChange, Addr: ev.Addr, Change: AddrRemoved, PathState: PathInactive})
	case assoc.EventPeerAddrPrimary:
		as.emit(Event{Kind: EventPeerAddrChange, Addr: ev.Addr, Change: AddrMadePrimary, Reachable: true})
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
	case assoc.EventPathMTU:
		as.emit(Event{Kind: EventPathMTU, Addr: ev.Addr, MTU: ev.MTU})
	case assoc.EventPathPrimary:
		st := PathState(ev.Path)
		as.emit(Event{Kind: EventPeerAddrChange, Addr: ev.Addr, Reachable: st == PathActive, PathState: st, MadePrimary: true, Change: AddrMadePrimary})
	case assoc.EventShutdownComplete:
		as.terminate(nil)
	case assoc.EventCommLost, assoc.EventCantStart:
		ae := &AbortError{ByPeer: ev.Reason.ByPeer(), Reason: ev.Reason.String(), Cause: uint16(ev.Cause),
			timeout: ev.Reason.Timeout(), refused: ev.Reason.Refused()}
		if ev.Reason == assoc.ReasonUserAbort {
			ae.UserReason = as.abortReason
		}
		if len(ev.Causes) > 0 {
			ae.Causes, ae.UserReason = peerAbortCauses(ev.Causes)
		}
		as.terminate(ae)
	}
}

// accepted wraps a new passive association and queues it for Accept, or
// aborts it when nobody can take it. The core bounds the associations not
// accepted yet by Config.Backlog (it drops a COOKIE ECHO beyond it); the
// queue also holds those that ended before Accept, and drops them to
// make room.
func (e *Endpoint) accepted(a *assoc.Assoc) *Association {
	if len(e.acceptq) >= e.cfg.Backlog {
		q := e.acceptq[:0]
		for _, as := range e.acceptq {
			if !as.closed {
				q = append(q, as)
			}
		}
		clear(e.acceptq[len(q):])
		e.acceptq = q
	}
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
// report its unsent messages, every one (before EventDown).
func (e *Endpoint) onDestroy(a *assoc.Assoc, r assoc.Reason) {
	as := e.assocs[a]
	if as == nil {
		return
	}
	if as.muxPort != 0 {
		e.mux.release(as.muxPort)
		as.muxPort = 0
	}
	final := a.Stats()
	as.final = &final
	as.takeFailed()
	if r != assoc.ReasonShutdown {
		a.DrainUnsent(func(m assoc.Unsent) {
			if as.events == nil && len(as.early) >= as.eventCap() {
				as.dropped++ // nobody asked for events yet: no copy to make
				return
			}
			as.emit(Event{Kind: EventSendFailed, Stream: m.SID, PPID: m.PPID, Unordered: m.Unordered,
				Msg: append([]byte(nil), m.Payload...), Sent: m.Sent})
		})
	}
}

// DefaultEventQueue is Config.EventQueue's default: the capacity of an
// association's Events channel.
const DefaultEventQueue = 64

// maxPendingOther bounds the events other than send failures and the
// terminal ones waiting behind a full Events channel; more are dropped
// and counted. Send failures are bounded by the send buffer (failHeld),
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

// takeFailed reports the messages the engine gave up under their PR-SCTP
// policy as EventSendFailed events, and whether there were any.
func (as *Association) takeFailed() bool {
	any := false
	as.a.TakeFailed(func(f assoc.Failed) {
		any = true
		as.emit(Event{Kind: EventSendFailed, Stream: f.SID, PPID: f.PPID, Unordered: f.Unordered, Msg: f.Payload,
			Sent: f.Sent, PR: PRPolicy(f.Policy)})
	})
	return any
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
// send buffer space (failHeld) until they are in the channel, so that a
// writer whose messages are given up faster than the events are read
// waits for the reader instead of growing the queue; other events are
// few (at most maxPendingOther wait), terminal ones are never dropped.
func (as *Association) emit(ev Event) {
	if as.closed && !terminal(&ev) {
		return
	}
	if as.events == nil {
		if n := len(as.early); ev.Kind == EventSenderDry && n > 0 && as.early[n-1].Kind == EventSenderDry {
			return // one wait for the first Events call says it
		}
		if len(as.early) < as.eventCap() || terminal(&ev) {
			as.early = append(as.early, ev)
		} else {
			as.dropped++
		}
		return
	}
	if as.evClosed {
		as.dropped++
		return
	}
	if as.pendHead == len(as.pending) && !as.pumping {
		select {
		case as.events <- ev:
			return
		default:
		}
	}
	as.queue(ev)
}

// queue puts ev in pending and starts the pump; called with ep.mu held.
func (as *Association) queue(ev Event) {
	switch {
	case ev.Kind == EventSendFailed && !as.closed:
		as.failHeld += len(ev.Msg)
	case !terminal(&ev) && ev.Kind != EventSendFailed:
		if as.pendOther >= maxPendingOther {
			as.dropped++
			return
		}
		as.pendOther++
	}
	as.pending = append(as.pending, ev)
	if !as.pumping {
		as.pumping = true
		go as.pump()
	}
}

// pump feeds the pending events into the Events channel, blocking on it
// at the reader's pace, and closes the channel after the last event of an
// association that ended. It runs only while events wait.
func (as *Association) pump() {
	e := as.ep
	var linger *time.Timer
	e.mu.Lock()
	for {
		if as.pendHead == len(as.pending) {
			as.pending, as.pendHead = as.pending[:0], 0
			as.pumping = false
			if as.closed && !as.evClosed {
				as.evClosed = true
				close(as.events)
			}
			e.mu.Unlock()
			if linger != nil {
				linger.Stop()
			}
			return
		}
		ev := as.pending[as.pendHead]
		as.pending[as.pendHead] = Event{}
		as.pendHead++
		switch {
		case ev.Kind == EventSendFailed && as.failHeld > 0:
			as.failHeld = max(as.failHeld-len(ev.Msg), 0)
			if as.wwait.waiting() && as.fits() {
				as.wantRoom = 0
				as.wwait.wake()
			}
		case !terminal(&ev) && ev.Kind != EventSendFailed:
			as.pendOther--
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
			as.dropped += uint64(1 + len(as.pending) - as.pendHead)
			clear(as.pending[as.pendHead:])
			as.pendHead = len(as.pending)
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
		early := as.early
		as.early = nil
		for _, ev := range early {
			as.emitAgain(ev)
		}
		if as.closed && !as.pumping && !as.evClosed {
			as.evClosed = true
			close(as.events)
		}
	}
	return as.events
}

// emitAgain is emit for an event that waited in early, also after the
// association ended.
func (as *Association) emitAgain(ev Event) {
	if !as.pumping {
		select {
		case as.events <- ev:
			return
		default:
		}
	}
	as.queue(ev)
}

// closeEvents closes the Events channel at the end of the association,
// unless the pump still feeds it (then the pump closes it); called with
// ep.mu held.
func (as *Association) closeEvents() {
	if as.events != nil && !as.pumping && !as.evClosed {
		as.evClosed = true
		close(as.events)
	}
}

// EventsDropped returns how many events were dropped: they came before
// the first Events call and found Config.EventQueue others waiting, or the
// reader stopped taking them (see Events).
func (as *Association) EventsDropped() uint64 {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.dropped
}
