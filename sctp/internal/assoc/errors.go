package assoc

import (
	"errors"
	"fmt"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// The core's own errors. The errors the user sees (ErrShutdown,
// ErrStreamID, api.ErrReconfigDenied, ...) are package api's: the core returns
// them as they are. ErrClosed is the core's own: package sctp's ErrClosed
// is net.ErrClosed, which a core that imports no net cannot hold.
var (
	// ErrClosed: the association is closed.
	ErrClosed = errors.New("sctp: association closed")
	// errNotReady: the association has no transfer engine yet (before
	// the INIT ACK or COOKIE ECHO).
	errNotReady = errors.New("sctp: association not established yet")
	// ErrExists: Connect found an association with the same addresses.
	ErrExists = errors.New("sctp: association already exists")
	// errInvalidPort: Connect was given SCTP port 0.
	errInvalidPort = errors.New("sctp: invalid port 0")
	// errTooMany: Config.Limits.MaxAssociations is reached.
	errTooMany = errors.New("sctp: too many associations")
	// ErrStreamFull: the stream's share of the send buffer is full (it
	// matches api.ErrWouldBlock).
	ErrStreamFull = transfer.ErrStreamFull
)

// errPeerRestarted fails the reconfiguration requests of an association
// whose peer restarted.
var errPeerRestarted = fmt.Errorf("%w: the peer restarted", api.ErrReconfigFailed)
