package api

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/usctp/usctp/sctp/chunk"
)

// Errors of the association calls. The core returns them, package sctp
// declares them as its own (the same values), so errors.Is matches across
// the layers, also on an error that wraps one to add detail.
var (
	// ErrShutdown is returned by writes once a graceful shutdown began
	// (either side).
	ErrShutdown = errors.New("sctp: association is shutting down")
	// ErrWouldBlock is returned by a non-blocking write when the send
	// buffer is full.
	ErrWouldBlock = errors.New("sctp: send buffer full")
	// ErrStreamID is returned for a stream id outside the negotiated
	// outbound range.
	ErrStreamID = errors.New("sctp: invalid stream id")
	// ErrEmptyMessage is returned for a zero-length message (SCTP carries
	// no empty user messages).
	ErrEmptyMessage = errors.New("sctp: empty message")
)

// Errors of stream reconfiguration (RFC 6525).
var (
	// ErrReconfigUnsupported: the peer did not negotiate RE-CONFIG, or
	// Config.Extensions.DisableStreamReconfig is set.
	ErrReconfigUnsupported = errors.New("sctp: stream reconfiguration (RFC 6525) not negotiated")
	// ErrReconfigDenied: the peer answered "Denied".
	ErrReconfigDenied = errors.New("sctp: stream reconfiguration denied by peer")
	// ErrReconfigFailed: the peer answered with an error result.
	ErrReconfigFailed = errors.New("sctp: stream reconfiguration failed")
	// ErrReconfigBusy: too many reconfiguration requests are waiting.
	ErrReconfigBusy = errors.New("sctp: too many stream reconfiguration requests waiting")
	// ErrAssocResetTooSoon: an SSN/TSN Reset Request was sent less than
	// 30 seconds ago, or one is already waiting (RFC 6525 section 5.1.4).
	ErrAssocResetTooSoon = errors.New("sctp: an association reset was requested less than 30 seconds ago")
)

// Errors of the address requests (RFC 5061 ASCONF).
var (
	// ErrASCONFNotNegotiated: the association does not do ASCONF (both
	// ends need Config.Extensions.DynamicAddrs or Linux's addip_enable, and AUTH).
	ErrASCONFNotNegotiated = errors.New("sctp: the peer does not accept address changes (ASCONF with AUTH)")
	// ErrNotLocalAddr: an address request for an address this endpoint
	// does not receive on (not an address of the host, or the endpoint is
	// bound to another one).
	ErrNotLocalAddr = errors.New("sctp: not an address of this endpoint")
	// ErrASCONFBusy: 16 requests already wait for the peer's answer.
	ErrASCONFBusy = errors.New("sctp: too many address requests waiting")
)

// ASCONFError is the peer's refusal of an address request: the RFC 5061
// error cause it answered with (0xA0 "Request to Delete Last Remaining IP
// Address", 0xA2 "Request to Delete Source IP Address", 0xA1 resource
// shortage, 0xA4 no authorization, ...).
type ASCONFError struct {
	Addr  netip.Addr
	Cause uint16
}

// Error names the address and the cause.
func (e *ASCONFError) Error() string {
	return fmt.Sprintf("sctp: the peer refused the request for %v: %v", e.Addr, chunk.CauseCode(e.Cause))
}

// ErrorCause is one error cause of an ABORT or ERROR chunk (RFC 9260
// section 3.3.10): its code and its value as sent.
type ErrorCause struct {
	Code  uint16
	Value []byte
}

// String returns the cause's RFC name and code, and the value as text
// for the causes that carry text (Upper Layer Abort Reason, Protocol
// Violation).
func (c ErrorCause) String() string {
	s := fmt.Sprintf("%v (%d)", chunk.CauseCode(c.Code), c.Code)
	switch chunk.CauseCode(c.Code) {
	case chunk.CauseUserAbort, chunk.CauseProtocolViolation:
		if len(c.Value) > 0 {
			s += fmt.Sprintf(": %q", c.Value)
		}
	}
	return s
}
