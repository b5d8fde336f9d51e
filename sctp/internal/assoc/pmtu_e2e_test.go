package assoc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// newPMTUPair is newPair with path MTU discovery on both sides and an
// upper bound of mtu (an SCTP packet size).
func newPMTUPair(t testing.TB, seed uint64, link simnet.LinkConfig, mtu int) *pair {
	p := newPair(t, seed, link)
	for i := range 2 {
		cfg := Config{Rand: newTestRand(byte(seed) + byte(i)), MTU: mtu, OutStreams: 64, InStreams: 64,
			Buffers: api.Buffers{RecvBuffer: 1 << 20, SendBuffer: 1 << 20}, PMTUDiscovery: true}
		p.eps[i] = NewEndpoint(cfg, p.now)
	}
	return p
}

// pmtuBulk sends total bytes from side 0 to side 1 in messages of 1 to
// 20000 bytes on one ordered stream, calling during(now) at every step,
// and checks that side 1 reads them byte-exact. It returns the longest
// time without progress of the receiver.
func pmtuBulk(t *testing.T, p *pair, total int, during func(now time.Time, received int)) time.Duration {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	src := make([]byte, total)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	var got []byte
	sent := 0
	rbuf := make([]byte, 64<<10)
	last := p.now
	var stall time.Duration
	for len(got) < total {
		for sent < total {
			n := min(1+rng.IntN(20000), total-sent)
			err := p.as[0].send(p.now, 0, 0, false, src[sent:sent+n])
			if errors.Is(err, api.ErrWouldBlock) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			sent += n
		}
		for p.as[1].data.eng.Readable() {
			n, _, err := p.as[1].read(rbuf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rbuf[:n]...)
			stall = max(stall, p.now.Sub(last))
			last = p.now
		}
		if during != nil {
			during(p.now, len(got))
		}
		if p.as[0].closed || p.as[1].closed {
			t.Fatalf("association ended at %v", p.now.Sub(t0))
		}
		if !p.step() {
			t.Fatal("network idle before the end")
		}
		if p.now.Sub(t0) > time.Hour {
			t.Fatalf("%d of %d bytes after an hour", len(got), total)
		}
	}
	if !bytes.Equal(got, src) {
		t.Fatal("received bytes differ from the sent ones")
	}
	return stall
}

// converge runs the pair (connected) until side 0's path reaches
// SEARCH_COMPLETE or ERROR and returns the PLPMTU and the time it took
// from the association's start.
func (p *pair) converge(t *testing.T, start time.Time) (int, api.PMTUState, time.Duration) {
	t.Helper()
	for p.now.Sub(start) < 10*time.Minute {
		pi := p.as[0].Paths(nil)[0]
		if pi.PMTU == api.PMTUSearchComplete || pi.PMTU == api.PMTUError {
			return pi.MTU, pi.PMTU, p.now.Sub(start)
		}
		if !p.step() {
			t.Fatal("idle")
		}
	}
	t.Fatal("no convergence in 10 minutes")
	return 0, 0, 0
}

// TestPMTUConverges: the search ends at the largest packet each path
// carries, within a few round trips when the path carries the upper
// bound, and the converged size and time make the README table.
func TestPMTUConverges(t *testing.T) {
	const ov = maxOverhead
	for _, tt := range []struct {
		name     string
		linkMTU  int // IP MTU of the link
		max      int // Config.MTU (packet size)
		ptb      bool
		wantLo   int
		wantHi   int
		maxTime  time.Duration
		blackMax int // packet size above which the link drops silently (0: linkMTU)
	}{
		{"1500", 1500, 1500 - ov, false, 1500 - ov, 1500 - ov, 200 * time.Millisecond, 0},
		// Without PTBs each size given up costs MAX_PROBES probe timers
		// of at least 1 s (RFC 8899 section 5.1.1): two sizes here.
		{"1280", 1280, 1500 - ov, false, 1280 - ov - 16, 1280 - ov, 7 * time.Second, 0},
		{"1280-ptb", 1280, 1500 - ov, true, 1280 - ov, 1280 - ov, 500 * time.Millisecond, 0},
		{"9000", 9000, 9000 - ov, false, 9000 - ov, 9000 - ov, 200 * time.Millisecond, 0},
		{"9000-of-65535", 9000, 65535 - ov, false, 9000 - ov - 16, 9000 - ov, 7 * time.Second, 0},
		{"9000-of-65535-ptb", 9000, 65535 - ov, true, 9000 - ov, 9000 - ov, 500 * time.Millisecond, 0},
		{"blackhole-1400", 1500, 1500 - ov, false, 1400 - ov - 16, 1400 - ov, 10 * time.Second, 1400 - ov},
	} {
		t.Run(tt.name, func(t *testing.T) {
			link := simnet.LinkConfig{Delay: 10 * time.Millisecond, MTU: tt.linkMTU - ov, PTB: tt.ptb, QuoteLen: 64}
			if tt.blackMax > 0 {
				link.MTU = tt.blackMax
			}
			p := newPMTUPair(t, 1, link, tt.max)
			start := p.now
			p.connect()
			mtu, st, d := p.converge(t, start)
			t.Logf("| %s | %d | %v | %v | %d probes, %d lost, %d PTB used |", tt.name, mtu, st, d.Round(time.Millisecond),
				p.as[0].stats.PMTUProbes, p.as[0].stats.PMTUProbesLost, p.as[0].stats.PTBUsed)
			if st != api.PMTUSearchComplete || mtu < tt.wantLo || mtu > tt.wantHi {
				t.Fatalf("converged to %d (%v), want %d..%d", mtu, st, tt.wantLo, tt.wantHi)
			}
			if d > tt.maxTime {
				t.Fatalf("converged in %v, want at most %v", d, tt.maxTime)
			}
			// Data then flows in packets of the PLPMTU, none lost to the MTU.
			before := p.net.Link(p.links[0]).Stats.TooBig
			pmtuBulk(t, p, 2<<20, nil)
			if n := p.net.Link(p.links[0]).Stats.TooBig - before; n > 0 {
				t.Fatalf("%d data packets over the link MTU", n)
			}
			if p.as[0].stats.AssocsFailed+p.as[1].stats.AssocsFailed > 0 {
				t.Fatal("association failed")
			}
		})
	}
}

// TestPMTUDropMidTransfer: the link MTU falls from 1500 to 1280 in the
// middle of a transfer, with and without Packet Too Big reports. The
// transfer finishes byte-exact, new packets follow the smaller PLPMTU,
// and no stall lasts longer than a few RTOs.
func TestPMTUDropMidTransfer(t *testing.T) {
	const ov = maxOverhead
	for _, ptb := range []bool{false, true} {
		t.Run(fmt.Sprintf("ptb=%v", ptb), func(t *testing.T) {
			link := simnet.LinkConfig{Delay: 10 * time.Millisecond, MTU: 1500 - ov, PTB: ptb, QuoteLen: 64}
			p := newPMTUPair(t, 2, link, 1500-ov)
			p.connect()
			dropped := false
			var dropAt time.Time
			stall := pmtuBulk(t, p, 8<<20, func(now time.Time, received int) {
				if !dropped && received > 2<<20 {
					dropped, dropAt = true, now
					l := link
					l.MTU = 1280 - ov
					p.net.Link(p.links[0]).SetConfig(l)
				}
			})
			mtu, _, _ := p.converge(t, p.now)
			pi := p.as[0].Paths(nil)[0]
			s := p.as[0].stats
			t.Logf("drop at %v; end %v; longest stall %v; PLPMTU %d (%v); black holes %d, PTB used %d, T3 %d, fragmented %d",
				dropAt.Sub(t0), p.now.Sub(t0), stall, pi.MTU, pi.PMTU, s.PMTUBlackHoles, s.PTBUsed,
				p.eps[0].Stats().T3Expiries, p.net.Link(p.links[0]).Stats.Fragmented)
			if !dropped {
				t.Fatal("the transfer ended before the drop")
			}
			if mtu != 1280-ov {
				t.Fatalf("PLPMTU %d, want the new link's %d", mtu, 1280-ov)
			}
			if stall > 5*time.Second {
				t.Fatalf("stall of %v", stall)
			}
			if ptb && s.PTBUsed == 0 {
				t.Fatal("no Packet Too Big used")
			}
		})
	}
}

// TestPMTUForgedPTBIgnored: Packet Too Big reports with a wrong
// verification tag, a TSN that is not outstanding, a probe nonce that is
// not ours, or an absurd MTU (below BASE_PLPMTU, or not below the packet
// they quote) change nothing and are counted. RFC 8899 section 4.6.1:
// "The PL MUST check the protocol information in the quoted packet
// carried in an ICMP PTB message payload to validate the message
// originated from the sending node."
func TestPMTUForgedPTBIgnored(t *testing.T) {
	const ov = maxOverhead
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond}
	p := newPMTUPair(t, 3, link, 1500-ov)
	start := p.now
	p.connect()
	mtu, _, _ := p.converge(t, start)
	if mtu != 1500-ov {
		t.Fatalf("PLPMTU %d", mtu)
	}
	a := p.as[0]
	// A packet of ours as the network would quote it: common header and a
	// DATA chunk with a TSN.
	quote := func(tag uint32, tsn uint32) []byte {
		b := appendHeader(nil, a.key.localPort, a.key.peerPort, tag)
		return append(b, dataChunk(0x03, tsn, 0, 0, 0, make([]byte, 32))...)
	}
	next := uint32(a.data.eng.NextTSN())
	// Some DATA in flight, so that a TSN can be outstanding.
	if err := a.send(p.now, 0, 0, false, make([]byte, 4000)); err != nil {
		t.Fatal(err)
	}
	p.flush()
	out := next // outstanding now
	hb := func(nonce uint64) []byte {
		b := appendHeader(nil, a.key.localPort, a.key.peerPort, a.peerTag)
		info := make([]byte, 16)
		for i := range 8 {
			info[i] = byte(nonce >> (56 - 8*i))
		}
		return appendHeartbeat(b, info)
	}
	ep := p.eps[0]
	to := p.addrs[1]
	ignored0, dropped0 := a.stats.PTBIgnored, ep.stats.NoticesDropped
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag^1, out), MTU: 1280})      // wrong tag
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag, out+100000), MTU: 1280}) // TSN not outstanding
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag, out-1), MTU: 1280})      // TSN already acknowledged
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag, out), MTU: 500})         // below BASE_PLPMTU
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag, out), MTU: 9000})        // not below the PLPMTU
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag, out)})                   // no MTU
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: hb(0x1234), MTU: 1280})                   // not our probe
	if got := ep.stats.NoticesDropped - dropped0; got != 1 {
		t.Fatalf("NoticesDropped %d, want 1 (the wrong tag)", got)
	}
	if got := a.stats.PTBIgnored - ignored0; got != 6 {
		t.Fatalf("PTBIgnored %d, want 6", got)
	}
	if pi := a.Paths(nil)[0]; pi.MTU != 1500-ov || a.stats.PTBUsed != 0 {
		t.Fatalf("PLPMTU %d, PTBUsed %d after forged reports", pi.MTU, a.stats.PTBUsed)
	}
	// A valid one is used: the PLPMTU drops to the reported size at once.
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(a.peerTag, out), MTU: 1400})
	if pi := a.Paths(nil)[0]; pi.MTU != 1400-ov || a.stats.PTBUsed != 1 {
		t.Fatalf("PLPMTU %d, PTBUsed %d after a valid report", pi.MTU, a.stats.PTBUsed)
	}
	var ev []Event
	for e := ep.NextEvent(); e != nil; e = ep.NextEvent() {
		ev = append(ev, *e)
	}
	found := false
	for _, e := range ev {
		found = found || e.Kind == api.EventPathMTU && e.MTU == 1400-ov
	}
	if !found {
		t.Fatalf("no api.EventPathMTU with the new PLPMTU in %v", ev)
	}
}

// TestPMTULostProbesKeepAssociation: a path that carries nothing above
// BASE_PLPMTU loses every larger probe; the association neither fails
// nor counts errors for them, and data keeps flowing.
func TestPMTULostProbesKeepAssociation(t *testing.T) {
	const ov = maxOverhead
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, MTU: 1200 - ov}
	p := newPMTUPair(t, 4, link, 9000-ov)
	start := p.now
	p.connect()
	mtu, st, _ := p.converge(t, start)
	if mtu != 1200-ov || st != api.PMTUSearchComplete {
		t.Fatalf("PLPMTU %d (%v)", mtu, st)
	}
	if p.as[0].errCount != 0 {
		t.Fatalf("error count %d from lost probes", p.as[0].errCount)
	}
	pmtuBulk(t, p, 1<<20, nil)
}

// TestPMTULostProbeSentAgain: a probe lost on a path that carries its
// size goes once more about two round trips later, with the same nonce,
// and the search ends then instead of after the PROBE_TIMER (at least a
// second, RFC 8899 section 5.1.1) during which the path would carry only
// BASE_PLPMTU. The copy comes at least one round trip after the probe
// (section 3: probes outside congestion control are "at least one RTT"
// apart), is not counted lost, and comes once per PROBE_TIMER: when it
// is lost too, the timer expires as before.
func TestPMTULostProbeSentAgain(t *testing.T) {
	const ov = maxOverhead
	const max = 9000 - ov
	for _, tt := range []struct {
		name    string
		lose    int // copies of the upper bound's probe lost
		maxTime time.Duration
		probes  int // probes sent by side 0: BASE_PLPMTU's, then the upper bound's
		lost    int // PROBE_TIMER expiries
	}{
		{"first lost", 1, 300 * time.Millisecond, 3, 0},
		{"both lost", 2, 1500 * time.Millisecond, 4, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			link := simnet.LinkConfig{Delay: 10 * time.Millisecond}
			p := newPMTUPair(t, 5, link, max)
			var arrivals []time.Time
			p.admit = func(to int, data []byte) bool {
				if to != 1 || len(data) != max {
					return true
				}
				arrivals = append(arrivals, p.now)
				return len(arrivals) > tt.lose
			}
			start := p.now
			p.connect()
			mtu, st, d := p.converge(t, start)
			s := p.as[0].stats
			t.Logf("PLPMTU %d (%v) after %v; %d probes, %d lost; probes of %d bytes at %v",
				mtu, st, d.Round(time.Millisecond), s.PMTUProbes, s.PMTUProbesLost, max, arrivals)
			if mtu != max || st != api.PMTUSearchComplete {
				t.Fatalf("PLPMTU %d (%v), want %d", mtu, st, max)
			}
			if d > tt.maxTime {
				t.Fatalf("search took %v, want at most %v", d, tt.maxTime)
			}
			if int(s.PMTUProbes) != tt.probes || int(s.PMTUProbesLost) != tt.lost {
				t.Fatalf("%d probes, %d lost; want %d, %d", s.PMTUProbes, s.PMTUProbesLost, tt.probes, tt.lost)
			}
			if len(arrivals) < 2 || arrivals[1].Sub(arrivals[0]) < 2*link.Delay {
				t.Fatalf("probes of %d bytes arrived at %v: the copy less than a round trip after the probe", max, arrivals)
			}
		})
	}
}

// FuzzPTB feeds Packet Too Big reports with arbitrary quotes (after a
// common header with the association's ports and, optionally, its tag)
// and MTUs: nothing panics, and the PLPMTU never rises nor leaves
// BASE_PLPMTU..Config.MTU.
func FuzzPTB(f *testing.F) {
	f.Add(true, 1280, dataChunk(0x03, 1, 0, 0, 0, make([]byte, 8)))
	f.Add(true, 900, []byte{4, 0, 0, 20, 0, 1, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(false, 70000, []byte{0, 0})
	f.Fuzz(func(t *testing.T, tagged bool, mtu int, rest []byte) {
		cfg := testConfig()
		cfg.PMTUDiscovery = true
		tc := newTestEndpoint(t, cfg)
		tc.connectClient()
		a := tc.a
		before := a.Paths(nil)[0].MTU
		tag := a.peerTag ^ 1
		if tagged {
			tag = a.peerTag
		}
		quote := append(appendHeader(nil, tc.lport, tc.pport, tag), rest...)
		tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeTooBig, Quote: quote, MTU: mtu})
		after := a.Paths(nil)[0].MTU
		if after > before || after < a.ep.cfg.PMTUBase || after > a.ep.cfg.MTU {
			t.Fatalf("PLPMTU %d -> %d (base %d, max %d)", before, after, a.ep.cfg.PMTUBase, a.ep.cfg.MTU)
		}
	})
}
