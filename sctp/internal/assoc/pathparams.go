package assoc

import (
	"errors"
	"net/netip"
	"time"
)

// PathParams are the settings of one peer address (RFC 6458's
// SCTP_PEER_ADDR_PARAMS): the heartbeat interval, Path.Max.Retrans and the
// potentially-failed threshold. Config.HeartbeatInterval, PathMaxRetransmits
// and PFThreshold are the defaults; Assoc.SetPathParams changes them for
// one address or for all.
type PathParams struct {
	// HeartbeatInterval is HB.interval (RFC 9260 section 8.3): an idle
	// active path gets a HEARTBEAT every HB.interval + RTO, with jitter.
	HeartbeatInterval time.Duration
	// HeartbeatOff stops the HEARTBEATs of an idle active path. An
	// unconfirmed address is still verified (section 5.4), and a path
	// potentially failed or inactive still probed (RFC 7829 section 5.1):
	// a HEARTBEAT is the only way back for them.
	HeartbeatOff bool
	// PathMaxRetransmits is Path.Max.Retrans (section 8.2): beyond it the path
	// is inactive.
	PathMaxRetransmits int
	// PFThreshold is RFC 7829's PFMR: beyond it the path is potentially
	// failed and new data moves to another path. At or above
	// PathMaxRetransmits there is no potentially-failed state.
	PFThreshold int
}

// ErrInvalidPathParams is returned by SetPathParams for a negative
// interval or threshold, or a Path.Max.Retrans below 1.
var ErrInvalidPathParams = errors.New("sctp: invalid path parameters")

// defaultPathParams returns the Config's path settings.
func (cfg *Config) defaultPathParams() PathParams {
	pp := PathParams{HeartbeatInterval: cfg.HeartbeatInterval, PathMaxRetransmits: cfg.PathMaxRetransmits, PFThreshold: cfg.PFThreshold}
	if pp.HeartbeatInterval < 0 {
		pp.HeartbeatInterval, pp.HeartbeatOff = 0, true
	}
	return pp
}

// primaryParams returns the settings of the handshake's address (the one
// heartbeat.go watches).
func (a *Assoc) primaryParams() *PathParams {
	if a.paths != nil {
		return &a.paths[0].pp
	}
	return &a.pp
}

// PathParams returns the settings of the peer address ip; the zero Addr
// gives the association's, which new paths take.
func (a *Assoc) PathParams(ip netip.Addr) (PathParams, error) {
	if !ip.IsValid() {
		return a.pp, nil
	}
	if i := a.pathOfIP(ip); i >= 0 {
		return a.paths[i].pp, nil
	}
	if a.paths == nil && ip.Unmap() == a.key.peer.Addr().Unmap() {
		return a.pp, nil
	}
	return PathParams{}, ErrUnknownAddress
}

// SetPathParams changes the settings of the peer address ip, or of every
// path and of those to come when ip is the zero Addr (RFC 6458's
// SCTP_PEER_ADDR_PARAMS with and without an address). A path whose error
// count is already beyond a lowered threshold changes state at its next
// error.
func (a *Assoc) SetPathParams(now time.Time, ip netip.Addr, pp PathParams) error {
	defer a.ep.touch(a)
	switch {
	case a.closed:
		return ErrClosed
	case pp.HeartbeatInterval < 0 || pp.PFThreshold < 0 || pp.PathMaxRetransmits < 1:
		return ErrInvalidPathParams
	}
	all := !ip.IsValid()
	i := -1
	if !all {
		if i = a.pathOfIP(ip); i < 0 {
			if a.paths != nil || ip.Unmap() != a.key.peer.Addr().Unmap() {
				return ErrUnknownAddress
			}
			all = true // the one path
		}
	}
	if all {
		a.pp = pp
		for j := range a.paths {
			a.paths[j].pp = pp
		}
	} else {
		a.paths[i].pp = pp
	}
	// Heartbeats: heartbeat.go's timer for the handshake's address, and
	// the paths' times recomputed from now.
	if i <= 0 && a.state == stateEstablished || all && a.state == stateEstablished {
		if a.primaryParams().HeartbeatOff {
			a.timers.stop(timerHeartbeat)
		} else {
			a.timers.start(timerHeartbeat, now, a.heartbeatPeriod())
		}
	}
	for j := range a.paths {
		if (all || j == i) && a.probed(j) && a.paths[j].state == PathActive {
			a.paths[j].next = a.idleHeartbeat(now, j)
		}
	}
	if a.paths != nil {
		a.schedulePaths()
	}
	return nil
}

// idleHeartbeat returns when an idle active path j gets its next
// HEARTBEAT (section 8.3: "once per RTO of that destination address plus
// the protocol parameter 'HB.interval', with jittering of +/- 50% of the
// RTO value"), or the zero time when its heartbeats are off.
func (a *Assoc) idleHeartbeat(now time.Time, j int) time.Time {
	pp := &a.paths[j].pp
	if pp.HeartbeatOff {
		return time.Time{}
	}
	rto := a.pathRTO(j)
	jitter := time.Duration(a.ep.random32()%1000) * rto / 1000
	return now.Add(pp.HeartbeatInterval + rto/2 + jitter)
}

// pathOfIP returns the index in a.paths of the peer address ip, or -1.
func (a *Assoc) pathOfIP(ip netip.Addr) int {
	ip = ip.Unmap()
	for i := range a.paths {
		if a.paths[i].addr.Addr().Unmap() == ip {
			return i
		}
	}
	return -1
}
