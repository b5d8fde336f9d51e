package assoc

import (
	"testing"
	"time"
)

// batchPackets returns a core pair past its first DATA (acknowledged at
// once) and the packets of n one-packet messages side 0 sends next.
func batchPackets(t testing.TB, n int) (*corePair, [][]byte) {
	t.Helper()
	p := newCorePair(t)
	for range 21 { // past the first DATA, then pairs
		p.send(make([]byte, 1000))
		p.pump()
	}
	var pkts [][]byte
	for range n {
		if err := p.as[0].send(p.now, 0, 0, false, make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
		for {
			po, ok := p.eps[0].Poll(p.now, nil)
			if !ok {
				break
			}
			pkts = append(pkts, po.Data)
		}
	}
	if len(pkts) != n {
		t.Fatalf("%d packets for %d messages", len(pkts), n)
	}
	return p, pkts
}

// pollAll polls ep until it has nothing to send.
func pollAll(ep *Endpoint, now time.Time) {
	for {
		if _, ok := ep.Poll(now, nil); !ok {
			return
		}
	}
}

// sackBatch sends n one-packet messages from side 0 and hands the packets
// to side 1 in one receive batch (batch) or one by one, dropping the
// packet of index lose (-1: none); it returns the SACKs side 1 sends.
func sackBatch(t testing.TB, n, lose int, batch bool) int {
	t.Helper()
	p, pkts := batchPackets(t, n)
	before := p.as[1].data.eng.Stats().SACKsSent
	if batch {
		p.eps[1].BeginBatch()
	}
	for i, b := range pkts {
		if i == lose {
			continue
		}
		p.eps[1].receive(p.now, p.addrs[0], b)
		pollAll(p.eps[1], p.now) // what the shell collects after each packet
	}
	if batch {
		p.eps[1].EndBatch()
	}
	pollAll(p.eps[1], p.now)
	return int(p.as[1].data.eng.Stats().SACKsSent - before)
}

// RFC 9260 section 6.2: "An acknowledgement SHOULD be generated for at least
// every second packet". The packets of one receive batch count as one
// reception event: one SACK at its end. A gap still gets its SACK at once
// for every packet (6.7), so fast retransmit counts every miss indication.
func TestSACKPerBatch(t *testing.T) {
	// Four packets: what the initial cwnd lets out at once.
	if got := sackBatch(t, 4, -1, false); got != 2 {
		t.Errorf("4 packets one by one: %d SACKs, want 2", got)
	}
	if got := sackBatch(t, 4, -1, true); got != 1 {
		t.Errorf("4 packets in one batch: %d SACKs, want 1", got)
	}
	if got := sackBatch(t, 1, -1, true); got != 0 {
		t.Errorf("1 packet in a batch: %d SACKs, want 0 (delayed)", got)
	}
	// Packet 1 lost: packets 2 and 3 each report the gap at once.
	if got := sackBatch(t, 4, 1, true); got != 2 {
		t.Errorf("a gap in a batch: %d SACKs, want one per packet after it (2)", got)
	}
}

// The receiving end of a transfer owes nothing after an in-order DATA
// packet of a batch (its SACK waits for EndBatch), so it stays off the
// ready list and the shell's collect after each packet builds nothing; a
// packet after a gap owes its SACK at once and lists it.
func TestReceiverOffReadyList(t *testing.T) {
	p, pkts := batchPackets(t, 4)
	r := p.as[1]
	p.eps[1].BeginBatch()
	for i, b := range pkts {
		if i == 1 {
			continue // lost: packets 2 and 3 report the gap
		}
		p.eps[1].receive(p.now, p.addrs[0], b)
		if want := i > 1; r.ready != want {
			t.Fatalf("after packet %d: ready %v, want %v", i, r.ready, want)
		}
		if r.ready && r.nothingToSend(p.now) {
			t.Fatalf("after packet %d: listed with nothing to send", i)
		}
		for {
			if _, ok := p.eps[1].Poll(p.now, nil); !ok {
				break
			}
		}
	}
	p.eps[1].EndBatch()
	if r.ready || !r.nothingToSend(p.now) {
		t.Fatalf("after the batch: ready %v, nothing to send %v; the gap's SACKs went at once", r.ready, r.nothingToSend(p.now))
	}
}

// A batch ended with EndFullBatch (the read filled the reader's buffers)
// holds its SACK for the next batch, and the endpoint's deadline moves to
// a millisecond later at most: if no batch comes, the timer sends it.
func TestSACKHeldByFullBatch(t *testing.T) {
	p, pkts := batchPackets(t, 4)
	sent := func() uint64 { return p.as[1].data.eng.Stats().SACKsSent }
	before := sent()
	p.eps[1].BeginBatch()
	for _, b := range pkts {
		p.eps[1].receive(p.now, p.addrs[0], b)
	}
	p.eps[1].EndFullBatch(p.now)
	pollAll(p.eps[1], p.now)
	if n := sent() - before; n != 0 {
		t.Fatalf("%d SACKs after a full batch, want it held", n)
	}
	d := p.eps[1].Deadline()
	if d.IsZero() || d.After(p.now.Add(time.Millisecond)) {
		t.Fatalf("endpoint deadline %v, want within a millisecond", d.Sub(p.now))
	}
	p.now = d
	p.eps[1].Expire(p.now)
	pollAll(p.eps[1], p.now)
	if n := sent() - before; n != 1 {
		t.Fatalf("%d SACKs after the hold ran out, want 1", n)
	}
}
