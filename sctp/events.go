package sctp

import "net/netip"

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
