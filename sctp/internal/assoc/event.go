package assoc

import (
	"net/netip"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// EventKind names a notification for the user of an association (RFC 9260
// section 11.2.1 names them as ULP notifications).
type EventKind uint8

const (
	EventCommUp           EventKind = iota // COMMUNICATION UP: the association reached ESTABLISHED
	EventCommLost                          // COMMUNICATION LOST: ABORT received, or the peer became unreachable
	EventRestart                           // RESTART: the peer restarted (section 5.2.4 action A)
	EventShutdownComplete                  // SHUTDOWN COMPLETE: graceful close finished
	EventCantStart                         // CANNOT START ASSOCIATION: the handshake failed
	EventPeerError                         // an ERROR chunk arrived (cause code in Event.Cause)
	EventPathDown                          // the primary path exceeded Path.Max.Retrans
	EventPathUp                            // the primary path answered again
	EventReconf                            // a stream reconfiguration completed (Event.Reconf)
	// EventSendFailure (SEND FAILURE): messages were given up under their
	// PR-SCTP policy while packets were being built (Poll), freeing send
	// buffer space; Assoc.TakeFailed has them. Failures found while
	// processing input or timers come without it: the shell looks at
	// every association those reached.
	EventSendFailure
	// EventAuthNewKey (SCTP_AUTH_NEW_KEY): the peer's AUTH chunks now use
	// another shared key (Event.KeyID).
	EventAuthNewKey
	// EventAuthKeyFree (SCTP_AUTH_FREE_KEY): a shared key was deleted
	// and is no longer used (Event.KeyID).
	EventAuthKeyFree
	// EventPeerAddrAdded, EventPeerAddrRemoved and EventPeerAddrPrimary:
	// the peer added or deleted one of its addresses, or asked to be sent
	// to it (RFC 5061 ASCONF; Event.Addr).
	EventPeerAddrAdded
	EventPeerAddrRemoved
	EventPeerAddrPrimary
	// EventASCONFDone: the peer answered one of our address requests
	// (AddLocalAddr, RemoveLocalAddr, SetPeerPrimary): Event.Op names it,
	// Event.Cause is 0 on success or the error cause of the refusal,
	// Event.Addr the address.
	EventASCONFDone
	// EventPathMTU: the PLPMTU of the path to Event.Addr changed to
	// Event.MTU (RFC 8899 path MTU discovery, Config.PMTUDiscovery).
	EventPathMTU
	// EventPathPrimary (RFC 6458's SCTP_ADDR_MADE_PRIM): a peer address
	// of a multi-homed association became the primary (SetPrimary), or
	// the data came back to the primary after it answered again;
	// Event.Addr and Event.Path tell which and its state.
	EventPathPrimary
)

var eventNames = [...]string{"COMMUNICATION UP", "COMMUNICATION LOST", "RESTART", "SHUTDOWN COMPLETE",
	"CANNOT START ASSOCIATION", "PEER ERROR", "PATH DOWN", "PATH UP", "RECONFIGURATION", "SEND FAILURE",
	"AUTHENTICATION NEW KEY", "AUTHENTICATION FREE KEY", "ADDRESS ADDED", "ADDRESS REMOVED", "ADDRESS MADE PRIMARY", "ASCONF DONE", "PATH MTU CHANGE", "PATH MADE PRIMARY"}

// String returns the RFC name of the notification.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "event(?)"
}

// Reason says why an association went to CLOSED.
type Reason uint8

const (
	ReasonNone              Reason = iota // not closed, or no reason to tell
	ReasonShutdown                        // graceful shutdown completed
	ReasonPeerAbort                       // the peer sent ABORT
	ReasonUserAbort                       // the local user aborted
	ReasonInitTimeout                     // Max.Init.Retransmits exceeded
	ReasonPeerUnreachable                 // Association.Max.Retrans exceeded
	ReasonShutdownGuard                   // T5-shutdown-guard expired
	ReasonProtocolViolation               // the peer broke the protocol; we sent ABORT
	ReasonInvalidParameter                // INIT or INIT ACK with an invalid mandatory parameter
	ReasonRefused                         // the peer answered our INIT or COOKIE ECHO with ABORT
	ReasonPortUnreachable                 // the network said nothing listens at the peer's address (ICMP, RFC 9260 appendix C)
)

var reasonNames = [...]string{"none", "shutdown", "peer abort", "user abort", "init timeout",
	"peer unreachable", "shutdown guard timeout", "protocol violation", "invalid parameter", "connection refused", "connection refused: port unreachable"}

// String returns a short description of the reason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason(?)"
}

// Event is one notification, queued by the association for its user.
type Event struct {
	Kind   EventKind
	Assoc  *Assoc
	Reason Reason          // for EventCommLost, EventCantStart, EventShutdownComplete
	Cause  chunk.CauseCode // error cause code of an ERROR or ABORT, if any
	// Causes are the error causes of the peer's ABORT (EventCommLost,
	// EventCantStart with ReasonPeerAbort), as on the wire (RFC 9260
	// section 3.3.10): the Upper Layer Abort Reason among them. The
	// event owns them.
	Causes []byte
	Reconf *ReconfEvent // for EventReconf
	// For EventPathDown and EventPathUp of a multi-homed peer's path
	// (paths.go): its address and new state; zero for the primary path
	// of heartbeat.go.
	Addr netip.AddrPort
	Path api.PathState
	// KeyID is the shared key identifier of EventAuthNewKey and
	// EventAuthKeyFree.
	KeyID uint16
	// Op names the request an EventASCONFDone answers.
	Op uint64
	// MTU is the new PLPMTU of EventPathMTU (an SCTP packet size).
	MTU int
}

// Direction names the direction of the streams a reconfiguration touches,
// seen from this end. The values are those of sctp.StreamDirection.
type Direction uint8

// Stream directions.
const (
	DirOutgoing Direction = 1 << iota // our outbound streams
	DirIncoming                       // our inbound streams
	DirBoth     = DirOutgoing | DirIncoming
)

// Timeout reports whether the association was lost to a timeout: the
// handshake, the peer, or the shutdown stopped answering.
func (r Reason) Timeout() bool {
	return r == ReasonInitTimeout || r == ReasonPeerUnreachable || r == ReasonShutdownGuard
}

// Refused reports whether the association was refused: the peer aborted
// the handshake, or the network said nothing listens at its address (what
// a kernel's connect reports as ECONNREFUSED).
func (r Reason) Refused() bool { return r == ReasonRefused || r == ReasonPortUnreachable }

// ByPeer reports whether the peer ended the association with an ABORT.
func (r Reason) ByPeer() bool { return r == ReasonPeerAbort || r == ReasonRefused }
