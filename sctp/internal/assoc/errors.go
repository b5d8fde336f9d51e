package assoc

import (
	"errors"
	"fmt"

	"github.com/usctp/usctp/sctp/internal/transfer"
)

// The core's errors. They are the core's own sentinels: package sctp
// declares the public errors and maps these to them (sctp/errors.go), so
// the public API documents its errors in one place and the core knows
// nothing of it. errors.Is works on what the core returns, also on the
// wrapped errors that add detail.
var (
	// ErrClosed: the association is closed.
	ErrClosed = errors.New("sctp: association closed")
	// ErrShuttingDown: a graceful shutdown began; no new data.
	ErrShuttingDown = errors.New("sctp: association is shutting down")
	// ErrNotReady: the association has no transfer engine yet (before
	// the INIT ACK or COOKIE ECHO).
	ErrNotReady = errors.New("sctp: association not established yet")
	// ErrExists: Connect found an association with the same addresses.
	ErrExists = errors.New("sctp: association already exists")
	// ErrInvalidPort: Connect was given SCTP port 0.
	ErrInvalidPort = errors.New("sctp: invalid port 0")
	// ErrTooMany: Config.MaxAssociations is reached.
	ErrTooMany = errors.New("sctp: too many associations")

	// The transfer engine's errors of Send, as the core returns them.
	ErrStreamID     = transfer.ErrStreamID     // a stream id outside the negotiated range
	ErrEmptyMessage = transfer.ErrEmptyMessage // a message of no bytes
	ErrWouldBlock   = transfer.ErrWouldBlock   // the send buffer is full
	ErrStreamFull   = transfer.ErrStreamFull   // the stream's share of it is full (matches ErrWouldBlock)

	// ErrReconfigUnsupported: the peer did not negotiate RE-CONFIG, or
	// Config.DisableStreamReconfig is set.
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

// errPeerRestarted fails the reconfiguration requests of an association
// whose peer restarted.
var errPeerRestarted = fmt.Errorf("%w: the peer restarted", ErrReconfigFailed)
