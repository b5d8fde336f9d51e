package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// defaultPathParams returns the Config's path settings.
func (cfg *Config) defaultPathParams() api.PathParams {
	pp := api.PathParams{HeartbeatInterval: cfg.HeartbeatInterval, PathMaxRetransmits: cfg.PathMaxRetransmits, PFThreshold: cfg.PFThreshold}
	if pp.HeartbeatInterval < 0 {
		pp.HeartbeatInterval, pp.HeartbeatOff = 0, true
	}
	return pp
}

// primaryParams returns the settings of the handshake's address (the one
// heartbeat.go watches).
func (a *Assoc) primaryParams() *api.PathParams {
	if a.paths != nil {
		return &a.paths[0].pp
	}
	return &a.pp
}

// PathParams returns the settings of the peer address ip; the zero Addr
// gives the association's, which new paths take.
func (a *Assoc) PathParams(ip netip.Addr) (api.PathParams, error) {
	if !ip.IsValid() {
		return a.pp, nil
	}
	if i := a.pathOfIP(ip); i >= 0 {
		return a.paths[i].pp, nil
	}
	if a.paths == nil && ip.Unmap() == a.key.peer.Addr().Unmap() {
		return a.pp, nil
	}
	return api.PathParams{}, api.ErrUnknownAddress
}

// SetPathParams changes the settings of the peer address ip, or of every
// path and of those to come when ip is the zero Addr (RFC 6458's
// SCTP_PEER_ADDR_PARAMS with and without an address). A path whose error
// count is already beyond a lowered threshold changes state at its next
// error.
func (a *Assoc) SetPathParams(now time.Time, ip netip.Addr, pp api.PathParams) error {
	defer a.ep.reached(a)
	switch {
	case a.closed:
		return ErrClosed
	case pp.HeartbeatInterval < 0 || pp.PFThreshold < 0 || pp.PathMaxRetransmits < 1:
		return api.ErrInvalidPathParams
	}
	all := !ip.IsValid()
	i := -1
	if !all {
		if i = a.pathOfIP(ip); i < 0 {
			if a.paths != nil || ip.Unmap() != a.key.peer.Addr().Unmap() {
				return api.ErrUnknownAddress
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
		if (all || j == i) && a.probed(j) && a.paths[j].state == api.PathActive {
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
