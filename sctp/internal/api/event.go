package api

import (
	"fmt"
	"strings"
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
	EventSenderDry                               // everything written was acknowledged (opt-in: Config.SenderDryEvents)
	EventStreamReset                             // streams were reset, or a reset failed (RFC 6525; Event.Direction, Streams, Err)
	EventPeerError                               // the peer sent an ERROR chunk (Event.Cause)
	EventStreamsAdded                            // streams were added, or an addition failed (RFC 6525; Event.Direction, Added, Err)
	EventAssocReset                              // the TSNs and every stream's numbering were reset, or a reset failed (RFC 6525 SSN/TSN Reset; Event.NextTSN, PeerNextTSN, Err)
	EventAuthNewKey                              // the peer's AUTH chunks use another shared key (RFC 6458 SCTP_AUTH_NEW_KEY; Event.KeyID)
	EventAuthKeyFree                             // a deleted shared key is no longer used (SCTP_AUTH_FREE_KEY; Event.KeyID)
	EventPathMTU                                 // a path's PLPMTU changed (path MTU discovery; Event.Addr, MTU)
	EventBufferedLow                             // a stream's buffered bytes fell to its low-water mark (Stream.SetBufferedLow; Event.Stream)
)

var eventKindNames = [...]string{"up", "down", "restart", "shutdown", "peer address change",
	"send failed", "partial delivery aborted", "sender dry", "stream reset", "peer error", "streams added", "association reset",
	"auth new key", "auth key free", "path MTU", "buffered low"}

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

// Event is a notification about an association. Its Kind says which
// fields apply, as each field's comment lists; the others are zero.
// String prints the kind and the fields that apply only.
//
// EventStreamReset and EventStreamsAdded come for this end's requests
// (Association.ResetStreams, AddStreams) and for the peer's alike: a
// reset of the peer's outgoing streams is DirIncoming here. So does
// EventAssocReset (Association.ResetAssociation, or the peer's SSN/TSN
// Reset Request), with Direction DirBoth.
type Event struct {
	Kind      EventKind
	Err       error     // EventDown: why (an *AbortError); EventStreamReset, EventStreamsAdded, EventAssocReset: nil on success, else ErrReconfigDenied or ErrReconfigFailed
	Addr      Addr      // EventPeerAddrChange, EventPathMTU: the peer address, as in PathInfo
	Reachable bool      // EventPeerAddrChange: the address answers again
	PathState PathState // EventPeerAddrChange: the address's new state (multi-homing; PathActive or PathInactive otherwise)
	Stream    uint16    // EventSendFailed, EventPartialDeliveryAborted, EventBufferedLow: the stream
	PPID      uint32    // EventSendFailed: the message's PPID
	Msg       []byte    // EventSendFailed: a copy of the unsent message
	// MaybeDelivered (EventSendFailed): some of the message was
	// transmitted, so the peer may have received it, whole or (read in
	// parts) in part; the failure says no acknowledgement came, not that
	// the peer lacks it (SCTP_DATA_SENT). False: none of it left this end
	// (SCTP_DATA_UNSENT).
	MaybeDelivered bool
	Unordered      bool            // EventSendFailed: it was sent unordered
	PR             PRPolicy        // EventSendFailed: the policy that gave it up (PRNone: the association ended)
	Cause          uint16          // EventPeerError: the error cause code; EventDown: the first cause of the ABORT (Err has them all)
	Direction      StreamDirection // EventStreamReset, EventStreamsAdded: which streams
	Streams        []uint16        // EventStreamReset: the streams reset; empty: all of them
	Added          uint16          // EventStreamsAdded: how many streams were added
	NextTSN        uint32          // EventAssocReset: the TSN of our next DATA chunk
	PeerNextTSN    uint32          // EventAssocReset: the TSN expected next from the peer
	MadePrimary    bool            // EventPeerAddrChange: the address became the primary (SetPrimary, or the data came back to it), as SCTP_ADDR_MADE_PRIM
	MTU            int             // EventPathMTU: the path's new PLPMTU, the largest SCTP packet (IP and UDP headers not included)
	KeyID          uint16          // EventAuthNewKey, EventAuthKeyFree: the shared key identifier
	Change         AddrChange      // EventPeerAddrChange: what changed (reachability, or the peer's ASCONF)
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

// String returns the kind of the event and the fields that apply to it,
// for example "peer address change 10.0.0.2:5000/udp:9899 (reachability,
// active)" or "send failed (stream 1, 100 bytes, maybe delivered, policy
// ttl)".
func (ev Event) String() string {
	var b strings.Builder
	b.WriteString(ev.Kind.String())
	switch ev.Kind {
	case EventDown:
		if ev.Err != nil {
			fmt.Fprintf(&b, ": %v", ev.Err)
		}
	case EventPeerAddrChange:
		fmt.Fprintf(&b, " %v (%v", ev.Addr, ev.Change)
		switch ev.Change {
		case AddrReachability, AddrAdded:
			fmt.Fprintf(&b, ", %v", ev.PathState)
		}
		if ev.MadePrimary && ev.Change != AddrMadePrimary {
			b.WriteString(", made primary")
		}
		b.WriteString(")")
	case EventSendFailed:
		fmt.Fprintf(&b, " (stream %d, PPID %d, %d bytes", ev.Stream, ev.PPID, len(ev.Msg))
		if ev.Unordered {
			b.WriteString(", unordered")
		}
		if ev.MaybeDelivered {
			b.WriteString(", maybe delivered")
		} else {
			b.WriteString(", unsent")
		}
		fmt.Fprintf(&b, ", policy %v)", ev.PR)
	case EventPartialDeliveryAborted, EventBufferedLow:
		fmt.Fprintf(&b, " (stream %d)", ev.Stream)
	case EventStreamReset, EventStreamsAdded, EventAssocReset:
		fmt.Fprintf(&b, " (%v", ev.Direction)
		switch ev.Kind {
		case EventStreamReset:
			if len(ev.Streams) == 0 {
				b.WriteString(", all streams")
			} else {
				fmt.Fprintf(&b, ", streams %v", ev.Streams)
			}
		case EventStreamsAdded:
			fmt.Fprintf(&b, ", %d added", ev.Added)
		case EventAssocReset:
			fmt.Fprintf(&b, ", next TSN %d, peer's next TSN %d", ev.NextTSN, ev.PeerNextTSN)
		}
		if ev.Err != nil {
			fmt.Fprintf(&b, ": %v", ev.Err)
		}
		b.WriteString(")")
	case EventPeerError:
		fmt.Fprintf(&b, " (cause %d)", ev.Cause)
	case EventAuthNewKey, EventAuthKeyFree:
		fmt.Fprintf(&b, " (key %d)", ev.KeyID)
	case EventPathMTU:
		fmt.Fprintf(&b, " %v (MTU %d)", ev.Addr, ev.MTU)
	}
	return b.String()
}
