package sctp

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// PathState is the state of one of the peer's addresses (multi-homing,
// Config.Paths.Multihoming).
type PathState = api.PathState

// Path states.
const (
	PathUnconfirmed       = api.PathUnconfirmed       // not yet verified by a HEARTBEAT; no data goes there
	PathActive            = api.PathActive            // confirmed and answering
	PathPotentiallyFailed = api.PathPotentiallyFailed // errors beyond Config.Paths.PFThreshold (RFC 7829)
	PathInactive          = api.PathInactive          // errors beyond Config.Timers.PathMaxRetransmits
)

// PathInfo describes one of the peer's addresses, as SCTP_GET_PEER_ADDR_INFO
// does (RFC 6458).
type PathInfo struct {
	Addr    Addr
	State   PathState
	Primary bool // the primary path: the handshake's address, or SetPrimary's
	InUse   bool // new data goes there now (the primary, or where it moved)
	SRTT    time.Duration
	RTO     time.Duration
	Cwnd    int // congestion window in bytes
	MTU     int // largest SCTP packet on the path: its PLPMTU with path MTU discovery
	Errors  int // error count (RFC 9260 section 8.2)
	// PMTU is the path MTU discovery state (RFC 8899).
	PMTU PMTUState
}

// Errors of SetPrimary, PathParams and SetPathParams.
var (
	// ErrUnknownAddress: the address is none of the peer's.
	ErrUnknownAddress = api.ErrUnknownAddress
	// ErrUnconfirmedAddress: the peer's address is not confirmed yet.
	ErrUnconfirmedAddress = api.ErrUnconfirmedAddress
	// ErrInvalidPathParams is returned by SetPathParams for a negative
	// interval or threshold, or a PathMaxRetransmits below 1.
	ErrInvalidPathParams = api.ErrInvalidPathParams
)

// Paths returns the state of each of the peer's addresses, the address of
// the handshake first. Without Config.Paths.Multihoming there is that one.
func (as *Association) Paths() []PathInfo {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return nil
	}
	_, port := as.core.Peer()
	var out []PathInfo
	for _, p := range as.core.Paths(nil) {
		out = append(out, PathInfo{
			Addr:  Addr{IP: p.Addr.Addr(), Port: port, UDPPort: p.Addr.Port()},
			State: p.State, Primary: p.Primary, InUse: p.InUse,
			SRTT: p.SRTT, RTO: p.RTO, Cwnd: p.Cwnd, MTU: p.MTU, Errors: p.Errors, PMTU: p.PMTU,
		})
	}
	return out
}

// SetPrimary makes the peer address ip the primary path (RFC 9260 section
// 11.1): new data goes there while it is active. It returns
// ErrUnknownAddress for an address that is not the peer's and
// ErrUnconfirmedAddress for one not yet confirmed.
func (as *Association) SetPrimary(ip netip.Addr) error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return ErrClosed
	}
	err := as.core.SetPrimary(time.Now(), ip)
	as.ep.dispatchCall(as) // the "made primary" event
	return publicErr(err)
}

// PathParams are the settings of one of the peer's addresses, as RFC 6458's
// SCTP_PEER_ADDR_PARAMS: Config.Timers.HeartbeatInterval, PathMaxRetransmits and
// PFThreshold are the defaults.
type PathParams = api.PathParams

// PathParams returns the settings of the peer address ip, or the
// association's (those new paths take) for the zero Addr.
func (as *Association) PathParams(ip netip.Addr) (PathParams, error) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return PathParams{}, ErrClosed
	}
	return as.core.PathParams(ip)
}

// SetPathParams changes the settings of the peer address ip, or of all of
// them (and of those to come) for the zero Addr, as SCTP_PEER_ADDR_PARAMS
// does. Read them with PathParams first and change what you need.
func (as *Association) SetPathParams(ip netip.Addr, p PathParams) error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return ErrClosed
	}
	if err := as.core.SetPathParams(time.Now(), ip, p); err != nil {
		return publicErr(err)
	}
	as.ep.dispatchCall(as)
	return nil
}
