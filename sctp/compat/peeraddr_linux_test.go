package sctp

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

var (
	loop1 = net.IPAddr{IP: net.IPv4(127, 0, 0, 1)}
	loop2 = net.IPAddr{IP: net.IPv4(127, 0, 0, 2)}
	loop3 = net.IPAddr{IP: net.IPv4(127, 0, 0, 3)}
)

// one returns an SCTPAddr of ip alone, with no port.
func one(ip net.IPAddr) *SCTPAddr { return &SCTPAddr{IPAddrs: []net.IPAddr{ip}} }

// twoPathConn dials, over UDP encapsulation, a listener on 127.0.0.1 and
// 127.0.0.2 that reads and discards what it receives, and waits until
// the client's path to 127.0.0.2 is confirmed and active.
func twoPathConn(t *testing.T) *SCTPConn {
	t.Helper()
	defer func(t Transport) { DefaultTransport = t }(DefaultTransport)
	DefaultTransport = TransportUDP
	two := []net.IPAddr{loop1, loop2}
	ln, err := ListenSCTP("sctp", &SCTPAddr{IPAddrs: two})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			s, err := ln.AcceptSCTP()
			if err != nil {
				return
			}
			go func() {
				io.Copy(io.Discard, s)
				s.Close()
			}()
		}
	}()
	// The tests start from a handshake with 127.0.0.1, the primary. When
	// the INIT to it goes unanswered on a loaded host, the retransmission
	// goes to 127.0.0.2 (RFC 9260 section 6.4), which then carries the
	// handshake and becomes the primary: such a connection is dialed
	// again.
	for try := 1; ; try++ {
		c, err := DialSCTP("sctp", nil, &SCTPAddr{IPAddrs: two, Port: lnPort(ln)})
		if err != nil {
			t.Fatal(err)
		}
		if p := c.as.Paths(); len(p) == 0 || p[0].Addr.IP.String() != "127.0.0.1" {
			c.Close()
			if try == 3 {
				t.Fatalf("three handshakes did not go to 127.0.0.1: %+v", p)
			}
			continue
		}
		t.Cleanup(func() { c.Close() })
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if pi, err := c.GetPeerAddrInfo(one(loop2)); err == nil && pi.State == SCTP_ACTIVE {
				return c
			}
			if time.Now().After(deadline) {
				t.Fatalf("the path to 127.0.0.2 is not confirmed: %+v", c.as.Paths())
			}
		}
	}
}

// TestSetPrimaryPeerAddr: SCTPSetPrimaryPeerAddr (SCTP_PRIMARY_ADDR) moves
// new data to the peer's second address: SCTPGetPrimaryPeerAddr and
// GetStatus report it, and a burst of data grows that path's congestion
// window (GetPeerAddrInfo), not the first's. Addresses not the peer's, no
// address or several, and another port are refused with EINVAL.
func TestSetPrimaryPeerAddr(t *testing.T) {
	c := twoPathConn(t)
	if p, err := c.SCTPGetPrimaryPeerAddr(); err != nil || ips(p)[0] != "127.0.0.1" {
		t.Fatalf("primary %v %v, want 127.0.0.1 (the handshake's)", p, err)
	}
	before1, err := c.GetPeerAddrInfo(one(loop1))
	if err != nil {
		t.Fatal(err)
	}
	before2, err := c.GetPeerAddrInfo(one(loop2))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SCTPSetPrimaryPeerAddr(&SCTPAddr{IPAddrs: []net.IPAddr{loop2}, Port: c.RemoteAddr().(*SCTPAddr).Port}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.SCTPGetPrimaryPeerAddr(); err != nil || ips(p)[0] != "127.0.0.2" {
		t.Fatalf("primary %v %v after SCTPSetPrimaryPeerAddr, want 127.0.0.2", p, err)
	}
	st, err := c.GetStatus()
	if err != nil {
		t.Fatal(err)
	}
	if want := appendSockaddr(nil, loop2, uint16(c.RemoteAddr().(*SCTPAddr).Port)); string(st.PrimaryPeerAddr.Address[:len(want)]) != string(want) {
		t.Errorf("GetStatus's primary address % x, want % x", st.PrimaryPeerAddr.Address[:len(want)], want)
	}
	// Enough to fill the initial window many times over at any path MTU
	// (65535 on loopback: an initial cwnd of 128 KiB), so the path the
	// data takes grows its cwnd.
	msg := make([]byte, 16000)
	for i := range 400 {
		if _, err := c.Write(msg); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := c.GetStatus()
		if err != nil {
			t.Fatal(err)
		}
		if st.Unackdata == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages still unacknowledged", st.Unackdata)
		}
	}
	after1, _ := c.GetPeerAddrInfo(one(loop1))
	after2, _ := c.GetPeerAddrInfo(one(loop2))
	if after2.CWND <= before2.CWND || after1.CWND > before1.CWND {
		t.Errorf("cwnd of 127.0.0.1 %d -> %d, of 127.0.0.2 %d -> %d: the data did not go to 127.0.0.2",
			before1.CWND, after1.CWND, before2.CWND, after2.CWND)
	}
	for _, p := range c.as.Paths() {
		if p.InUse != (p.Addr.IP.String() == "127.0.0.2") {
			t.Errorf("path %v in use: %v", p.Addr, p.InUse)
		}
	}

	for _, tc := range []struct {
		name string
		addr *SCTPAddr
		also error
	}{
		{"not the peer's", one(loop3), usctp.ErrUnknownAddress},
		{"nil", nil, nil},
		{"no address", &SCTPAddr{}, nil},
		{"two addresses", &SCTPAddr{IPAddrs: []net.IPAddr{loop1, loop2}}, nil},
		{"another port", &SCTPAddr{IPAddrs: []net.IPAddr{loop1}, Port: 1}, nil},
	} {
		err := c.SCTPSetPrimaryPeerAddr(tc.addr)
		if !errors.Is(err, syscall.EINVAL) || tc.also != nil && !errors.Is(err, tc.also) {
			t.Errorf("%s: %v, want EINVAL", tc.name, err)
		}
		t.Logf("%s: %v", tc.name, err)
	}
	if p, err := c.SCTPGetPrimaryPeerAddr(); err != nil || ips(p)[0] != "127.0.0.2" {
		t.Fatalf("primary %v %v after refused changes, want 127.0.0.2", p, err)
	}
	if _, err := c.GetPeerAddrInfo(one(loop3)); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("GetPeerAddrInfo(127.0.0.3): %v, want EINVAL", err)
	}
}

// TestSetPeerAddrParams: SetPeerAddrParams (SCTP_PEER_ADDR_PARAMS) sets
// the heartbeat interval of one peer address, which GetPeerAddrParams and
// package usctp report and which makes HEARTBEATs go out every RTO + 100
// ms instead of 30 s; SPP_HB_DISABLE stops them; PathMaxRxt for all
// addresses reaches each; SetPeerAddrThlds (SCTP_PEER_ADDR_THLDS) sets
// the potentially-failed threshold. Invalid values are refused with
// EINVAL, what cannot be set with ErrUnsupported.
func TestSetPeerAddrParams(t *testing.T) {
	c := twoPathConn(t)
	def, err := c.GetPeerAddrParams(nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.HBInterval != 30000 || def.PathMaxRxt != 5 || def.SackDelay != 200 ||
		def.Flags != SPP_HB_ENABLE|SPP_PMTUD_ENABLE|SPP_SACKDELAY_ENABLE || def.AssocID != c.id || def.PathMTU == 0 {
		t.Fatalf("default parameters %+v", def)
	}
	// What was read is accepted back.
	if err := c.SetPeerAddrParams(def); err != nil {
		t.Fatalf("the parameters read, set again: %v", err)
	}

	hbs := func() uint64 { return c.as.Stats().HeartbeatsOut }
	if err := c.SetPeerAddrParams(&PeerAddrParams{Address: one(loop2), HBInterval: 100, Flags: SPP_HB_ENABLE}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.GetPeerAddrParams(one(loop2)); err != nil || p.HBInterval != 100 || p.Flags&SPP_HB_ENABLE == 0 {
		t.Fatalf("127.0.0.2's parameters %+v %v, want HBInterval 100", p, err)
	}
	if pp, err := c.as.PathParams(c.as.Paths()[1].Addr.IP); err != nil || pp.HeartbeatInterval != 100*time.Millisecond {
		t.Fatalf("package usctp's parameters of %v: %+v %v", c.as.Paths()[1].Addr, pp, err)
	}
	for _, a := range []*SCTPAddr{one(loop1), nil} {
		if p, err := c.GetPeerAddrParams(a); err != nil || p.HBInterval != 30000 {
			t.Fatalf("parameters of %v %+v %v: changed with 127.0.0.2's", a, p, err)
		}
	}
	n0 := hbs()
	for deadline := time.Now().Add(8 * time.Second); hbs() < n0+3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d HEARTBEATs in 8 s with a 100 ms interval", hbs()-n0)
		}
	}

	if err := c.SetPeerAddrParams(&PeerAddrParams{Flags: SPP_HB_DISABLE, PathMaxRxt: 7}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*SCTPAddr{one(loop1), one(loop2), nil} {
		p, err := c.GetPeerAddrParams(a)
		if err != nil || p.Flags&SPP_HB_DISABLE == 0 || p.PathMaxRxt != 7 {
			t.Fatalf("parameters of %v %+v %v, want heartbeats off and PathMaxRxt 7", a, p, err)
		}
		if a != nil && a.IPAddrs[0].IP.Equal(loop2.IP) && p.HBInterval != 100 {
			t.Errorf("127.0.0.2's interval %d: lost by a change of every address", p.HBInterval)
		}
	}
	time.Sleep(300 * time.Millisecond) // a HEARTBEAT on its way
	n1 := hbs()
	time.Sleep(2500 * time.Millisecond)
	if n := hbs() - n1; n != 0 {
		t.Errorf("%d HEARTBEATs with heartbeats off", n)
	}

	if err := c.SetPeerAddrThlds(&PeerAddrThlds{Address: one(loop2), PathMaxRxt: 4, PathPFThld: 1}); err != nil {
		t.Fatal(err)
	}
	if th, err := c.GetPeerAddrThlds(one(loop2)); err != nil || th.PathMaxRxt != 4 || th.PathPFThld != 1 {
		t.Fatalf("127.0.0.2's thresholds %+v %v", th, err)
	}
	if th, err := c.GetPeerAddrThlds(one(loop1)); err != nil || th.PathMaxRxt != 7 || th.PathPFThld != 0 {
		t.Fatalf("127.0.0.1's thresholds %+v %v", th, err)
	}
	if err := c.SetPeerAddrThlds(&PeerAddrThlds{PathPFThld: 2}); err != nil {
		t.Fatal(err)
	}
	if th, err := c.GetPeerAddrThlds(one(loop2)); err != nil || th.PathMaxRxt != 4 || th.PathPFThld != 2 {
		t.Fatalf("127.0.0.2's thresholds %+v %v after setting every address's PF threshold", th, err)
	}

	for _, tc := range []struct {
		name string
		p    PeerAddrParams
		want error
	}{
		{"both heartbeat flags", PeerAddrParams{Flags: SPP_HB}, syscall.EINVAL},
		{"both PMTUD flags", PeerAddrParams{Flags: SPP_PMTUD}, syscall.EINVAL},
		{"SACK delay over 500", PeerAddrParams{SackDelay: 600}, syscall.EINVAL},
		{"path MTU under 512", PeerAddrParams{PathMTU: 100}, syscall.EINVAL},
		{"another association", PeerAddrParams{AssocID: c.id + 1000}, syscall.EINVAL},
		{"not the peer's", PeerAddrParams{Address: one(loop3), HBInterval: 10}, usctp.ErrUnknownAddress},
		{"heartbeat on demand", PeerAddrParams{Flags: SPP_HB_DEMAND}, errors.ErrUnsupported},
		{"path MTU discovery off", PeerAddrParams{Flags: SPP_PMTUD_DISABLE, PathMTU: 1200}, syscall.EOPNOTSUPP},
		{"another SACK delay", PeerAddrParams{SackDelay: 100}, errors.ErrUnsupported},
	} {
		err := c.SetPeerAddrParams(&tc.p)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		t.Logf("%s: %v", tc.name, err)
	}
	if err := c.SetPeerAddrParams(nil); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("nil parameters: %v", err)
	}
	if err := c.SetPeerAddrThlds(&PeerAddrThlds{Address: one(loop3), PathPFThld: 1}); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("thresholds of an address not the peer's: %v, want ENOENT", err)
	}
	if p, err := c.GetPeerAddrParams(nil); err != nil || p.PathMaxRxt != 7 || p.Flags&SPP_HB_DISABLE == 0 {
		t.Errorf("refused changes changed the parameters: %+v %v", p, err)
	}
}

// TestPeerAddrOptionsAPI: the SPP_* flags have <linux/sctp.h>'s values,
// and the new calls of a conn without an association (NewSCTPConn) fail
// with ErrUnsupported as its other calls do.
func TestPeerAddrOptionsAPI(t *testing.T) {
	for _, c := range [][2]int{{SPP_HB_ENABLE, 1}, {SPP_HB_DISABLE, 2}, {SPP_HB, 3}, {SPP_HB_DEMAND, 4},
		{SPP_PMTUD_ENABLE, 8}, {SPP_PMTUD_DISABLE, 16}, {SPP_PMTUD, 24}, {SPP_SACKDELAY_ENABLE, 32},
		{SPP_SACKDELAY_DISABLE, 64}, {SPP_SACKDELAY, 96}, {SPP_HB_TIME_IS_ZERO, 128}, {SPP_IPV6_FLOWLABEL, 256},
		{SPP_DSCP, 512}} {
		if c[0] != c[1] {
			t.Errorf("SPP flag %#x, want %#x", c[0], c[1])
		}
	}
	nc := NewSCTPConn(3, nil)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("NewSCTPConn's %s: %v, want ErrUnsupported", what, err)
		}
	}
	check("SCTPSetPrimaryPeerAddr", nc.SCTPSetPrimaryPeerAddr(one(loop1)))
	_, err := nc.GetPeerAddrInfo(one(loop1))
	check("GetPeerAddrInfo", err)
	_, err = nc.GetPeerAddrParams(nil)
	check("GetPeerAddrParams", err)
	check("SetPeerAddrParams", nc.SetPeerAddrParams(&PeerAddrParams{}))
	_, err = nc.GetPeerAddrThlds(nil)
	check("GetPeerAddrThlds", err)
	check("SetPeerAddrThlds", nc.SetPeerAddrThlds(&PeerAddrThlds{}))
}
