//go:build linux

package sctp

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// TestPMTUNetnsRouter runs transfers from host a to host b through a
// router namespace whose link towards b has a smaller MTU than both ends
// (1280 against 1500), over raw IP and UDP encapsulation, IPv4 and IPv6:
// path MTU discovery settles on the router's MTU (the router's Packet Too
// Big reports, read from the socket's error queue, shorten the search),
// and the data arrives byte-exact. With "drop" the router's MTU falls
// from 1500 to 1280 in the middle of the transfer: no gap between reads
// lasts longer than a few RTOs.
func TestPMTUNetnsRouter(t *testing.T) {
	nsA, nsR, nsB := netnstest.Routed(t, "usctp-pmtu", 5)
	for _, tr := range []Transport{IP, UDP} {
		for _, fam := range []struct{ name, server string }{{"ipv4", "10.201.6.2"}, {"ipv6", "fd00:201:6::2"}} {
			for _, drop := range []bool{false, true} {
				name := fmt.Sprintf("%v/%s/drop=%v", tr, fam.name, drop)
				t.Run(name, func(t *testing.T) {
					pmtuRouterRun(t, nsA, nsR, nsB, tr, fam.server, drop)
				})
			}
		}
	}
}

func pmtuRouterRun(t *testing.T, nsA, nsR, nsB string, tr Transport, server string, drop bool) {
	if drop {
		netnstest.SetMTU(t, nsR, "v1", 1500)
	} else {
		netnstest.SetMTU(t, nsR, "v1", 1280)
	}
	laddr := server + ":5000"
	if strings.Contains(server, ":") {
		laddr = fmt.Sprintf("[%s]:5000", server)
	}
	cfg := &Config{Transport: tr, Timers: Timers{RTOMin: 200 * time.Millisecond, RTOInitial: 500 * time.Millisecond},
		Buffers: Buffers{SendBuffer: 1 << 20, RecvBuffer: 1 << 20}}
	if tr == UDP {
		cfg.UDPPort = 9899
	}
	var l *Endpoint
	var err error
	inNs(t, nsB, func() { l, err = Listen(laddr, cfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var c *Association
	dcfg := *cfg
	dcfg.UDPPort = 0
	dcfg.RemoteUDPPort = 9899
	inNs(t, nsA, func() { c, err = Dial(ctx, laddr, &dcfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.AcceptContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	settled := func() {
		for start := time.Now(); c.Paths()[0].PMTU != PMTUSearchComplete; time.Sleep(5 * time.Millisecond) { // polling real sockets
			if time.Since(start) > 20*time.Second {
				t.Fatalf("path MTU search not complete after 20 s: %+v", c.Paths())
			}
		}
	}
	settled() // the first probe waits 100 ms
	const total = 8 << 20
	src := make([]byte, total)
	for i := range src {
		src[i] = byte(i*7 + i>>11)
	}
	go func() {
		for off := 0; off < total; {
			n := min(1+(off*13)%9000, total-off)
			if _, err := c.WriteMsg(src[off:off+n], SendInfo{}); err != nil {
				t.Error(err)
				return
			}
			off += n
		}
	}()
	got := make([]byte, 0, total)
	buf := make([]byte, 16000)
	last := time.Now()
	var gap time.Duration
	dropped := false
	for len(got) < total {
		n, _, err := s.ReadMsg(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
		now := time.Now()
		gap = max(gap, now.Sub(last))
		last = now
		if drop && !dropped && len(got) > total/4 {
			dropped = true
			netnstest.SetMTU(t, nsR, "v1", 1280)
		}
	}
	if !bytes.Equal(got, src) {
		t.Fatal("received bytes differ from the sent ones")
	}
	settled()
	paths := c.Paths()
	st := c.Stats()
	t.Logf("PLPMTU %d (%v); longest gap between reads %v; probes %d acked %d lost %d, PTB used %d ignored %d, black holes %d, T3 %d",
		paths[0].MTU, paths[0].PMTU, gap.Round(time.Millisecond), st.PMTUProbes, st.PMTUProbeAcks, st.PMTUProbesLost,
		st.PTBUsed, st.PTBIgnored, st.PMTUBlackHoles, st.T3Expiries)
	over := 40 + 0 // IPv6 header
	if !strings.Contains(server, ":") {
		over = 20
	}
	if tr == UDP {
		over += 8
	}
	if want := 1280 - over; paths[0].MTU > want || paths[0].MTU < want-64 {
		t.Errorf("PLPMTU %d, want about %d (1280 less %d bytes of headers)", paths[0].MTU, want, over)
	}
	if gap > 5*time.Second {
		t.Errorf("a gap of %v between reads", gap)
	}
}
