package api

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
