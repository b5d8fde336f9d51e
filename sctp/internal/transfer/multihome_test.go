package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// mhPair is a pair whose side A has two paths to B, over two independent
// links (one per direction and path: link 2i carries A→B on path i, link
// 2i+1 B→A). B answers on the path the last packet came in on (RFC 9260
// section 6.4: "An endpoint SHOULD transmit reply chunks (e.g., SACK,
// HEARTBEAT ACK, etc.) to the same destination transport address from
// which it received the DATA or control chunk to which it is replying").
// The test plays the association's part for A (mhPair.manage): a path
// whose T3-rtx expired is potentially failed at once (RFC 7829 with
// PFMR 0) and new data moves to the other one.
type mhPair struct {
	n    *simnet.Network
	a, b *side
	now  time.Time
	// Per path of A: DATA packets sent, and when the first was sent
	// after the test's mark.
	dataPkts  [2]int
	firstData [2]time.Time
	mark      time.Time
	failovers int
	noManage  bool
}

func newMHPair(t testing.TB, seed uint64, links [2]simnet.LinkConfig) *mhPair {
	cfgA := Config{LocalTSN: 1000, OutStreams: 2, InStreams: 2}
	cfgB := Config{LocalTSN: 5000, OutStreams: 2, InStreams: 2}
	cfgA.PeerTSN, cfgB.PeerTSN = cfgB.LocalTSN, cfgA.LocalTSN
	cfgA.PeerRwnd, cfgB.PeerRwnd = api.DefaultBuffer, api.DefaultBuffer
	p := &mhPair{n: simnet.New(seed), now: epoch}
	p.a = newSide(t, "A", cfgA, seed*3+1)
	p.b = newSide(t, "B", cfgB, seed*3+2)
	for _, l := range links {
		p.n.AddLink(l)
		p.n.AddLink(l)
	}
	if i, err := p.a.e.AddPath(false); err != nil || i != 1 {
		t.Fatalf("AddPath: %d, %v", i, err)
	}
	p.b.out = 1
	return p
}

// flushA sends A's packets, each on the path AppendData chose.
func (p *mhPair) flushA() {
	s := p.a
	for i := 0; ; i++ {
		pkt := s.pkt[:0]
		room := s.e.path.MTU() - 12
		if s.e.SACKDue(p.now) {
			pkt = s.e.AppendSACK(p.now, pkt, room)
		}
		pkt, n := s.e.AppendData(p.now, pkt, room-len(pkt))
		if len(pkt) == 0 {
			return
		}
		dest := s.e.DataDest()
		if n > 0 {
			p.dataPkts[dest]++
			if !p.mark.IsZero() && p.firstData[dest].IsZero() {
				p.firstData[dest] = p.now
			}
		}
		p.n.Send(p.now, 2*dest, pkt)
		if i > 10000 {
			s.t.Fatal("A: flush does not terminate")
		}
	}
}

// manage is the association's path management for A: PF at the first
// T3-rtx expiry of the primary, and data to the other path.
func (p *mhPair) manage() {
	e := p.a.e
	f := e.FaultedPaths()
	if p.noManage || f&(1<<e.Primary()) == 0 {
		return
	}
	other := 1 - e.Primary()
	e.SetPathDown(e.Primary(), true)
	e.SetPathDown(other, false)
	e.SetPrimary(other)
	p.failovers++
	if testing.Verbose() {
		p.a.t.Logf("%v: failover to path %d: %s; p0 flight %d t3 %v p1 flight %d t3 %v", p.now.Sub(epoch), other, p.a.state(),
			e.PathAt(0).flight, e.PathAt(0).t3.Sub(epoch), e.PathAt(1).flight, e.PathAt(1).t3.Sub(epoch))
	}
}

// run drives the pair until stop reports true or the limit passes.
func (p *mhPair) run(t testing.TB, limit time.Duration, stop func() bool) {
	t.Helper()
	end := p.now.Add(limit)
	for steps := 0; ; steps++ {
		if d := p.a.e.Deadline(); !d.IsZero() && !d.After(p.now) {
			p.a.e.OnTimeout(p.now)
			p.manage()
		}
		if d := p.b.e.Deadline(); !d.IsZero() && !d.After(p.now) {
			p.b.e.OnTimeout(p.now)
		}
		for pk := p.n.Pop(p.now); pk != nil; pk = p.n.Pop(p.now) {
			if pk.Link%2 == 0 {
				p.b.out = pk.Link + 1 // answer on the same path
				p.b.input(p.now, pk.Data)
				p.n.Free(pk)
				p.b.flush(p.now, p.n)
			} else {
				p.a.input(p.now, pk.Data)
				p.n.Free(pk)
				p.flushA()
			}
		}
		for _, s := range []*side{p.a, p.b} {
			s.produce()
			s.consume()
			if s.err != nil {
				t.Fatal(s.err)
			}
		}
		p.flushA()
		p.b.flush(p.now, p.n)
		if steps%64 == 0 {
			checkInvariants(t, &p.a.e.send)
			checkPathFlight(t, &p.a.e.send)
		}
		if stop() {
			return
		}
		next, ok := p.n.Next()
		for _, s := range []*side{p.a, p.b} {
			if d := s.e.Deadline(); !d.IsZero() && (!ok || d.Before(next)) {
				next, ok = d, true
			}
		}
		if !ok {
			t.Fatalf("stalled at %v: A %s; B %s", p.now.Sub(epoch), p.a.state(), p.b.state())
		}
		if next.After(p.now) {
			p.now = next
		}
		if p.now.After(end) {
			t.Fatalf("not done after %v: A %s; B %s", limit, p.a.state(), p.b.state())
		}
	}
}

func (p *mhPair) done() bool {
	return p.a.toSend <= 0 && p.a.pending == nil && p.a.e.SendIdle() && p.b.recvMsgs == p.a.sentMsgs
}

// checkPathFlight checks that the paths' flight sizes add up to the bytes
// of the chunks in flight, each counted on the path it was last sent on.
func checkPathFlight(t testing.TB, s *sender) {
	t.Helper()
	want := make([]int, len(s.paths.list))
	for tsn := s.ledger.cumAck + 1; tsn != s.ledger.nextTSN; tsn++ {
		if r := s.ledger.rec(tsn); r.state == recInFlight {
			want[r.marks>>pathShift] += s.ledger.size(r)
		}
	}
	for i, p := range s.paths.list {
		if p.flight != want[i] {
			t.Fatalf("path %d: flight %d, chunks in flight on it %d", i, p.flight, want[i])
		}
		if p.flight == 0 && p != s.paths.primary && !p.t3.IsZero() {
			t.Fatalf("path %d: T3-rtx runs with nothing in flight", i)
		}
	}
}

var mhLinks = [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 15 * time.Millisecond}}

// TestMultihomePrimaryCutForGood cuts the primary link for good in the
// middle of a transfer: every message arrives once and in order (the
// side's checks), the retransmissions move to the other path, and new
// data flows there within two RTOs of the cut.
func TestMultihomePrimaryCutForGood(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		p := newMHPair(t, seed, mhLinks)
		p.a.toSend = 2 << 20
		p.run(t, time.Minute, func() bool { return p.a.e.stats.BytesAcked > 512<<10 })
		if p.dataPkts[1] != 0 {
			t.Fatalf("seed %d: %d DATA packets on path 1 before the cut", seed, p.dataPkts[1])
		}
		rto := p.a.e.path.RTO()
		p.n.Link(0).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
		p.n.Link(1).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
		p.mark = p.now
		p.run(t, 5*time.Minute, p.done)
		failover := p.firstData[1].Sub(p.mark)
		t.Logf("seed %d: RTO %v at the cut, data on path 1 after %v; moved retransmissions %d, T3 %d",
			seed, rto, failover, p.a.e.stats.RetransmitsMoved, p.a.e.stats.T3Expiries)
		if p.failovers != 1 || p.a.e.Primary() != 1 {
			t.Fatalf("seed %d: %d failovers, primary %d", seed, p.failovers, p.a.e.Primary())
		}
		if failover <= 0 || failover > 2*rto {
			t.Errorf("seed %d: data on path 1 %v after the cut, RTO %v", seed, failover, rto)
		}
		if p.a.e.stats.RetransmitsMoved == 0 {
			t.Errorf("seed %d: no retransmission moved to path 1", seed)
		}
		if p.a.e.PathAt(0).flight != 0 {
			t.Errorf("seed %d: %d bytes still in flight on the dead path", seed, p.a.e.PathAt(0).flight)
		}
	}
}

// TestMultihomeCutAndRestore cuts the primary, lets the transfer fail
// over, restores the link and makes path 0 the primary again (what a
// HEARTBEAT ACK on it lets the association do): data goes back to path 0,
// and every message arrives once and in order.
func TestMultihomeCutAndRestore(t *testing.T) {
	p := newMHPair(t, 7, mhLinks)
	p.a.toSend = 3 << 20
	p.run(t, time.Minute, func() bool { return p.a.e.stats.BytesAcked > 256<<10 })
	p.n.Link(0).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
	p.mark = p.now
	p.run(t, time.Minute, func() bool { return p.failovers == 1 && p.a.e.stats.BytesAcked > 1<<20 })
	p.n.Link(0).SetConfig(mhLinks[0])
	before := p.dataPkts[0]
	e := p.a.e
	e.SetPathDown(0, false)
	e.SetPrimary(0)
	p.run(t, 5*time.Minute, p.done)
	if p.dataPkts[0] == before {
		t.Fatal("no DATA on path 0 after it was restored")
	}
	t.Logf("path 0: %d DATA packets (%d after the restore), path 1: %d; stats %+v",
		p.dataPkts[0], p.dataPkts[0]-before, p.dataPkts[1], e.stats)
}

// TestMultihomeNoSpuriousFailoverAtLoss: 5% random loss on the primary
// (both directions) is repaired on the primary by fast retransmission and
// never moves the data (no T3-rtx, so no path error).
func TestMultihomeNoSpuriousFailoverAtLoss(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		lossy := mhLinks
		lossy[0].Loss = 0.05
		p := newMHPair(t, seed, lossy)
		p.a.toSend = 1 << 20
		p.run(t, 5*time.Minute, p.done)
		t.Logf("seed %d: fast rtx %d, T3 %d, path 1 packets %d", seed, p.a.e.stats.FastRetransmit, p.a.e.stats.T3Expiries, p.dataPkts[1])
		if p.failovers != 0 || p.dataPkts[1] != 0 {
			t.Errorf("seed %d: %d failovers, %d DATA packets on path 1", seed, p.failovers, p.dataPkts[1])
		}
	}
}

// TestMultihomeAsymmetricLoss: the return link of the primary loses 30%
// of the SACKs, the forward link none; the transfer completes on the
// primary and every message arrives once, in order.
func TestMultihomeAsymmetricLoss(t *testing.T) {
	p := newMHPair(t, 3, mhLinks)
	p.n.Link(1).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 0.3})
	p.a.toSend = 1 << 20
	p.run(t, 5*time.Minute, p.done)
	t.Logf("failovers %d, path 1 packets %d, stats %+v", p.failovers, p.dataPkts[1], p.a.e.stats)
}

// TestMultihomeT3RetransmitsToAlternate: "Furthermore, when its peer is
// multi-homed, an endpoint SHOULD try to retransmit a chunk that timed out
// to an active destination transport address that is different from the
// last destination address to which the DATA chunk was sent." (RFC 9260
// section 6.4.1). Without the association moving the primary, the
// chunks the primary's T3-rtx marks go to path 1, new data stays on path 0,
// and only path 0's T3 counts an error on path 0.
func TestMultihomeT3RetransmitsToAlternate(t *testing.T) {
	x := newTx(t, Config{LocalTSN: 1, MTU: 1200})
	if _, err := x.e.AddPath(false); err != nil {
		t.Fatal(err)
	}
	x.queue(3, 1000)
	got := x.flush()
	if len(got) != 3 || x.e.DataDest() != 0 {
		t.Fatalf("sent %v to path %d", got, x.e.DataDest())
	}
	x.advance(x.e.path.RTO())
	if !x.e.OnTimeout(x.now) {
		t.Fatal("T3-rtx did not expire")
	}
	if f := x.e.FaultedPaths(); f != 1 {
		t.Fatalf("faulted paths %b, want path 0", f)
	}
	if x.e.PathAt(0).ErrorCount() != 1 || x.e.PathAt(1).ErrorCount() != 0 {
		t.Fatalf("error counts %d, %d", x.e.PathAt(0).ErrorCount(), x.e.PathAt(1).ErrorCount())
	}
	ds := x.packet()
	if len(ds) == 0 || x.e.DataDest() != 1 || ds[0].TSN != 1 {
		t.Fatalf("retransmission: %d chunks to path %d, want TSN 1 to path 1", len(ds), x.e.DataDest())
	}
	if f := x.e.PathAt(1).flight; f == 0 || x.e.PathAt(0).flight != 0 {
		t.Fatalf("flight: path 0 %d, path 1 %d", x.e.PathAt(0).flight, f)
	}
	// The acknowledgement of TSN 1 credits path 1 and clears its timer.
	x.mustSACK(1, 1<<20)
	if x.e.PathAt(1).flight != 0 || !x.e.PathAt(1).t3.IsZero() {
		t.Fatalf("path 1 after its chunk was acknowledged: flight %d, T3 %v", x.e.PathAt(1).flight, x.e.PathAt(1).t3)
	}
	checkPathFlight(t, &x.e.send)
}

// TestMultihomeAddPathBound: an engine keeps at most maxPaths paths.
func TestMultihomeAddPathBound(t *testing.T) {
	e, err := New(Config{LocalTSN: 1, OutStreams: 1, InStreams: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < maxPaths; i++ {
		if j, err := e.AddPath(i%2 == 0); err != nil || j != i {
			t.Fatalf("AddPath %d: %d, %v", i, j, err)
		}
	}
	if _, err := e.AddPath(false); err != errTooManyPaths {
		t.Fatalf("AddPath beyond %d: %v", maxPaths, err)
	}
	if e.PathAt(maxPaths) != nil || e.PathAt(-1) != nil || e.SetPrimary(maxPaths) {
		t.Fatal("out-of-range path index accepted")
	}
}

// TestMultihomeCutBothRestoreOne cuts both links, lets both paths time
// out (the data moves between them on each expiry, as the association's
// PF rule makes it), then restores path 1 only: the transfer completes
// on it, every message once and in order.
func TestMultihomeCutBothRestoreOne(t *testing.T) {
	p := newMHPair(t, 5, mhLinks)
	p.a.toSend = 1 << 20
	p.run(t, time.Minute, func() bool { return p.a.e.stats.BytesAcked > 256<<10 })
	for l := range 4 {
		p.n.Link(l).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
	}
	p.run(t, time.Minute, func() bool { return p.a.e.stats.T3Expiries >= 3 })
	p.n.Link(2).SetConfig(mhLinks[1])
	p.n.Link(3).SetConfig(mhLinks[1])
	restored := p.now
	p.run(t, 10*time.Minute, p.done)
	if p.a.e.Primary() != 1 {
		t.Fatalf("primary %d after path 1 came back", p.a.e.Primary())
	}
	t.Logf("T3 %d, failovers %d, done %v after path 1 came back", p.a.e.stats.T3Expiries, p.failovers, p.now.Sub(restored))
}

// TestMultihomeSlowPrimaryFastAlternate: a 100 ms primary and a 10 ms
// alternate; the primary is cut and the data moves to the fast path
// within two RTOs.
func TestMultihomeSlowPrimaryFastAlternate(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 50 * time.Millisecond}, {Delay: 5 * time.Millisecond}}
	p := newMHPair(t, 9, links)
	p.a.toSend = 2 << 20
	p.run(t, time.Minute, func() bool { return p.a.e.stats.BytesAcked > 512<<10 })
	rto := p.a.e.path.RTO()
	p.n.Link(0).SetConfig(simnet.LinkConfig{Delay: 50 * time.Millisecond, Loss: 1})
	p.mark = p.now
	p.run(t, 5*time.Minute, p.done)
	failover := p.firstData[1].Sub(p.mark)
	t.Logf("RTO %v, data on path 1 after %v", rto, failover)
	if failover <= 0 || failover > 2*rto {
		t.Errorf("data on path 1 %v after the cut, RTO %v", failover, rto)
	}
}

// TestMultihomeReturnCutDuplicates: only the primary's return link is cut,
// so DATA still arrives on it and the retransmissions on path 1 are
// duplicates at the receiver: counted (Stats.DupTSNs), never delivered
// twice (the receiving side checks every message's sequence).
func TestMultihomeReturnCutDuplicates(t *testing.T) {
	p := newMHPair(t, 11, mhLinks)
	p.a.toSend = 1 << 20
	p.run(t, time.Minute, func() bool { return p.a.e.stats.BytesAcked > 256<<10 })
	p.n.Link(1).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
	p.run(t, 5*time.Minute, p.done)
	if p.b.e.stats.DupTSNs == 0 {
		t.Fatal("no duplicate TSN counted at the receiver")
	}
	t.Logf("receiver duplicates %d, messages %d/%d, failovers %d", p.b.e.stats.DupTSNs, p.b.recvMsgs, p.a.sentMsgs, p.failovers)
}

// RFC 9260 section 6.3.2 R2: "Whenever all outstanding data sent to an
// address have been acknowledged, turn off the T3-rtx timer of that
// address." The primary's timer expiring while nothing sent to it is
// outstanding (its data moved to it from a failed path, whose chunks are
// marked for retransmission and not yet resent) is not a timeout of that
// path: no error counted, no back-off, no one-packet recovery.
func TestMultihomePrimaryT3WithNothingInFlightIsNoFault(t *testing.T) {
	x := newTx(t, Config{LocalTSN: 1, MTU: 1200})
	if _, err := x.e.AddPath(false); err != nil {
		t.Fatal(err)
	}
	x.queue(3, 1000)
	if got := x.flush(); len(got) != 3 || x.e.DataDest() != 0 {
		t.Fatalf("sent %v to path %d", got, x.e.DataDest())
	}
	// Path 0 fails while path 1 is down too: its chunks stay on it
	// (SetPathDown has no alternate), and path 1 takes the data.
	x.e.SetPathDown(1, true)
	x.e.SetPathDown(0, true)
	x.e.SetPrimary(1)
	x.e.send.loss.t3 = x.now.Add(x.e.PathAt(1).RTO()) // a timer of path 1 still running
	rto := x.e.PathAt(1).RTO()
	x.advance(rto)
	x.e.OnTimeout(x.now)
	if f := x.e.FaultedPaths(); f&2 != 0 {
		t.Errorf("path 1 faulted with nothing outstanding on it (faulted %b)", f)
	}
	if n := x.e.PathAt(1).ErrorCount(); n != 0 || x.e.PathAt(1).RTO() != rto || x.e.send.loss.t3Recovery {
		t.Errorf("path 1: %d errors, RTO %v (was %v), T3 recovery %v", n, x.e.PathAt(1).RTO(), rto, x.e.send.loss.t3Recovery)
	}
}

// RFC 9260 section 6.4.1: "the endpoint SHOULD try to retransmit a chunk
// that timed out to an active destination transport address that is
// different from the last destination address to which the DATA chunk was
// sent." Chunks sent to a failed path while no other path was up (the
// T3-rtx retransmission had nowhere else to go) move to the first path
// that comes up again, rather than wait for the failed path's backed-off
// timer.
func TestMultihomePathUpTakesChunksOfDownPaths(t *testing.T) {
	x := newTx(t, Config{LocalTSN: 1, MTU: 1200})
	if _, err := x.e.AddPath(false); err != nil {
		t.Fatal(err)
	}
	x.queue(3, 1000)
	if got := x.flush(); len(got) != 3 {
		t.Fatalf("sent %v", got)
	}
	x.e.SetPathDown(1, true)
	x.e.SetPathDown(0, true) // no alternate up: the chunks stay in flight on 0
	if x.e.PathAt(0).flight == 0 {
		t.Fatal("no flight on path 0")
	}
	x.e.SetPathDown(1, false)
	ds := x.packet()
	if len(ds) == 0 || x.e.DataDest() != 1 || ds[0].TSN != 1 {
		t.Fatalf("after path 1 came up: %d chunks to path %d, want TSN 1 on path 1", len(ds), x.e.DataDest())
	}
	if x.e.PathAt(0).flight != 0 {
		t.Errorf("path 0 still has %d bytes in flight", x.e.PathAt(0).flight)
	}
	checkPathFlight(t, &x.e.send)
}
