package sctp

// eventKind names a notification for the user of an association (RFC 9260
// section 11.2.1 names them as ULP notifications).
type eventKind uint8

const (
	evCommUp           eventKind = iota // COMMUNICATION UP: the association reached ESTABLISHED
	evCommLost                          // COMMUNICATION LOST: ABORT received, or the peer became unreachable
	evRestart                           // RESTART: the peer restarted (section 5.2.4 action A)
	evShutdownComplete                  // SHUTDOWN COMPLETE: graceful close finished
	evCantStart                         // CANNOT START ASSOCIATION: the handshake failed
	evPeerError                         // an ERROR chunk arrived (cause code in event.cause)
	evPathDown                          // the primary path exceeded Path.Max.Retrans
	evPathUp                            // the primary path answered again
	evReconf                            // a stream reconfiguration completed (event.rc)
)

var eventNames = [...]string{"COMMUNICATION UP", "COMMUNICATION LOST", "RESTART", "SHUTDOWN COMPLETE",
	"CANNOT START ASSOCIATION", "PEER ERROR", "PATH DOWN", "PATH UP", "RECONFIGURATION"}

// String returns the RFC name of the notification.
func (k eventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "event(?)"
}

// closeReason says why an association went to CLOSED.
type closeReason uint8

const (
	reasonNone              closeReason = iota
	reasonShutdown                      // graceful shutdown completed
	reasonPeerAbort                     // the peer sent ABORT
	reasonUserAbort                     // the local user aborted
	reasonInitTimeout                   // Max.Init.Retransmits exceeded
	reasonPeerUnreachable               // Association.Max.Retrans exceeded
	reasonShutdownGuard                 // T5-shutdown-guard expired
	reasonProtocolViolation             // the peer broke the protocol; we sent ABORT
	reasonInvalidParameter              // INIT or INIT ACK with an invalid mandatory parameter
)

var reasonNames = [...]string{"none", "shutdown", "peer abort", "user abort", "init timeout",
	"peer unreachable", "shutdown guard timeout", "protocol violation", "invalid parameter"}

// String returns a short description of the reason.
func (r closeReason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason(?)"
}

// event is one notification, queued by the association for its user.
type event struct {
	kind   eventKind
	assoc  *assoc
	reason closeReason  // for evCommLost, evCantStart, evShutdownComplete
	cause  uint16       // error cause code of an ERROR or ABORT, if any
	rc     *reconfEvent // for evReconf
}
