//go:build linux

package sctp

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// mhNetns makes two namespaces joined by two veth pairs on two subnets:
//
//	a: m0 10.201.3.1/24   m1 10.201.4.1/24
//	b: m0 10.201.3.2/24   m1 10.201.4.2/24
func mhNetns(t *testing.T) (a, b string) {
	t.Helper()
	a, b = netnstest.Pair(t, "usctp-mh", "m0", 3)
	netnstest.Link(t, a, b, "m1", 4)
	return a, b
}

// pathEvents collects an association's EventPeerAddrChange events.
type pathEvents struct {
	mu  sync.Mutex
	evs []Event
	wg  sync.WaitGroup
}

func watchPaths(as *Association) *pathEvents {
	pe := &pathEvents{}
	pe.wg.Add(1)
	go func() {
		defer pe.wg.Done()
		for ev := range as.Events() {
			if ev.Kind == EventPeerAddrChange {
				pe.mu.Lock()
				pe.evs = append(pe.evs, ev)
				pe.mu.Unlock()
			}
		}
	}()
	return pe
}

// saw reports whether ip went to one of the states.
func (pe *pathEvents) saw(ip string, states ...PathState) bool {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	for _, ev := range pe.evs {
		for _, s := range states {
			if ev.Addr.IP == netip.MustParseAddr(ip) && ev.PathState == s {
				return true
			}
		}
	}
	return false
}

func (pe *pathEvents) String() string {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	s := ""
	for _, ev := range pe.evs {
		s += fmt.Sprintf("%v %v; ", ev.Addr.IP, ev.PathState)
	}
	return s
}

// TestMultihomeNetnsFailover: two usctp endpoints in two namespaces joined
// by two links, each endpoint with an address on each, over raw IP and
// UDP encapsulation. During a bulk transfer (32 MB; 4 MB under the race
// detector) the client's end of the primary link is taken down (`ip link
// set m0 down`): the transfer completes on the other path, byte for byte
// in order, and both ends report the cut path's state changes as
// EventPeerAddrChange. In the restore variant the link comes back midway:
// the path is reported active again and the primary takes the data back.
//
// The same over IPv6 (both links' fd00:201:s:: addresses: ip6, udp6) and
// dual-stack (the primary link's IPv4 address and the other link's IPv6
// one at each end: udp46 over one dual-stack UDP socket, ip46 over a
// raw IPv4 and a raw IPv6 socket, netio.DualIPConn).
func TestMultihomeNetnsFailover(t *testing.T) {
	for _, fam := range []mhFamily{mhIPv4, mhIPv6, mhDual} {
		for _, tr := range []Transport{IP, UDP} {
			for _, restore := range []bool{false, true} {
				name := tr.String() + fam.suffix() + "/cut"
				if restore {
					name = tr.String() + fam.suffix() + "/cut-restore"
				}
				t.Run(name, func(t *testing.T) { multihomeFailover(t, tr, fam, restore) })
			}
		}
	}
}

// mhFamily is the address family of the two links' addresses in a
// failover test.
type mhFamily int

const (
	mhIPv4 mhFamily = iota // both links IPv4
	mhIPv6                 // both links IPv6
	mhDual                 // link m0 IPv4, link m1 IPv6
)

// suffix names the family in a subtest's name (none for IPv4).
func (f mhFamily) suffix() string { return [...]string{"", "6", "46"}[f] }

// addr returns the address of end host (1: a, 2: b) on link m<link>.
func (f mhFamily) addr(link, host int) netip.Addr {
	if f == mhIPv6 || f == mhDual && link == 1 {
		return netip.MustParseAddr(fmt.Sprintf("fd00:201:%d::%d", 3+link, host))
	}
	return netip.MustParseAddr(fmt.Sprintf("10.201.%d.%d", 3+link, host))
}

func multihomeFailover(t *testing.T, tr Transport, fam mhFamily, restore bool) {
	// The addresses of the link the test cuts: the client's primary (the
	// server's address on m0) and the client's own there (the server's
	// primary).
	cutPeer, cutLocal := fam.addr(0, 2).String(), fam.addr(0, 1).String()
	nsA, nsB := mhNetns(t)
	// Quick failover, and patience with a loaded machine: RTO.Min 200 ms
	// (a telecom setting), HB.interval 300 ms, and Association.Max.Retrans
	// 100, since spurious timeouts on a busy host (the race detector
	// slows both ends tenfold) count against the association too, and so
	// do the second path's while the server's SACKs still go to the cut
	// one (until it sees the cut by its heartbeats, or when SACKs follow
	// the DATA's source, RFC 9260 section 6.4).
	cfg := &Config{Transport: tr,
		Timers: Timers{RTOInitial: 500 * time.Millisecond, RTOMin: 200 * time.Millisecond,
			RTOMax: 2 * time.Second, HeartbeatInterval: 300 * time.Millisecond, MaxRetransmits: 100},
		Buffers: Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20}}
	var l *Endpoint
	var err error
	netnstest.In(t, nsB, func() {
		l, err = ListenAddrs([]netip.Addr{fam.addr(0, 2), fam.addr(1, 2)}, 5000, cfg)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dc := *cfg
	dc.LocalAddrs = []netip.Addr{fam.addr(0, 1), fam.addr(1, 1)}
	var c *Association
	netnstest.In(t, nsA, func() { c, err = DialAddrs(ctx, []netip.Addr{fam.addr(0, 2), fam.addr(1, 2)}, 5000, &dc) })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.AcceptContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cev, sev := watchPaths(c), watchPaths(s)
	waitPaths(t, c, allActive(2))
	waitPaths(t, s, allActive(2))

	total := 32 << 20
	if testsupport.RaceEnabled || testing.Short() {
		total = 4 << 20
	}
	const size = 16000
	go func() {
		if !writeSeeded(t, c, uint64(tr), total, size) {
			return
		}
		// Close once the server, which only receives, saw the cut by its
		// heartbeats (a path's failure is reported while the association
		// lives; on a slow host the data may all be through before its
		// next heartbeat to the cut path is due), and in the restore
		// variant once the client saw the restored path answer again.
		for end := time.Now().Add(30 * time.Second); !sev.saw(cutLocal, failed...) && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		if restore {
			for end := time.Now().Add(30 * time.Second); !cev.saw(cutPeer, PathActive) && time.Now().Before(end); {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if err := c.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	}()
	r := rand.New(rand.NewPCG(18, uint64(tr)))
	buf, want := make([]byte, 2*size), make([]byte, size)
	got, cut, back := 0, false, false
	start := time.Now()
	var cutAt time.Time
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
			netnstest.SetLink(t, nsA, "m0", false) // the primary path's link
			cut, cutAt = true, time.Now()
		}
		if restore && !back && got >= total/2 {
			// Both ends see the cut before the link comes back (the
			// server, whose SACKs follow the client's DATA to the other
			// path, only by its heartbeats: reading stops meanwhile).
			waitFor(t, func() bool { return cev.saw(cutPeer, failed...) && sev.saw(cutLocal, failed...) })
			netnstest.SetLink(t, nsA, "m0", true)
			back = true
		}
	}
	el := time.Since(start)
	if got != (total+size-1)/size*size {
		t.Fatalf("received %d bytes of %d", got, total)
	}
	cs := c.Stats()
	t.Logf("%d MB in %v (cut after %v), client: %d retransmits, %d T3, %d failovers; paths %+v",
		got>>20, el.Round(time.Millisecond), cutAt.Sub(start).Round(time.Millisecond), cs.Retransmits, cs.T3Expiries, cs.PathFailovers, c.Paths())
	// Events travel to the watchers on goroutines of their own: wait
	// for them (each side reports the cut path's failure, and in the
	// restore variant the client its return).
	for end := time.Now().Add(30 * time.Second); !(cev.saw(cutPeer, failed...) && sev.saw(cutLocal, failed...) &&
		(!restore || cev.saw(cutPeer, PathActive))); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("path events: client %v; server %v; client paths %+v", cev, sev, c.Paths())
		}
	}
	t.Logf("client path events: %v; server: %v", cev, sev)
}

// The states a cut path goes to.
var failed = []PathState{PathPotentiallyFailed, PathInactive}

// readWhole reads one whole message from s into buf (partial delivery may
// hand it over in parts) and returns its length, 0 at the end of the
// association. got and c only name the failure.
func readWhole(t *testing.T, s, c *Association, buf []byte, got int) int {
	t.Helper()
	n := 0
	for {
		m, info, err := s.ReadMsg(buf[n:])
		if err == io.EOF && n == 0 {
			return 0
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v (client paths %+v)", got, err, c.Paths())
		}
		n += m
		if info.EOR || n >= len(buf) {
			return n
		}
	}
}

// writeSeeded writes total bytes to c on stream 1 in messages of size
// bytes drawn from a generator seeded with seed (the reader draws the same
// to check them), and reports whether every write succeeded.
func writeSeeded(t *testing.T, c *Association, seed uint64, total, size int) bool {
	r := rand.New(rand.NewPCG(18, seed))
	msg := make([]byte, size)
	for sent := 0; sent < total; sent += size {
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
			t.Error(err)
			return false
		}
	}
	return true
}
