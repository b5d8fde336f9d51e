package assoc

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestASCONFEndToEnd: side 0 asks side 1 to add an address, make it
// primary and delete it again (AddLocalAddr, SetPeerPrimary,
// RemoveLocalAddr) over a lossy link, while messages flow; every request is
// answered (retransmitted when lost), side 1 sees the changes, the added
// path is confirmed by a HEARTBEAT before it carries data, and every
// message arrives.
func TestASCONFEndToEnd(t *testing.T) {
	cfg := Config{Extensions: api.Extensions{DynamicAddrs: true}}
	p := newAuthPair(t, simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 0.05}, [2]Config{cfg, cfg})
	p.connect()
	extra := netip.MustParseAddr("10.0.0.9")
	done := func(op uint64) chunk.CauseCode {
		t.Helper()
		for p.now.Sub(t0) < 10*time.Minute {
			for i, e := range p.events[0] {
				if e.Quiet && e.Op == op {
					p.events[0] = append(p.events[0][:i], p.events[0][i+1:]...)
					var ae *api.ASCONFError
					if errors.As(e.Err, &ae) {
						return chunk.CauseCode(ae.Cause)
					}
					return 0
				}
			}
			if !p.step() {
				break
			}
		}
		t.Fatalf("request %x not answered", op)
		return 0
	}
	has := func(c api.AddrChange) bool {
		for _, e := range p.events[1] {
			if asconfEvent(&e, c) && e.Addr.IP == extra {
				return true
			}
		}
		return false
	}
	if _, err := p.as[0].AddLocalAddr(p.now, netip.MustParseAddr("224.0.0.1")); err != api.ErrNotLocalAddr {
		t.Fatalf("multicast AddLocalAddr: %v", err)
	}
	op, err := p.as[0].AddLocalAddr(p.now, extra)
	if err != nil {
		t.Fatal(err)
	}
	op2, _ := p.as[0].SetPeerPrimary(p.now, extra)
	if c := done(op); c != 0 {
		t.Fatalf("add refused: %v", c)
	}
	if c := done(op2); c != 0 {
		t.Fatalf("set primary refused: %v", c)
	}
	p.transfer(t, 1, 100)
	if !has(api.AddrAdded) || !has(api.AddrMadePrimary) {
		t.Fatalf("side 1 events %v", p.events[1])
	}
	ps := p.as[1].Paths(nil)
	if len(ps) != 2 || ps[1].State != api.PathActive || !ps[1].Primary {
		t.Fatalf("side 1 paths %+v", ps)
	}
	op, _ = p.as[0].RemoveLocalAddr(p.now, extra)
	if c := done(op); c != 0 {
		t.Fatalf("delete refused: %v", c)
	}
	// The last one left is refused.
	op, _ = p.as[0].RemoveLocalAddr(p.now, p.addrs[0].Addr())
	if c := done(op); c != chunk.CauseDeleteLastAddress {
		t.Fatalf("delete of the last address: cause %v", c)
	}
	p.transfer(t, 1, 100)
	if !has(api.AddrRemoved) || len(p.as[1].Paths(nil)) != 1 {
		t.Fatalf("after delete: paths %+v", p.as[1].Paths(nil))
	}
	if s := p.as[0].stats.ASCONF; s.Sent < 3 || s.AcksIn != 4 {
		t.Fatalf("sender counters %+v", s)
	}
}
