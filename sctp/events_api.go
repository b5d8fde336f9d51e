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
	EventStreamReset                             // streams were reset (RFC 6525)
	EventPeerError                               // the peer sent an ERROR chunk (Event.Cause)
)

var eventKindNames = [...]string{"up", "down", "restart", "shutdown", "peer address change",
	"send failed", "partial delivery aborted", "sender dry", "stream reset", "peer error"}

// String returns a short name of the event kind.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "event(?)"
}

// Event is a notification about an association.
type Event struct {
	Kind      EventKind
	Err       error          // EventDown: why (an *AbortError)
	Addr      netip.AddrPort // EventPeerAddrChange: the peer address (IP, UDP port)
	Reachable bool           // EventPeerAddrChange: the address answers again
	Stream    uint16         // EventSendFailed, EventPartialDeliveryAborted: the stream
	PPID      uint32         // EventSendFailed: the message's PPID
	Msg       []byte         // EventSendFailed: a copy of the unsent message
	Sent      bool           // EventSendFailed: part of it had been transmitted
	Unordered bool           // EventSendFailed: it was sent unordered
	Cause     uint16         // EventPeerError: the error cause code
}
