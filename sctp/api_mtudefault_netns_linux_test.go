//go:build linux

package sctp

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// TestDefaultMTUNetns checks Config.MTU's default (0) between two
// namespaces joined by a veth whose MTU is 9000 (loopback up in the
// listener's, 65536): an endpoint bound to the veth's address takes 9000,
// one bound to all addresses 65535 (1500 without path MTU discovery), one
// on the user's PacketConn 1500, and Dial the route's 9000. Over both
// transports the dialer's path then settles on 9000 less the headers, and
// so does the path of an endpoint bound to all addresses, whose first
// probe of 65535 the kernel refuses (EMSGSIZE): the local report's MTU
// sends the search straight to 9000 (PTBUsed), not after three lost probes
// of at least a second each.
func TestDefaultMTUNetns(t *testing.T) {
	nsA, nsB := netnstest.Pair(t, "usctp-mtud", "m0", 7)
	netnstest.SetMTU(t, nsA, "m0", 9000)
	netnstest.SetMTU(t, nsB, "m0", 9000)
	if out, err := exec.Command("ip", "-n", nsB, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("lo up: %v\n%s", err, out)
	}
	const server = "10.201.7.2"
	defaults := []struct {
		name  string
		laddr string
		cfg   Config
		want  int
	}{
		{"bound", server + ":5000", Config{UDPPort: 9801}, 9000},
		{"wildcard", ":5000", Config{UDPPort: 9802}, 65535},
		{"wildcard-no-pmtud", ":5000", Config{UDPPort: 9803, DisablePMTUDiscovery: true}, 1500},
		{"bound-raw-ip", server + ":5001", Config{Transport: IP}, 9000},
		{"set", server + ":5000", Config{UDPPort: 9804, MTU: 4000}, 4000},
	}
	for _, d := range defaults {
		var l *Endpoint
		var err error
		inNs(t, nsB, func() { l, err = Listen(d.laddr, &d.cfg) })
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if l.cfg.MTU != d.want {
			t.Errorf("%s: Config.MTU %d, want %d", d.name, l.cfg.MTU, d.want)
		}
		l.Close()
	}
	var pc net.PacketConn
	var err error
	inNs(t, nsB, func() { pc, err = net.ListenPacket("udp", server+":9805") })
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(":5000", &Config{PacketConn: pc})
	if err != nil {
		t.Fatal(err)
	}
	if l.cfg.MTU != 1500 {
		t.Errorf("on a PacketConn: Config.MTU %d, want 1500", l.cfg.MTU)
	}
	l.Close()

	for _, tr := range []Transport{UDP, IP} {
		for _, laddr := range []string{server + ":5000", ":5000"} {
			t.Run(fmt.Sprintf("%v/%s", tr, laddr), func(t *testing.T) {
				defaultMTURun(t, nsA, nsB, tr, laddr, server)
			})
		}
	}
}

func defaultMTURun(t *testing.T, nsA, nsB string, tr Transport, laddr, server string) {
	cfg := &Config{Transport: tr}
	over := 20 // IPv4 header
	if tr == UDP {
		cfg.UDPPort = 9899
		over += 8
	}
	var l *Endpoint
	var err error
	inNs(t, nsB, func() { l, err = Listen(laddr, cfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dcfg := Config{Transport: tr, RemoteUDPPort: 9899}
	var c *Association
	inNs(t, nsA, func() { c, err = Dial(ctx, server+":5000", &dcfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.ep.cfg.MTU != 9000 {
		t.Errorf("Dial: Config.MTU %d, want the route's 9000", c.ep.cfg.MTU)
	}
	s, err := l.AcceptContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	settled := func(as *Association) time.Duration {
		for as.Paths()[0].PMTU != PMTUSearchComplete { // polling real sockets
			if time.Since(start) > 20*time.Second {
				t.Fatalf("path MTU search not complete after 20 s: %+v", as.Paths())
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(start)
	}
	dc, sc := settled(c), settled(s)
	// An endpoint bound to all addresses has a dual-stack socket and
	// counts an IPv6 header (20 bytes more) for every peer.
	lover := over
	if laddr[0] == ':' {
		lover += 20
	}
	for _, x := range []struct {
		who  string
		as   *Association
		in   time.Duration
		over int
	}{{"dialer", c, dc, over}, {"listener", s, sc, lover}} {
		p, st := x.as.Paths()[0], x.as.Stats()
		t.Logf("%s: PLPMTU %d after %v; probes %d lost %d, PTB used %d ignored %d", x.who, p.MTU,
			x.in.Round(time.Millisecond), st.PMTUProbes, st.PMTUProbesLost, st.PTBUsed, st.PTBIgnored)
		if want := 9000 - x.over; p.MTU != want {
			t.Errorf("%s: PLPMTU %d, want %d (9000 less %d bytes of headers)", x.who, p.MTU, want, x.over)
		}
	}
	if laddr[0] == ':' {
		// The listener's bound was loopback's: its first probe was
		// refused by the kernel and the local report led the search.
		if st := s.Stats(); st.PTBUsed == 0 || st.PMTUProbesLost != 0 {
			t.Errorf("listener bound to all addresses: PTB used %d, probes lost %d; want the local report used and no probe lost",
				st.PTBUsed, st.PMTUProbesLost)
		}
		if sc > 2*time.Second {
			t.Errorf("listener bound to all addresses: search took %v (three lost probes would take 3 s)", sc)
		}
	}
	// Byte-exact at that size.
	src := bytes.Repeat([]byte("0123456789abcdef"), 1<<14)
	go func() {
		for off := 0; off < len(src); off += 20000 {
			if _, err := c.WriteMsg(src[off:min(off+20000, len(src))], SendInfo{}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	got := make([]byte, 0, len(src))
	buf := make([]byte, 65536)
	for len(got) < len(src) {
		n, _, err := s.ReadMsg(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("received bytes differ from the sent ones")
	}
}
