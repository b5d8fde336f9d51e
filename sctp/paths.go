package sctp

import (
	"errors"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// PathState is the state of one of the peer's addresses (multi-homing,
// Config.Paths.Multihoming).
type PathState uint8

// Path states.
const (
	// PathUnconfirmed: not yet verified by a HEARTBEAT (RFC 9260 section
	// 5.4); no data goes there.
	PathUnconfirmed PathState = PathState(assoc.PathUnconfirmed)
	// PathActive: confirmed and answering.
	PathActive PathState = PathState(assoc.PathActive)
	// PathPotentiallyFailed: errors beyond Config.Paths.PFThreshold (RFC 7829);
	// data goes to another active path while HEARTBEATs probe it.
	PathPotentiallyFailed PathState = PathState(assoc.PathPotentiallyFailed)
	// PathInactive: errors beyond Config.Timers.PathMaxRetransmits (section 8.2).
	PathInactive PathState = PathState(assoc.PathInactive)
)

// String returns the state's name.
func (s PathState) String() string { return assoc.PathState(s).String() }

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

// Errors of SetPrimary.
var (
	// ErrUnknownAddress: the address is none of the peer's.
	ErrUnknownAddress = errors.New("sctp: not an address of the peer")
	// ErrUnconfirmedAddress: the peer's address is not confirmed yet.
	ErrUnconfirmedAddress = errors.New("sctp: peer address not confirmed")
)

// Paths returns the state of each of the peer's addresses, the address of
// the handshake first. Without Config.Paths.Multihoming there is that one.
func (as *Association) Paths() []PathInfo {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return nil
	}
	_, port := as.a.Peer()
	var out []PathInfo
	for _, p := range as.a.Paths(nil) {
		out = append(out, PathInfo{
			Addr:  Addr{IP: p.Addr.Addr(), Port: port, UDPPort: p.Addr.Port()},
			State: PathState(p.State), Primary: p.Primary, InUse: p.InUse,
			SRTT: p.SRTT, RTO: p.RTO, Cwnd: p.Cwnd, MTU: p.MTU, Errors: p.Errors, PMTU: PMTUState(p.PMTU),
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
	err := as.a.SetPrimary(time.Now(), ip)
	as.ep.afterCall(as) // the "made primary" event
	switch {
	case errors.Is(err, assoc.ErrUnknownAddress):
		return ErrUnknownAddress
	case errors.Is(err, assoc.ErrUnconfirmedAddress):
		return ErrUnconfirmedAddress
	case errors.Is(err, assoc.ErrClosed):
		return ErrClosed
	}
	return err
}

// PathParams are the settings of one of the peer's addresses, as RFC 6458's
// SCTP_PEER_ADDR_PARAMS: Config.Timers.HeartbeatInterval, PathMaxRetransmits and
// PFThreshold are the defaults.
type PathParams struct {
	// HeartbeatInterval is HB.interval (RFC 9260 section 8.3).
	HeartbeatInterval time.Duration
	// HeartbeatOff stops the HEARTBEATs of the address while it is idle
	// and active; an unconfirmed, potentially failed or inactive address
	// is still probed (that is how it comes back).
	HeartbeatOff bool
	// PathMaxRetransmits is Path.Max.Retrans (section 8.2), at least 1.
	PathMaxRetransmits int
	// PFThreshold is RFC 7829's PFMR (multi-homing); at or above
	// PathMaxRetransmits there is no potentially-failed state.
	PFThreshold int
}

// ErrInvalidPathParams is returned by SetPathParams for a negative
// interval or threshold, or a PathMaxRetransmits below 1.
var ErrInvalidPathParams = errors.New("sctp: invalid path parameters")

// PathParams returns the settings of the peer address ip, or the
// association's (those new paths take) for the zero Addr.
func (as *Association) PathParams(ip netip.Addr) (PathParams, error) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return PathParams{}, ErrClosed
	}
	pp, err := as.a.PathParams(ip)
	if err != nil {
		return PathParams{}, ErrUnknownAddress
	}
	return PathParams{HeartbeatInterval: pp.HeartbeatInterval, HeartbeatOff: pp.HeartbeatOff,
		PathMaxRetransmits: pp.PathMaxRetransmits, PFThreshold: pp.PFThreshold}, nil
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
	err := as.a.SetPathParams(time.Now(), ip, assoc.PathParams{HeartbeatInterval: p.HeartbeatInterval,
		HeartbeatOff: p.HeartbeatOff, PathMaxRetransmits: p.PathMaxRetransmits, PFThreshold: p.PFThreshold})
	switch {
	case errors.Is(err, assoc.ErrUnknownAddress):
		return ErrUnknownAddress
	case errors.Is(err, assoc.ErrInvalidPathParams):
		return ErrInvalidPathParams
	case errors.Is(err, assoc.ErrClosed):
		return ErrClosed
	}
	as.ep.afterCall(as)
	return err
}
