package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// burst delivers k packets of one 1000-byte message each to r, from TSN
// *tsn on, and reads them all, as a reader that keeps up does.
func burst(r *rx, tsn *TSN, k int) {
	for range k {
		r.whole(*tsn, 0, uint16(*tsn-1), 1000)
		*tsn++
	}
	r.readAll()
}

// TestRecvBudgetShares: receivers sharing an endpoint RecvBudget advertise
// their own window while one alone receives, and at most the limit divided
// among those receiving (at least 16 KiB of a period each) once several
// do; a chatty association (a small message now and then) does not count,
// and one that stops receiving stops counting within two periods.
func TestRecvBudgetShares(t *testing.T) {
	const limit = 256 << 10
	b := NewRecvBudget(limit)
	rs := make([]*rx, 4)
	tsns := make([]TSN, 4)
	for i := range rs {
		rs[i] = newRx(t, Config{RecvBudget: b, Buffers: api.Buffers{RecvBuffer: 1 << 20}})
		tsns[i] = 1
	}
	at := func(now time.Time) {
		for _, r := range rs {
			r.now = now
		}
	}
	// Alone, a receiver advertises its own window.
	burst(rs[0], &tsns[0], 20)
	if s := rs[0].sack(); s.ARwnd != 1<<20 || b.Active() != 1 {
		t.Fatalf("a lone receiver advertised %d (active %d), want its buffer %d", s.ARwnd, b.Active(), 1<<20)
	}
	// A chatty one: a small message is not receiving.
	rs[3].whole(tsns[3], 0, 0, 100)
	tsns[3]++
	if b.Active() != 1 {
		t.Fatalf("a 100-byte message made %d receivers active", b.Active())
	}
	// Two, then three receivers: a half, then a third each.
	burst(rs[1], &tsns[1], 20)
	if s := rs[1].sack(); s.ARwnd != limit/2 {
		t.Fatalf("with 2 receiving, a_rwnd %d, want %d", s.ARwnd, limit/2)
	}
	burst(rs[2], &tsns[2], 20)
	for i := range 3 {
		burst(rs[i], &tsns[i], 2)
		if s := rs[i].sack(); s.ARwnd != limit/3 {
			t.Fatalf("with 3 receiving, receiver %d advertised %d, want %d", i, s.ARwnd, limit/3)
		}
	}
	// The chatty one is held to the share too while the others receive
	// (its peer could start sending at any time).
	if w := rs[3].e.recv.window(); w != limit/3 {
		t.Fatalf("the chatty receiver's window %d, want the share %d", w, limit/3)
	}
	// Receivers 1 and 2 stop. receiver 0 goes on: one period later they
	// still count (the previous period), two periods later they do not.
	at(epoch.Add(recvBudgetPeriod + time.Millisecond))
	burst(rs[0], &tsns[0], 20)
	if b.Active() != 3 {
		t.Fatalf("one period on, %d active, want 3", b.Active())
	}
	at(epoch.Add(2*recvBudgetPeriod + 2*time.Millisecond))
	burst(rs[0], &tsns[0], 20)
	if s := rs[0].sack(); b.Active() != 1 || s.ARwnd != 1<<20 {
		t.Fatalf("two periods on, %d active and a_rwnd %d, want 1 and %d", b.Active(), s.ARwnd, 1<<20)
	}
}

// TestRecvBudgetLeastShare: with more receivers than the limit serves with
// 16 KiB each, each still advertises 16 KiB (an eighth of a small limit).
func TestRecvBudgetLeastShare(t *testing.T) {
	for _, c := range []struct{ limit, n, want int }{
		{64 << 10, 2, 32 << 10},
		{64 << 10, 8, 8 << 10}, // an eighth of the limit
		{1 << 20, 64, 16 << 10},
		{1 << 20, 8, 128 << 10},
	} {
		b := NewRecvBudget(c.limit)
		b.cur = c.n
		if got := b.Share(); got != c.want {
			t.Errorf("limit %d, %d receiving: share %d, want %d", c.limit, c.n, got, c.want)
		}
	}
}

// TestRecvBudgetOnePacketShare: when one packet fills a receiver's share
// (16 KiB shares, 64 KB packets), the receiver acknowledges it at once
// instead of waiting for a second packet or the delayed SACK timer, and
// advertises the share again once it was read.
func TestRecvBudgetOnePacketShare(t *testing.T) {
	b := NewRecvBudget(32 << 10)
	b.minShare = 8 << 10
	cfg := Config{RecvBudget: b, Buffers: api.Buffers{RecvBuffer: 1 << 20}, MTU: 65535}
	r0, r1 := newRx(t, cfg), newRx(t, cfg)
	// Both receive: the share is 16 KiB.
	r0.whole(1, 0, 0, 16<<10)
	r0.readAll()
	r1.whole(1, 0, 0, 16<<10)
	r1.readAll()
	if s := r1.sack(); s.ARwnd != 16<<10 {
		t.Fatalf("a_rwnd %d, want the 16 KiB share", s.ARwnd)
	}
	// One packet of 16 KiB fills what the peer was told.
	r1.e.HandleData(r1.now, &Data{TSN: 2, SID: 0, SSN: 1, Flags: 3, Payload: make([]byte, 16<<10)})
	r1.e.EndPacket(r1.now)
	if !r1.e.SACKDue(r1.now) {
		t.Fatal("no SACK due after a packet that left the peer no window")
	}
	if s := r1.sack(); s.ARwnd != 16<<10 {
		t.Fatalf("a_rwnd %d, want the 16 KiB share (held data is bounded by the buffer, not the share)", s.ARwnd)
	}
}

// TestWindowUpdateAfterOnePacket: a window update is measured against the
// window the peer has left (the last a_rwnd less what arrived since), not
// the last a_rwnd: a single packet that filled a small window and was read
// makes it due, instead of waiting for the delayed SACK timer.
func TestWindowUpdateAfterOnePacket(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 32 << 10}, MTU: 65535})
	if s := r.sack(); s.ARwnd != 32<<10 {
		t.Fatalf("a_rwnd %d, want %d", s.ARwnd, 32<<10)
	}
	r.e.HandleData(r.now, &Data{TSN: 1, SID: 0, SSN: 0, Flags: 3, Payload: make([]byte, 32<<10)})
	r.e.EndPacket(r.now)
	if r.e.SACKDue(r.now) {
		t.Fatal("SACK due at once after one packet")
	}
	r.readAll()
	if !r.e.SACKDue(r.now) {
		t.Fatal("no window update after the reader emptied a window one packet had filled")
	}
}

// TestRecvBudgetNoAllocs: receiving and acknowledging with a receive
// budget allocates nothing.
func TestRecvBudgetNoAllocs(t *testing.T) {
	b := NewRecvBudget(64 << 10)
	r0, r1 := newRx(t, Config{RecvBudget: b}), newRx(t, Config{RecvBudget: b})
	tsn0, tsn1 := TSN(1), TSN(1)
	buf := make([]byte, 2048)
	sack := make([]byte, 0, 1500)
	msg := make([]byte, 1000)
	step := func(r *rx, tsn *TSN) {
		r.e.HandleData(r.now, &Data{TSN: *tsn, SID: 0, SSN: uint16(*tsn - 1), Flags: 3, Payload: msg})
		r.e.EndPacket(r.now)
		*tsn++
		r.e.Read(buf)
		r.e.AppendSACK(r.now, sack[:0], 1500)
		r.now = r.now.Add(time.Millisecond)
	}
	for range 100 {
		step(r0, &tsn0)
		step(r1, &tsn1)
	}
	if n := testing.AllocsPerRun(1000, func() { step(r0, &tsn0); step(r1, &tsn1) }); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
}
