package assoc

import "github.com/usctp/usctp/sctp/internal/api"

// Event is one item of the core's output besides packets, taken with
// Endpoint.NextEvent: an event of an association as its user sees it
// (api.Event), the answer to one of its requests, or room for the writers
// of one of its streams.
type Event struct {
	api.Event
	Assoc *Assoc
	// Op is the request the event answers (ResetStreams, AddStreams,
	// ResetAssoc, AddLocalAddr, RemoveLocalAddr, SetPeerPrimary): its
	// result is Err, nil or an api error (an *api.ASCONFError for a
	// refused address request). 0: none.
	Op uint64
	// Quiet events are not for the user: they answer Op only, or (Room)
	// name a stream. Their Kind is none of the user's.
	Quiet bool
	// Room (Quiet): the writers of Stream that the stream's limit refused
	// (ErrStreamFull) may queue again.
	Room bool
	// End comes with the association's last event, EventShutdown after a
	// graceful shutdown and EventDown otherwise: why it ended, its final
	// counters and the messages it did not send. EventDown's Err is left
	// to the shell, which makes the public error of End.
	End *End
}

// noEvent is the Kind of a Quiet event: none of the user's kinds.
const noEvent api.EventKind = 0xff

// End is what an association leaves when it closes.
type End struct {
	Reason Reason
	// Causes are the error causes of the peer's ABORT (reasonPeerAbort,
	// reasonRefused), every one in order, parsed. The event's Cause is
	// the first cause code: of the peer's ABORT, or of ours.
	Causes []api.ErrorCause
	// UserReason is the Upper Layer Abort Reason (RFC 9260 section
	// 3.3.10.12): the one given to Abort (reasonUserAbort), or the first
	// of the peer's ABORT.
	UserReason string
	// Stats are the association's counters as it closed.
	Stats api.Stats
	// Unsent are the messages left in the send queue, each as the
	// EventSendFailed event that reports it (a copy of the message, PR
	// api.PRNone); none after a graceful shutdown.
	Unsent []api.Event
	// Err is what the network or this host reported when that ended the
	// association (reasonUnreachable: the Notice's Err, an errno), nil
	// otherwise.
	Err error
	// PeerDone says that every message the peer sent had arrived: its
	// SHUTDOWN or SHUTDOWN ACK had come, which it sends only once all it
	// sent was acknowledged (RFC 9260 section 9.2). It holds after a
	// graceful shutdown, and also when an ABORT ended the shutdown
	// handshake (say, our answer to a late duplicate of the peer's
	// packet, reaching the peer before our lost SHUTDOWN COMPLETE): the
	// reader's side of the association ended in full either way.
	PeerDone bool
}

// Reason says why an association went to CLOSED.
type Reason uint8

const (
	reasonNone              Reason = iota // not closed, or no reason to tell
	reasonShutdown                        // graceful shutdown completed
	reasonPeerAbort                       // the peer sent ABORT
	reasonUserAbort                       // the local user aborted
	reasonInitTimeout                     // Max.Init.Retransmits exceeded
	reasonPeerUnreachable                 // Association.Max.Retrans exceeded
	reasonShutdownGuard                   // T5-shutdown-guard expired
	reasonProtocolViolation               // the peer broke the protocol; we sent ABORT
	reasonInvalidParameter                // INIT or INIT ACK with an invalid mandatory parameter
	reasonRefused                         // the peer answered our INIT or COOKIE ECHO with ABORT
	reasonPortUnreachable                 // the network said nothing listens at the peer's address (ICMP, RFC 9260 appendix C)
	reasonUnreachable                     // the INIT could not reach any of the peer's addresses (no route, ICMP unreachable; End.Err says which)
)

var reasonNames = [...]string{"none", "shutdown", "peer abort", "user abort", "init timeout",
	"peer unreachable", "shutdown guard timeout", "protocol violation", "invalid parameter", "connection refused", "connection refused: port unreachable",
	"destination unreachable"}

// String returns a short description of the reason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason(?)"
}

// Timeout reports whether the association was lost to a timeout: the
// handshake, the peer, or the shutdown stopped answering.
func (r Reason) Timeout() bool {
	return r == reasonInitTimeout || r == reasonPeerUnreachable || r == reasonShutdownGuard
}

// Refused reports whether the association was refused: the peer aborted
// the handshake, or the network said nothing listens at its address (what
// a kernel's connect reports as ECONNREFUSED).
func (r Reason) Refused() bool { return r == reasonRefused || r == reasonPortUnreachable }

// ByPeer reports whether the peer ended the association with an ABORT.
func (r Reason) ByPeer() bool { return r == reasonPeerAbort || r == reasonRefused }
