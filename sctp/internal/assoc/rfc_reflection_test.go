package assoc

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Reflection through the peer's address lists: the addresses an INIT, an
// INIT ACK or an ASCONF names need not be the peer's, so every HEARTBEAT
// to one that never answers lands on a third party (a victim). These
// tests play an attacker that keeps the association alive for ten
// minutes and count the bytes the endpoint sends to the victims against
// the bytes the attacker sent (SCTP packets; and with 48 bytes of IPv6
// and UDP header on each, as on the wire).

// reflection is one attack run.
type reflection struct {
	tc       *testConn
	victims  map[netip.AddrPort]bool
	sent     int // the attacker's SCTP bytes
	packets  int // the attacker's packets
	reflBy   int // SCTP bytes to victims
	reflPkts int
	// probes records, per victim, when each HEARTBEAT went.
	probes map[netip.AddrPort][]time.Time
	all    []time.Time // every HEARTBEAT to a victim, in order
	// lives holds the probes of the victims' earlier paths (deleted and
	// added again).
	lives []map[netip.AddrPort][]time.Time
}

// newLives starts new paths for the victims: their HEARTBEATs count
// apart from the earlier ones.
func (r *reflection) newLives() {
	r.lives = append(r.lives, r.probes)
	r.probes = map[netip.AddrPort][]time.Time{}
}

// wireOverhead is an IPv6 and a UDP header.
const wireOverhead = 48

// reflectionBound is the most bytes victims may get per byte of the
// attacker's (docs/SECURITY.md).
const reflectionBound = 3

func newReflection(tc *testConn) *reflection {
	return &reflection{tc: tc, victims: map[netip.AddrPort]bool{}, probes: map[netip.AddrPort][]time.Time{}}
}

// write sends chunks from the attacker's address with the association's
// tag (vtag 0: an INIT), counting them.
func (r *reflection) write(vtag uint32, chunks ...[]byte) {
	n := commonHeaderLen
	for _, c := range chunks {
		n += len(c)
	}
	r.sent += n
	r.packets++
	r.tc.writePacket(vtag, chunks...)
}

// collect reads what the endpoint sends, counts what goes to victims and
// answers the HEARTBEATs to the attacker's own address.
func (r *reflection) collect() {
	tc := r.tc
	tc.readPackets()
	sent := tc.sent
	tc.sent = nil
	for i := range sent {
		sp := &sent[i]
		if r.victims[sp.to] {
			r.reflBy += len(sp.raw)
			r.reflPkts++
			if sp.p.find(chunk.TypeHeartbeat) != nil {
				r.probes[sp.to] = append(r.probes[sp.to], tc.now)
				r.all = append(r.all, tc.now)
			}
			continue
		}
		if c := sp.p.find(chunk.TypeHeartbeat); c != nil && sp.to == peerAddr {
			r.write(tc.a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
		}
	}
}

// run moves the clock to until, timer by timer, with act called at each
// step before the timers run.
func (r *reflection) run(until time.Time, act func()) {
	tc := r.tc
	for {
		r.collect()
		if act != nil {
			act()
			r.collect()
		}
		if tc.a.closed {
			tc.t.Fatalf("the association ended at %v", tc.now.Sub(t0))
		}
		d := tc.a.nextDeadline()
		if d.IsZero() || d.After(until) {
			tc.now = until
			return
		}
		tc.advanceToTimer()
	}
}

// check asserts the bounds: victims get at most unconfirmedCredit times
// the attacker's bytes, SCTP and wire; at most HB.Max.Burst HEARTBEATs
// to unconfirmed addresses per RTO.Min; each victim at most
// Path.Max.Retrans + 1 HEARTBEATs, spaced by a doubling interval.
func (r *reflection) check(t *testing.T) {
	t.Helper()
	cfg := &r.tc.ep.cfg
	ratio := float64(r.reflBy) / float64(r.sent)
	wire := float64(r.reflBy+wireOverhead*r.reflPkts) / float64(r.sent+wireOverhead*r.packets)
	t.Logf("attacker %d B in %d packets; victims %d B in %d packets: %.2fx (wire %.2fx)",
		r.sent, r.packets, r.reflBy, r.reflPkts, ratio, wire)
	if ratio > reflectionBound || wire > reflectionBound {
		t.Errorf("victims got %.2fx (wire %.2fx) the attacker's bytes, want at most %dx", ratio, wire, reflectionBound)
	}
	for i := 1; i < len(r.all); i++ {
		if gap := r.all[i].Sub(r.all[i-1]); gap < cfg.RTOMin {
			t.Errorf("HEARTBEATs to unconfirmed addresses %v apart at %v, want HB.Max.Burst (1) per RTO",
				gap, r.all[i].Sub(t0))
			break
		}
	}
	for _, life := range append(r.lives, r.probes) {
		for v, ts := range life {
			if len(ts) > cfg.PathMaxRetransmits+1 {
				t.Errorf("%v got %d HEARTBEATs, want at most Path.Max.Retrans+1 = %d", v, len(ts), cfg.PathMaxRetransmits+1)
			}
			for k := 1; k < len(ts); k++ {
				want := min(cfg.RTOInitial<<(k-1), cfg.RTOMax)
				if gap := ts[k].Sub(ts[k-1]); gap < want {
					t.Errorf("%v: HEARTBEAT %d %v after the one before, want at least %v (back-off)", v, k+1, gap, want)
					break
				}
			}
		}
	}
}

// victimAddr returns the i-th victim address.
func victimAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}), peerAddr.Port())
}

// TestReflectionASCONF: RFC 9260 section 5.4 (paraphrase): the HEARTBEATs
// sent at the same time to UNCONFIRMED addresses are limited by
// HB.Max.Burst, and section 8.2: "When the value of this counter exceeds
// the protocol parameter 'Path.Max.Retrans', the endpoint SHOULD mark the
// destination transport address as inactive". A peer holding the AUTH
// key (any peer: the key comes from random values exchanged in clear
// without a shared key) adds 31 victim addresses by ASCONF, and deletes
// and adds them again every minute, for ten minutes: the victims get at
// most 3x the attacker's bytes, each address at most Path.Max.Retrans+1
// HEARTBEATs with an exponential back-off, and the handshake address's
// heartbeat settings stay as configured.
func TestReflectionASCONF(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.ignoreHB = false
	r := newReflection(tc)
	// The handshake, as the attacker sent it: INIT and COOKIE ECHO.
	r.sent, r.packets = int(tc.ep.stats.BytesIn+tc.a.stats.BytesIn), 2
	serial := tc.peerTSN
	cycle := func(typ chunk.ParamType) {
		for first := 0; first < 31; first += 16 {
			var reqs [][]byte
			for i := first; i < min(first+16, 31); i++ {
				r.victims[victimAddr(i)] = true
				reqs = append(reqs, asconfReq(t, typ, uint32(i+1), victimAddr(i).Addr().String()))
			}
			r.write(tc.a.localTag, peer.sign(0, chunk.HMACSHA1, asconfChunk(t, serial, reqs...)))
			serial++
		}
	}
	pp := *tc.a.primaryParams()
	cycle(chunk.ParamAddIPAddress)
	if n := len(tc.a.paths); n != 32 {
		t.Fatalf("%d paths after adding 31 addresses", n)
	}
	if got := *tc.a.primaryParams(); got != pp {
		t.Errorf("after an ASCONF the handshake address's settings are %+v, want %+v", got, pp)
	}
	for _, p := range tc.a.paths[1:] {
		if p.pp != pp {
			t.Errorf("added path %v has settings %+v, want the association's %+v", p.addr, p.pp, pp)
			break
		}
	}
	next := tc.now.Add(time.Minute)
	r.run(t0.Add(10*time.Minute), func() {
		if tc.now.Before(next) {
			return
		}
		next = tc.now.Add(time.Minute)
		cycle(chunk.ParamDeleteIPAddress)
		r.newLives()
		cycle(chunk.ParamAddIPAddress)
	})
	r.check(t)
	if r.reflPkts == 0 {
		t.Fatal("no HEARTBEAT to the added addresses at all")
	}
}

// TestReflectionInitListing: the addresses of an INIT (the endpoint
// listens) or of an INIT ACK (the endpoint dials) get the same bounds: an
// attacker listing 100 addresses (31 kept) draws no burst of HEARTBEATs
// (HB.Max.Burst per association, RFC 9260 section 5.4) and, over ten
// minutes, at most 3x its bytes to the victims.
func TestReflectionInitListing(t *testing.T) {
	params := func(t *testing.T, r *reflection) [][]byte {
		var ps [][]byte
		for i := range 100 {
			if i < maxPeerAddrs-1 {
				r.victims[victimAddr(i)] = true
			}
			ps = append(ps, addrParam(t, victimAddr(i).Addr().String()))
		}
		return ps
	}
	t.Run("listen", func(t *testing.T) {
		cfg := testConfig()
		cfg.Multihoming = true
		tc := newTestEndpoint(t, cfg)
		r := newReflection(tc)
		r.write(0, tc.peerInit(params(t, r)...))
		_, c := tc.wantChunk(chunk.TypeInitAck)
		in := initValue(t, c)
		r.write(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
		tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
		if tc.a == nil {
			t.Fatal("no association")
		}
		if len(tc.a.paths) != maxPeerAddrs {
			t.Errorf("%d paths, want at most %d", len(tc.a.paths), maxPeerAddrs)
		}
		r.run(t0.Add(10*time.Minute), nil)
		r.check(t)
	})
	t.Run("dial", func(t *testing.T) {
		cfg := testConfig()
		cfg.Multihoming = true
		tc := newTestEndpoint(t, cfg)
		r := newReflection(tc)
		a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
		if err != nil {
			t.Fatal(err)
		}
		tc.a = a
		tc.wantChunk(chunk.TypeInit)
		ps := append(params(t, r), param(chunk.ParamStateCookie, []byte("peer cookie")))
		r.write(tc.a.localTag, initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, ps...))
		tc.wantChunk(chunk.TypeCookieEcho)
		r.write(tc.a.localTag, chunkOf(chunk.TypeCookieAck, 0, nil))
		tc.wantState(stateEstablished)
		if len(tc.a.paths) != maxPeerAddrs {
			t.Errorf("%d paths, want at most %d", len(tc.a.paths), maxPeerAddrs)
		}
		r.run(t0.Add(10*time.Minute), nil)
		r.check(t)
	})
}

// TestUnconfirmedAddressStopsAfterPathMaxRetrans: RFC 9260 section 5.4:
// "At the expiration of the RTO timer, the error counter of any path that
// was probed but not CONFIRMED is incremented by one and subjected to path
// failure detection, as defined in Section 8.2." An address that never
// answers gets Path.Max.Retrans+1 HEARTBEATs, each after twice the wait of
// the one before, and none after; it stays unconfirmed, and an ICMP
// unreachable for its HEARTBEAT counts as the error at once.
func TestUnconfirmedAddressStopsAfterPathMaxRetrans(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	r := newReflection(tc)
	r.victims[peerAddr2] = true
	r.write(0, tc.peerInit(addrParam(t, peerAddr2.Addr().String())))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	r.write(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	// The peer sends data now and then, so credit is no limit here.
	tsn := tc.peerTSN
	next := tc.now
	r.run(t0.Add(30*time.Minute), func() {
		if tc.now.Before(next) {
			return
		}
		next = tc.now.Add(10 * time.Second)
		r.write(tc.a.localTag, dataChunk(0x03, tsn, 0, uint16(tsn-tc.peerTSN), 0, make([]byte, 200)))
		tsn++
	})
	r.check(t)
	got := r.probes[peerAddr2]
	if len(got) != tc.ep.cfg.PathMaxRetransmits+1 {
		t.Fatalf("%d HEARTBEATs to the unanswering address, want Path.Max.Retrans+1 = %d", len(got), tc.ep.cfg.PathMaxRetransmits+1)
	}
	if ps := tc.a.Paths(nil); ps[1].State != api.PathUnconfirmed {
		t.Fatalf("path %+v, want unconfirmed", ps[1])
	}
}

// TestUnconfirmedAddressICMPUnreachable: RFC 9260 appendix C, ICMP9: an
// implementation "MAY move the destination to the unreachable state or,
// alternatively, increment the path error counter". An ICMP destination
// unreachable quoting an unconfirmed address's HEARTBEAT counts as that
// HEARTBEAT's error at once; an address whose every HEARTBEAT draws one
// gets Path.Max.Retrans+1 of them, with the back-off, and none after.
func TestUnconfirmedAddressICMPUnreachable(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	tc.writePacket(0, tc.peerInit(addrParam(t, peerAddr2.Addr().String())))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	var sent []time.Time
	end := tc.now.Add(30 * time.Minute)
	for tc.now.Before(end) {
		tc.readPackets()
		for _, sp := range tc.sent {
			if sp.to == peerAddr2 && sp.p.find(chunk.TypeHeartbeat) != nil {
				sent = append(sent, tc.now)
				errs := tc.a.paths[1].errors
				tc.ep.Notice(tc.now, Notice{To: peerAddr2, Kind: NoticeUnreachable, Quote: sp.raw})
				if got := tc.a.paths[1].errors; got != errs+1 {
					t.Fatalf("ICMP unreachable for HEARTBEAT %d: errors %d -> %d, want counted at once", len(sent), errs, got)
				}
			}
			if c := sp.p.find(chunk.TypeHeartbeat); c != nil && sp.to == peerAddr {
				tc.writeChunks(chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
			}
		}
		tc.sent = nil
		d := tc.a.nextDeadline()
		if d.IsZero() || d.After(end) {
			break
		}
		tc.advanceToTimer()
	}
	if n := tc.ep.cfg.PathMaxRetransmits + 1; len(sent) != n {
		t.Fatalf("%d HEARTBEATs to an address answering each with ICMP unreachable, want %d", len(sent), n)
	}
	for k := 1; k < len(sent); k++ {
		if gap, want := sent[k].Sub(sent[k-1]), tc.ep.cfg.RTOInitial<<(k-1); gap < min(want, tc.ep.cfg.RTOMax) {
			t.Fatalf("HEARTBEAT %d %v after the one before, want at least %v", k+1, gap, want)
		}
	}
	if tc.a.paths[1].state != api.PathUnconfirmed || tc.a.closed {
		t.Fatalf("path %v, closed %v", tc.a.paths[1].state, tc.a.closed)
	}
}
