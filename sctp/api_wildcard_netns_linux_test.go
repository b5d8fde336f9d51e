//go:build linux

package sctp

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// TestWildcardMultihomeNetnsFailover: endpoints bound to the wildcard
// address with Multihoming announce the host's addresses. Two namespaces
// joined by two links (mhNetns); the server listens on ":5000", the client
// dials only the server's address on link m0, from the wildcard address
// too. Each learns the other's address on link m1 from the INIT or INIT
// ACK alone (the client's IPv4 socket names its family, so the server's
// IPv6 addresses are left out), both paths are confirmed, and when link
// m0 is cut during a transfer the data moves to m1: byte-exact, both ends
// report the cut path's failure. Over raw IP and UDP encapsulation.
//
// In the ip46 variant the client is NewEndpoint with no address, which
// over raw IP with Multihoming opens a raw socket of each family
// (netio.DualIPConn), as the listener does: both list their IPv4 and IPv6
// addresses, and each end has four paths, two per link.
func TestWildcardMultihomeNetnsFailover(t *testing.T) {
	for _, tr := range []Transport{IP, UDP} {
		t.Run(tr.String(), func(t *testing.T) { wildcardFailover(t, tr, false) })
	}
	t.Run("ip46", func(t *testing.T) { wildcardFailover(t, IP, true) })
}

func wildcardFailover(t *testing.T, tr Transport, both bool) {
	nsA, nsB := mhNetns(t)
	cfg := &Config{Transport: tr,
		Timers: Timers{RTOInitial: 500 * time.Millisecond, RTOMin: 200 * time.Millisecond,
			RTOMax: 2 * time.Second, HeartbeatInterval: 300 * time.Millisecond, MaxRetransmits: 100},
		Buffers: Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20}, Paths: Paths{Multihoming: true}}
	var l *Endpoint
	var err error
	netnstest.In(t, nsB, func() { l, err = Listen(":5000", cfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// The listener's addresses: the namespace's, both families (UDP's
	// dual-stack socket, raw IP's pair).
	for _, want := range addrs("10.201.3.2", "10.201.4.2", "fd00:201:3::2", "fd00:201:4::2", "127.0.0.1") {
		if !slices.Contains(l.LocalAddrs(), want) {
			t.Errorf("listener's LocalAddrs %v lack %v", l.LocalAddrs(), want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var c *Association
	netnstest.In(t, nsA, func() {
		if !both {
			c, err = Dial(ctx, "10.201.3.2:5000", cfg)
			return
		}
		var e *Endpoint
		if e, err = NewEndpoint(netip.Addr{}, cfg); err == nil {
			t.Cleanup(func() { e.Close() })
			c, err = e.Dial(ctx, "10.201.3.2:5000")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.AcceptContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cev, sev := watchPaths(c), watchPaths(s)
	ips := func(p []PathInfo) []netip.Addr {
		var out []netip.Addr
		for _, x := range p {
			out = append(out, x.Addr.IP)
		}
		slices.SortFunc(out, netip.Addr.Compare)
		return out
	}
	cwant, swant := addrs("10.201.3.2", "10.201.4.2"), addrs("10.201.3.1", "10.201.4.1")
	if both {
		cwant = addrs("10.201.3.2", "10.201.4.2", "fd00:201:3::2", "fd00:201:4::2")
		swant = addrs("10.201.3.1", "10.201.4.1", "fd00:201:3::1", "fd00:201:4::1")
	}
	cp, sp := waitPaths(t, c, allActive(len(cwant))), waitPaths(t, s, allActive(len(swant)))
	if got := ips(cp); !slices.Equal(got, cwant) {
		t.Fatalf("client's paths %v, want %v", got, cwant)
	}
	if got := ips(sp); !slices.Equal(got, swant) {
		t.Fatalf("server's paths %v, want %v", got, swant)
	}
	// Each side's local addresses are the other's paths: the address in
	// use first, then those it announced.
	locals := func(as *Association) []netip.Addr {
		var out []netip.Addr
		for _, a := range as.LocalAddrs() {
			out = append(out, a.IP)
		}
		slices.SortFunc(out, netip.Addr.Compare)
		return out
	}
	if got := locals(c); !slices.Equal(got, swant) {
		t.Errorf("client's LocalAddrs %v, want %v", got, swant)
	}
	if got := locals(s); !slices.Equal(got, cwant) {
		t.Errorf("server's LocalAddrs %v, want %v", got, cwant)
	}

	total := 8 << 20
	if testsupport.RaceEnabled || testing.Short() {
		total = 2 << 20
	}
	const size = 16000
	go func() {
		if !writeSeeded(t, c, uint64(tr), total, size) {
			return
		}
		// Both ends report the cut path failed, the server (which only
		// receives) by its heartbeats, the client by its retransmissions
		// and heartbeats: close once they did, for an association shut
		// down first reports nothing more, however slow the machine.
		for end := time.Now().Add(30 * time.Second); !(cev.saw("10.201.3.2", failed...) && sev.saw("10.201.3.1", failed...)) && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		if err := c.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	}()
	r := rand.New(rand.NewPCG(18, uint64(tr)))
	buf, want := make([]byte, 2*size), make([]byte, size)
	got, cut := 0, false
	for {
		n := readWhole(t, s, c, buf, got)
		if n == 0 {
			break
		}
		for i := range want {
			want[i] = byte(r.Uint32())
		}
		if n != size || string(buf[:n]) != string(want) {
			t.Fatalf("message at byte %d: %d bytes, not the ones sent", got, n)
		}
		got += n
		if !cut && got >= total/4 {
			netnstest.SetLink(t, nsA, "m0", false)
			cut = true
		}
	}
	if got != (total+size-1)/size*size {
		t.Fatalf("received %d bytes of %d", got, total)
	}
	for end := time.Now().Add(30 * time.Second); !(cev.saw("10.201.3.2", failed...) && sev.saw("10.201.3.1", failed...)); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("path events: client %v; server %v", cev, sev)
		}
	}
	t.Logf("%d MB; client %d failovers; path events: client %v; server %v", got>>20, c.Stats().PathFailovers, cev, sev)
}

// TestWildcardMultihomeLoopbackPeer: a wildcard endpoint with Multihoming
// on a host with other addresses (namespace a of mhNetns: 10.201.3.1 and
// 10.201.4.1) lists none of them to a peer on loopback: every path would
// cross the same loopback device, so the association stays on one path
// each side (Linux would list them all). The same endpoints dialing the
// host's 10.201.3.1 list the other address, 10.201.4.1: two paths.
func TestWildcardMultihomeLoopbackPeer(t *testing.T) {
	for _, tr := range []Transport{IP, UDP} {
		t.Run(tr.String(), func(t *testing.T) {
			nsA, _ := mhNetns(t)
			cfg := &Config{Transport: tr, Timers: Timers{HeartbeatInterval: 200 * time.Millisecond}, Paths: Paths{Multihoming: true}}
			for _, tc := range []struct {
				dial  string
				paths []netip.Addr
			}{
				{"127.0.0.1:5000", addrs("127.0.0.1")},
				{"10.201.3.1:5000", addrs("10.201.3.1", "10.201.4.1")},
			} {
				var l *Endpoint
				var c *Association
				var err error
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				netnstest.In(t, nsA, func() {
					if l, err = Listen(":5000", cfg); err == nil {
						c, err = Dial(ctx, tc.dial, cfg)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				s := accept(t, l)
				for side, as := range map[string]*Association{"client": c, "server": s} {
					ps := waitPaths(t, as, allActive(len(tc.paths)))
					var got []netip.Addr
					for _, p := range ps {
						got = append(got, p.Addr.IP)
					}
					slices.SortFunc(got, netip.Addr.Compare)
					if !slices.Equal(got, tc.paths) {
						t.Errorf("dial %s: %s paths %v, want %v", tc.dial, side, got, tc.paths)
					}
					// Client and server are the same host: each side's
					// local addresses are its peer's paths.
					var locals []netip.Addr
					for _, a := range as.LocalAddrs() {
						locals = append(locals, a.IP)
					}
					slices.SortFunc(locals, netip.Addr.Compare)
					if !slices.Equal(locals, tc.paths) {
						t.Errorf("dial %s: %s LocalAddrs %v, want %v", tc.dial, side, locals, tc.paths)
					}
				}
				c.Abort("test over")
				l.Close()
				cancel()
			}
		})
	}
}
