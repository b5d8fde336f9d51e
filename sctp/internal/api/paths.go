package api

import (
	"errors"
	"time"
)

// PathState is the state of one of the peer's addresses (multi-homing,
// Config.Paths.Multihoming).
type PathState uint8

// Path states.
const (
	// PathUnconfirmed: not yet verified by a HEARTBEAT (RFC 9260 section
	// 5.4); no data goes there.
	PathUnconfirmed PathState = iota
	// PathActive: confirmed and answering.
	PathActive
	// PathPotentiallyFailed: errors beyond Config.Paths.PFThreshold (RFC 7829);
	// data goes to another active path while HEARTBEATs probe it.
	PathPotentiallyFailed
	// PathInactive: errors beyond Config.Timers.PathMaxRetransmits (section 8.2).
	PathInactive
)

var pathStateNames = [...]string{"unconfirmed", "active", "potentially-failed", "inactive"}

// String returns the state's name.
func (s PathState) String() string {
	if int(s) < len(pathStateNames) {
		return pathStateNames[s]
	}
	return "PathState(?)"
}

// PathParams are the settings of one of the peer's addresses, as RFC 6458's
// SCTP_PEER_ADDR_PARAMS: Config.Timers.HeartbeatInterval, PathMaxRetransmits and
// PFThreshold are the defaults.
type PathParams struct {
	// HeartbeatInterval is HB.interval (RFC 9260 section 8.3): an idle
	// active path gets a HEARTBEAT every HB.interval + RTO, with jitter.
	HeartbeatInterval time.Duration
	// HeartbeatOff stops the HEARTBEATs of the address while it is idle
	// and active; an unconfirmed, potentially failed or inactive address
	// is still probed (that is how it comes back).
	HeartbeatOff bool
	// PathMaxRetransmits is Path.Max.Retrans (section 8.2), at least 1:
	// beyond it the path is inactive.
	PathMaxRetransmits int
	// PFThreshold is RFC 7829's PFMR (multi-homing): beyond it the path
	// is potentially failed and new data moves to another path. At or
	// above PathMaxRetransmits there is no potentially-failed state.
	PFThreshold int
}

// Errors of the path calls (SetPrimary, PathParams, SetPathParams).
var (
	// ErrUnknownAddress: the address is none of the peer's.
	ErrUnknownAddress = errors.New("sctp: not an address of the peer")
	// ErrUnconfirmedAddress: the peer's address is not confirmed yet.
	ErrUnconfirmedAddress = errors.New("sctp: peer address not confirmed")
	// ErrInvalidPathParams is returned by SetPathParams for a negative
	// interval or threshold, or a PathMaxRetransmits below 1.
	ErrInvalidPathParams = errors.New("sctp: invalid path parameters")
)
