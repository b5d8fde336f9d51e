package sctp

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestPathsSingleHomed: a single-homed association reports its one path,
// active, primary and in use, with the estimator's values; SetPrimary
// takes that address and refuses others.
func TestPathsSingleHomed(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 5 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if _, err := c.WriteMsg([]byte("hello"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		if _, _, err := s.ReadMsg(buf); err != nil {
			t.Fatal(err)
		}
		ps := c.Paths()
		if len(ps) != 1 {
			t.Fatalf("%d paths", len(ps))
		}
		p := ps[0]
		if p.State != PathActive || !p.Primary || !p.InUse || p.RTO <= 0 || p.Cwnd <= 0 || p.MTU <= 0 {
			t.Fatalf("path %+v", p)
		}
		if p.Addr != c.RemoteAddrs()[0] {
			t.Fatalf("path address %v, remote %v", p.Addr, c.RemoteAddrs()[0])
		}
		if err := c.SetPrimary(p.Addr.IP); err != nil {
			t.Fatalf("SetPrimary(own address): %v", err)
		}
		if err := c.SetPrimary(netip.MustParseAddr("203.0.113.9")); !errors.Is(err, ErrUnknownAddress) {
			t.Fatalf("SetPrimary(unknown): %v", err)
		}
		if p.State.String() != "active" {
			t.Fatalf("state name %q", p.State.String())
		}
	})
}

// TestPathParamsPublic: the association's path settings start from the
// Config, change for the one address or for all, and refuse bad values
// and addresses that are not the peer's.
func TestPathParamsPublic(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 5 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		peer := c.RemoteAddrs()[0].IP
		pp, err := c.PathParams(peer)
		if err != nil || pp.PathMaxRetransmits != 5 || pp.HeartbeatInterval != 30*time.Second || pp.HeartbeatOff {
			t.Fatalf("defaults %+v, %v", pp, err)
		}
		pp.PathMaxRetransmits, pp.HeartbeatInterval = 3, 2*time.Second
		if err := c.SetPathParams(peer, pp); err != nil {
			t.Fatal(err)
		}
		if got, _ := c.PathParams(netip.Addr{}); got != pp {
			t.Fatalf("after SetPathParams %+v, want %+v", got, pp)
		}
		pp.PathMaxRetransmits = 0
		if err := c.SetPathParams(netip.Addr{}, pp); !errors.Is(err, ErrInvalidPathParams) {
			t.Fatalf("PathMaxRetransmits 0: %v", err)
		}
		if _, err := c.PathParams(netip.MustParseAddr("203.0.113.9")); !errors.Is(err, ErrUnknownAddress) {
			t.Fatalf("unknown address: %v", err)
		}
	})
}
