package sctp

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Errors returned by the public API. They work with errors.Is; deadline
// errors are os.ErrDeadlineExceeded itself.
var (
	// ErrClosed is net.ErrClosed: the association or endpoint was closed
	// by this side (Close). Every read and write after an association's
	// Close fails with it, also those blocked when Close was called.
	ErrClosed = net.ErrClosed
	// ErrAborted matches every AbortError, whoever aborted.
	ErrAborted = errors.New("sctp: association aborted")
	// ErrPeerAborted matches an AbortError for an ABORT from the peer.
	ErrPeerAborted = errors.New("sctp: association aborted by the peer")
	// ErrLocalAbort matches an AbortError for an abort decided here: by
	// the user (Abort), a timeout, or a protocol violation by the peer.
	ErrLocalAbort = errors.New("sctp: association aborted locally")
	// ErrTimeout matches an AbortError for an association lost to a
	// timeout: the handshake or the peer stopped answering.
	ErrTimeout = errors.New("sctp: peer unreachable")
	// ErrConnRefused matches the AbortError of an association refused:
	// the peer answered the handshake with an ABORT (an SCTP port nobody
	// listens on, a full accept queue, ...), or the network said nothing
	// listens at its address (ICMP port or protocol unreachable, during
	// the handshake or after). Such an error also matches
	// syscall.ECONNREFUSED, as a kernel's connect reports it.
	ErrConnRefused = errors.New("sctp: connection refused")
	// ErrShutdown is returned by writes once a graceful shutdown began
	// (either side), unless Close started it (then ErrClosed). Reads
	// return io.EOF once such a shutdown completed and every message was
	// read.
	ErrShutdown = api.ErrShutdown
	// ErrWouldBlock is returned by a non-blocking WriteMsg when the send
	// buffer is full.
	ErrWouldBlock = api.ErrWouldBlock
	// ErrStreamID is returned for a stream id outside the negotiated
	// outbound range.
	ErrStreamID = api.ErrStreamID
	// ErrEmptyMessage is returned for a zero-length message (SCTP carries
	// no empty user messages).
	ErrEmptyMessage = api.ErrEmptyMessage
	// ErrAcceptQueueFull is the cause of the ABORT sent for an association
	// that arrived while the accept queue was full.
	ErrAcceptQueueFull = errors.New("sctp: accept queue full")
	// ErrMessageAborted is returned by Stream.Read when the message whose
	// first parts earlier reads returned will not complete: the peer gave
	// it up under a PR-SCTP policy (RecvInfo.Aborted in ReadMsg's terms).
	// It is not terminal: the next Read continues with the stream's next
	// message.
	ErrMessageAborted = errors.New("sctp: message abandoned by the peer before its end")
	// ErrPortInUse is wrapped by the error of Listen, NewEndpoint or Dial
	// when the SCTP port is served already on the endpoint's socket, by
	// another endpoint of the process or, on a UDP address and port that
	// processes share (Config.ExclusiveUDPPort), of another process. It
	// matches syscall.EADDRINUSE, as does the error of a UDP address and
	// port that another process holds and this one cannot share.
	ErrPortInUse = netio.ErrPortInUse
	// ErrNeedRaw is wrapped, with os.ErrPermission, by the error of
	// Listen, NewEndpoint or Dial with the IP transport when the process
	// lacks CAP_NET_RAW.
	ErrNeedRaw = netio.ErrNeedRaw
)

// Errors of stream reconfiguration (RFC 6525), for errors.Is.
var (
	// ErrReconfigUnsupported: the peer did not negotiate RE-CONFIG, or
	// Config.Extensions.DisableStreamReconfig is set.
	ErrReconfigUnsupported = api.ErrReconfigUnsupported
	// ErrReconfigDenied: the peer answered "Denied".
	ErrReconfigDenied = api.ErrReconfigDenied
	// ErrReconfigFailed: the peer answered with an error result.
	ErrReconfigFailed = api.ErrReconfigFailed
	// ErrReconfigBusy: too many reconfiguration requests are waiting.
	ErrReconfigBusy = api.ErrReconfigBusy
	// ErrAssocResetTooSoon: an SSN/TSN Reset Request was sent less than
	// 30 seconds ago, or one is already waiting (RFC 6525 section 5.1.4).
	ErrAssocResetTooSoon = api.ErrAssocResetTooSoon
)

// AbortError is the terminal error of an association that ended without
// a graceful shutdown. errors.Is matches ErrAborted and, as the case may
// be, ErrPeerAborted or ErrLocalAbort, ErrTimeout for timeouts, and the
// errno of a handshake that reached none of the peer's addresses (Unwrap).
type AbortError struct {
	// ByPeer is true when the peer sent the ABORT.
	ByPeer bool
	// Reason is the short cause: "peer abort", "user abort", "init
	// timeout", "peer unreachable", "protocol violation", ...; for a
	// handshake that reached none of the peer's addresses, the errno's
	// text ("network is unreachable", "no route to host").
	Reason string
	// Cause is the first error cause code of the ABORT (RFC 9260 section
	// 3.3.10), zero when none.
	Cause uint16
	// UserReason is the Upper Layer Abort Reason (RFC 9260 section
	// 3.3.10.12): the one given to Abort when this side aborted, the
	// peer's when the peer's ABORT carried one.
	UserReason string
	// Causes are the error causes of the peer's ABORT, every one, in
	// order (nil when this side aborted).
	Causes []ErrorCause

	timeout bool  // lost to a timeout: errors.Is matches ErrTimeout
	refused bool  // refused: errors.Is matches ErrConnRefused and ECONNREFUSED
	cause   error // what the network or the host reported (an errno): Unwrap's
	bare    bool  // the cause of an operation's error (opCause): no "sctp: "
}

// abortError returns the error of an association that ended with ev, its
// EventDown.
func abortError(ev *assoc.Event) *AbortError {
	end := ev.End
	r := end.Reason
	e := &AbortError{ByPeer: r.ByPeer(), Reason: r.String(), Cause: ev.Cause, UserReason: end.UserReason,
		Causes: end.Causes, timeout: r.Timeout(), refused: r.Refused(), cause: end.Err}
	if end.Err != nil {
		e.Reason = end.Err.Error() // "network is unreachable", ...
	}
	return e
}

// ErrorCause is one error cause of an ABORT or ERROR chunk (RFC 9260
// section 3.3.10): its code and its value as sent.
type ErrorCause = api.ErrorCause

// Error returns a one-line description.
func (e *AbortError) Error() string {
	who := "locally"
	if e.ByPeer {
		who = "by the peer"
	}
	s := fmt.Sprintf("association aborted %s (%s", who, e.Reason)
	if !e.bare {
		s = "sctp: " + s
	}
	if e.Cause != 0 {
		s += fmt.Sprintf(", cause %d", e.Cause)
	}
	if e.UserReason != "" {
		s += ": " + e.UserReason
	}
	return s + ")"
}

// Is matches ErrAborted, ErrPeerAborted or ErrLocalAbort, ErrTimeout, and
// ErrConnRefused and syscall.ECONNREFUSED.
func (e *AbortError) Is(target error) bool {
	switch target {
	case ErrConnRefused, syscall.ECONNREFUSED:
		return e.refused
	case ErrAborted:
		return true
	case ErrPeerAborted:
		return e.ByPeer
	case ErrLocalAbort:
		return !e.ByPeer
	case ErrTimeout:
		return e.timeout
	}
	return false
}

// Unwrap returns what the network or this host reported when that ended
// the association, nil otherwise: the errno (syscall.ENETUNREACH,
// EHOSTUNREACH, EACCES) of a handshake that could not reach any of the
// peer's addresses, which errors.Is and errors.As find through it.
func (e *AbortError) Unwrap() error { return e.cause }

// Timeout reports whether the association was lost to a timeout (net.Error).
func (e *AbortError) Timeout() bool { return e.Is(ErrTimeout) }

// Temporary reports false (net.Error).
func (e *AbortError) Temporary() bool { return false }

// publicErr returns the error of a core call or answer as the API shows
// it: the core's errors are the public ones (package api's), except its
// assoc.ErrClosed, which becomes ErrClosed (net.ErrClosed: the core,
// which imports no net, cannot hold it). Other errors pass as they are.
func publicErr(err error) error {
	if err == assoc.ErrClosed {
		return ErrClosed
	}
	return err
}

// opErr returns the error of operation op ("dial", "listen") on addr (nil
// when the address itself is at fault) for err, nil for nil: a
// *net.OpError with Net "sctp" as package net's, whose Err is err as it
// is, or, for an error of this package, one that prints without its
// "sctp: " (Net says it already).
func opErr(op string, addr net.Addr, err error) error {
	if err == nil {
		return nil
	}
	return &net.OpError{Op: op, Net: "sctp", Addr: addr, Err: opCause(err)}
}

// opCause returns err as the Err of a *net.OpError: an *AbortError copied
// without its "sctp: " (still one, for type assertions), another error
// whose text starts "sctp: " wrapped in a bareError, any other error as it
// is.
func opCause(err error) error {
	if ae, ok := err.(*AbortError); ok {
		c := *ae
		c.bare = true
		return &c
	}
	if strings.HasPrefix(err.Error(), "sctp: ") {
		return bareError{err}
	}
	return err
}

// bareError is an error of this package in a *net.OpError: its text
// without "sctp: ". It unwraps to the error, and answers Timeout and
// Temporary as the error does (net.OpError asks its Err directly).
type bareError struct{ err error }

// Error returns the error's text without "sctp: ".
func (e bareError) Error() string { return strings.TrimPrefix(e.err.Error(), "sctp: ") }

// Unwrap returns the error.
func (e bareError) Unwrap() error { return e.err }

// Timeout reports whether the error is a timeout.
func (e bareError) Timeout() bool {
	t, ok := e.err.(interface{ Timeout() bool })
	return ok && t.Timeout()
}

// Temporary reports whether the error is temporary.
func (e bareError) Temporary() bool {
	t, ok := e.err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}
