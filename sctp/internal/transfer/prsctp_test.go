package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// prTx is a sending engine with PR-SCTP negotiated.
func prTx(t testing.TB, cfg Config) *tx {
	cfg.PartialReliability = true
	return newTx(t, cfg)
}

func (x *tx) queuePR(sid uint16, unordered bool, size int, pr PR) {
	x.t.Helper()
	if err := x.e.Queue(x.now, sid, 0, unordered, make([]byte, size), pr); err != nil {
		x.t.Fatal(err)
	}
}

// forward returns the FORWARD-TSN the sender owes now, parsed, or ok false.
func (x *tx) forward() (cum TSN, entries []chunk.StreamSSN, ok bool) {
	x.t.Helper()
	if !x.e.ForwardDue() {
		return 0, nil, false
	}
	b := x.e.AppendForward(x.now, nil, 1200)
	it := chunk.Chunks(b)
	c, ok := it.Next()
	if !ok {
		x.t.Fatalf("AppendForward wrote nothing")
	}
	f, err := chunk.ParseForwardTSN(c)
	if err != nil {
		x.t.Fatal(err)
	}
	for i := range f.Streams.Len() {
		entries = append(entries, f.Streams.At(i))
	}
	return f.NewCumTSN, entries, true
}

func (x *tx) failed() []Failed {
	var out []Failed
	x.e.TakeFailed(func(f Failed) { out = append(out, f) })
	return out
}

// TestPRTTLQueued: a message whose lifetime ends before it gets a TSN is
// dropped without one, reported unsent, and needs no FORWARD-TSN.
func TestPRTTLQueued(t *testing.T) {
	// RFC 3758 section 4.1 TR3: "Before assigning a TSN to any message,
	// the SCTP sender MUST evaluate the lifetime of that message. If it is
	// expired, the SCTP sender MUST NOT assign a TSN to that message, but
	// instead, SHOULD issue a notification to the upper layer and abandon
	// the message."
	x := prTx(t, Config{})
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 50})
	x.queue(1, 100) // reliable, behind it
	x.advance(60 * time.Millisecond)
	tsns := x.flush()
	if len(tsns) != 1 || tsns[0] != 1000 {
		t.Fatalf("sent %v, want only the reliable message at TSN 1000", tsns)
	}
	f := x.failed()
	if len(f) != 1 || f[0].Sent || f[0].Policy != PRTTL || len(f[0].Payload) != 100 {
		t.Fatalf("failed %+v", f)
	}
	if _, _, ok := x.forward(); ok {
		t.Fatal("FORWARD-TSN due for a message that never had a TSN")
	}
	st := x.e.stats
	if st.PRAbandoned[PRTTL] != 1 || st.PRAbandonedBytes[PRTTL] != 100 || st.PRAbandonedUnsent != 1 {
		t.Fatalf("stats %+v", st)
	}
	x.mustSACK(1000, api.DefaultBuffer)
	if !x.e.SendIdle() {
		t.Fatal("sender not idle")
	}
	checkInvariants(t, &x.e.send)
}

// TestPRTTLInFlight: expired messages in flight are abandoned at the next
// SACK; the Advanced.Peer.Ack.Point moves over them and the FORWARD-TSN
// names the highest abandoned SSN of the stream.
func TestPRTTLInFlight(t *testing.T) {
	x := prTx(t, Config{})
	for range 3 {
		x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 100})
	}
	x.queuePR(1, true, 100, PR{Policy: PRTTL, Value: 100}) // unordered: no entry
	if tsns := x.flush(); len(tsns) != 4 {
		t.Fatalf("sent %v", tsns)
	}
	x.advance(150 * time.Millisecond)
	// The first message arrived; the others were lost and have expired.
	x.mustSACK(1000, api.DefaultBuffer)
	checkInvariants(t, &x.e.send)
	if got := x.e.send.pr.advancedPeerAckPoint(x.e.send.ledger.cumAck); got != 1003 {
		t.Fatalf("Advanced.Peer.Ack.Point %d, want 1003", got)
	}
	// RFC 3758 section 3.5 C3: "If, after step C1 and C2, the
	// "Advanced.Peer.Ack.Point" is greater than the Cumulative TSN ACK
	// carried in the received SACK, the data sender MUST send the data
	// receiver a FORWARD TSN chunk containing the latest value of the
	// "Advanced.Peer.Ack.Point"." Section 3.2, of the Stream Sequence field:
	// "This field MUST NOT report TSN's corresponding to DATA chunks that are
	// marked as unordered."
	cum, es, ok := x.forward()
	if !ok || cum != 1003 || len(es) != 1 || es[0] != (chunk.StreamSSN{SID: 0, SSN: 2}) {
		t.Fatalf("FORWARD-TSN %v %v %v", cum, es, ok)
	}
	if f := x.failed(); len(f) != 3 || !f[0].Sent {
		t.Fatalf("failed %+v", f)
	}
	// C5: "If a FORWARD TSN is sent, the sender MUST assure that at least
	// one T3-rtx timer is running."
	if x.e.send.loss.t3.IsZero() {
		t.Fatal("T3-rtx not running after FORWARD-TSN")
	}
	if x.e.ForwardDue() {
		t.Fatal("FORWARD-TSN still due right after sending it")
	}
	// A SACK sent before the FORWARD-TSN arrived (less than an RTT after
	// it) does not repeat it (F2's implementation note); the FORWARD-TSN
	// was lost: a SACK an RTT later makes it due again (C3).
	x.mustSACK(1000, api.DefaultBuffer)
	if x.e.ForwardDue() {
		t.Fatal("duplicate FORWARD-TSN due within an RTT")
	}
	x.advance(time.Second)
	x.mustSACK(1000, api.DefaultBuffer)
	if _, _, ok := x.forward(); !ok {
		t.Fatal("FORWARD-TSN not due again")
	}
	x.mustSACK(1003, api.DefaultBuffer)
	if !x.e.SendIdle() || x.e.ForwardDue() {
		t.Fatal("not idle after the peer moved past the abandoned TSNs")
	}
	checkInvariants(t, &x.e.send)
}

// TestPRAdvancedPeerAckPointStopsAtLive: the point only moves over
// abandoned chunks (C2); a live chunk in between holds it back.
func TestPRAdvancedPeerAckPointStopsAtLive(t *testing.T) {
	x := prTx(t, Config{})
	x.queue(1, 100)                                        // 1000 reliable
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 10}) // 1001
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 10}) // 1002
	x.queue(1, 100)                                        // 1003 reliable
	x.flush()
	x.advance(20 * time.Millisecond)
	x.mustSACK(999, api.DefaultBuffer, 4, 4) // only 1003 arrived
	if got := x.e.send.pr.advancedPeerAckPoint(x.e.send.ledger.cumAck); got != 999 {
		t.Fatalf("Advanced.Peer.Ack.Point %d, want 999 (1000 is live)", got)
	}
	if x.e.ForwardDue() {
		t.Fatal("FORWARD-TSN due while the point did not move")
	}
	// C1: "If (Advanced.Peer.Ack.Point < SackCumAck), then update
	// Advanced.Peer.Ack.Point to be equal to SackCumAck." C2 then moves it
	// over 1001 and 1002 but not over the gap-acked 1003, which is not
	// abandoned.
	x.mustSACK(1000, api.DefaultBuffer, 3, 3)
	if got := x.e.send.pr.advancedPeerAckPoint(x.e.send.ledger.cumAck); got != 1002 {
		t.Fatalf("Advanced.Peer.Ack.Point %d, want 1002", got)
	}
	cum, es, ok := x.forward()
	if !ok || cum != 1002 || len(es) != 1 || es[0].SSN != 2 {
		t.Fatalf("FORWARD-TSN %v %v %v", cum, es, ok)
	}
	checkInvariants(t, &x.e.send)
}

// TestPRRtxLimitT3: a message with a retransmission limit of 1 is
// retransmitted once, then abandoned at the next T3-rtx expiry.
func TestPRRtxLimitT3(t *testing.T) {
	x := prTx(t, Config{})
	x.queuePR(2, false, 100, PR{Policy: PRRtx, Value: 1})
	x.flush()
	x.advance(time.Second)
	x.e.OnTimeout(x.now)
	if got := x.flush(); len(got) != 1 {
		t.Fatalf("retransmitted %v, want one", got)
	}
	x.advance(2 * time.Second)
	x.e.OnTimeout(x.now)
	if got := x.flush(); len(got) != 0 {
		t.Fatalf("retransmitted %v beyond the limit", got)
	}
	cum, es, ok := x.forward()
	if !ok || cum != 1000 || len(es) != 1 || es[0] != (chunk.StreamSSN{SID: 2, SSN: 0}) {
		t.Fatalf("FORWARD-TSN %v %v %v", cum, es, ok)
	}
	if x.e.stats.Retransmits != 1 || x.e.stats.PRAbandoned[PRRtx] != 1 {
		t.Fatalf("stats %+v", x.e.stats)
	}
	checkInvariants(t, &x.e.send)
}

// TestPRRtxZeroFastRetransmit: a limit of 0 abandons a chunk the moment
// fast retransmit would resend it; the cwnd reduction still happens (F5).
func TestPRRtxZeroFastRetransmit(t *testing.T) {
	x := prTx(t, Config{})
	for range 5 {
		x.queuePR(0, false, 100, PR{Policy: PRRtx, Value: 0})
	}
	x.flush()
	for i := uint16(2); i <= 4; i++ {
		x.mustSACK(999, api.DefaultBuffer, 2, i)
	}
	// RFC 3758 section 3.5 F5: "If the decision to "abandon" a chunk is
	// made, no matter how such a decision is made, the appropriate
	// congestion adjustment MUST be made as specified in RFC 2960 if the
	// chunk would have been marked for retransmission later".
	if x.e.stats.FastRecoveries != 1 || !x.e.path.inFastRecovery {
		t.Fatalf("no fast recovery (cwnd adjustment) for the abandoned chunk")
	}
	if got := x.flush(); len(got) != 0 {
		t.Fatalf("retransmitted %v", got)
	}
	cum, _, ok := x.forward()
	if !ok || cum != 1000 {
		t.Fatalf("FORWARD-TSN %v %v", cum, ok)
	}
	checkInvariants(t, &x.e.send)
}

// TestPRFragmentedMessage: all fragments of a message go together (A3),
// including those not yet cut, which never get TSNs.
func TestPRFragmentedMessage(t *testing.T) {
	x := prTx(t, Config{PeerRwnd: 1500})
	x.queuePR(0, false, 4000, PR{Policy: PRTTL, Value: 100})
	x.queue(1, 100)
	if got := x.flush(); len(got) != 1 {
		t.Fatalf("sent %v, want the first fragment only (peer window)", got)
	}
	x.advance(200 * time.Millisecond)
	// RFC 3758 section 3.5 A3: "When a TSN is "abandoned", if it is part of
	// a fragmented message, all other TSN's within that fragmented message
	// MUST be abandoned at the same time."
	x.mustSACK(999, api.DefaultBuffer)
	// The part never cut takes one TSN, abandoned unsent (see
	// sender.placeholder).
	cum, es, ok := x.forward()
	if !ok || cum != 1001 || len(es) != 1 || es[0].SSN != 0 {
		t.Fatalf("FORWARD-TSN %v %v %v", cum, es, ok)
	}
	got := x.flush()
	if len(got) != 1 || got[0] != 1002 {
		t.Fatalf("sent %v, want the reliable message at 1002", got)
	}
	x.mustSACK(1002, api.DefaultBuffer)
	if !x.e.SendIdle() {
		t.Fatalf("not idle: buffered %d", x.e.send.queue.buffered)
	}
	checkInvariants(t, &x.e.send)
}

// TestPRIForwardTSN: with I-DATA every abandoned message is listed by
// stream, U flag and MID (RFC 8260 section 2.3.1).
func TestPRIForwardTSN(t *testing.T) {
	x := prTx(t, Config{Interleaved: true})
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 10})
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 10})
	x.queuePR(3, true, 100, PR{Policy: PRTTL, Value: 10})
	pkt, n := x.e.AppendData(x.now, nil, 1400)
	if n != 3 || len(pkt) == 0 {
		t.Fatalf("sent %d chunks", n)
	}
	x.advance(20 * time.Millisecond)
	x.mustSACK(999, api.DefaultBuffer)
	b := x.e.AppendForward(x.now, nil, 1200)
	it := chunk.Chunks(b)
	c, _ := it.Next()
	f, err := chunk.ParseIForwardTSN(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []chunk.StreamMID{{SID: 0, MID: 1}, {SID: 3, Unordered: true, MID: 0}}
	if f.NewCumTSN != 1002 || f.Streams.Len() != len(want) {
		t.Fatalf("I-FORWARD-TSN cum %d, %d entries", f.NewCumTSN, f.Streams.Len())
	}
	for i, w := range want {
		if got := f.Streams.At(i); got != w {
			t.Fatalf("entry %d %+v, want %+v", i, got, w)
		}
	}
}

// TestPRForwardTSNFitsMTU: when the entries do not fit, the point sent is
// lowered to the last TSN whose entries fit (C4).
func TestPRForwardTSNFitsMTU(t *testing.T) {
	x := prTx(t, Config{OutStreams: 100, InStreams: 1})
	for sid := range uint16(100) {
		x.queuePR(sid, false, 16, PR{Policy: PRTTL, Value: 10})
	}
	x.flush()
	x.advance(20 * time.Millisecond)
	x.mustSACK(999, api.DefaultBuffer)
	b := x.e.AppendForward(x.now, nil, 8+4*10)
	it := chunk.Chunks(b)
	c, _ := it.Next()
	f, err := chunk.ParseForwardTSN(c)
	if err != nil {
		t.Fatal(err)
	}
	if f.NewCumTSN != 1009 || f.Streams.Len() != 10 {
		t.Fatalf("cum %d with %d entries, want 1009 with 10", f.NewCumTSN, f.Streams.Len())
	}
	x.mustSACK(1009, api.DefaultBuffer)
	if cum, _, ok := x.forward(); !ok || cum != 1099 {
		t.Fatalf("second FORWARD-TSN %d %v", cum, ok)
	}
}

// TestPRPriority: a high-priority message that finds the buffer full
// abandons queued messages of lower priority (RFC 7496 section 3.2), never
// reliable ones.
func TestPRPriority(t *testing.T) {
	x := prTx(t, Config{Buffers: api.Buffers{SendBuffer: 1000}})
	x.queue(1, 300) // reliable
	x.queuePR(0, false, 300, PR{Policy: PRPrio, Value: 5})
	x.queuePR(0, false, 300, PR{Policy: PRPrio, Value: 7})
	if err := x.e.Queue(x.now, 0, 0, false, make([]byte, 300), PR{Policy: PRPrio, Value: 9}); err != ErrWouldBlock {
		t.Fatalf("less important message: %v, want ErrWouldBlock", err)
	}
	x.queuePR(0, false, 300, PR{Policy: PRPrio, Value: 1})
	f := x.failed()
	if len(f) != 1 || f[0].Sent {
		t.Fatalf("failed %+v, want the value 7 message", f)
	}
	// Abandoning both priority messages would not make room for 800
	// bytes: nothing is abandoned.
	if err := x.e.Queue(x.now, 0, 0, false, make([]byte, 800), PR{Policy: PRPrio, Value: 0}); err != ErrWouldBlock {
		t.Fatalf("no room even after abandoning: %v", err)
	}
	if f := x.failed(); len(f) != 0 {
		t.Fatalf("abandoned %d messages for nothing", len(f))
	}
	if got := x.flush(); len(got) != 3 {
		t.Fatalf("sent %v", got)
	}
	checkInvariants(t, &x.e.send)
}

// TestPRNotNegotiated: without PR-SCTP nothing with a TSN is abandoned and
// no FORWARD-TSN is ever due; an expired message not yet sent is still
// dropped (the base protocol's lifetime).
func TestPRNotNegotiated(t *testing.T) {
	x := newTx(t, Config{})
	x.queuePR(0, false, 100, PR{Policy: PRRtx, Value: 0})
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 10})
	x.flush()
	x.advance(time.Second)
	x.e.OnTimeout(x.now)
	if got := x.flush(); len(got) != 2 {
		t.Fatalf("retransmitted %v, want both chunks", got)
	}
	if x.e.ForwardDue() || len(x.failed()) != 0 {
		t.Fatal("abandoned without PR-SCTP")
	}
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 10})
	x.advance(20 * time.Millisecond)
	x.mustSACK(1001, api.DefaultBuffer)
	x.flush()
	if f := x.failed(); len(f) != 1 || f[0].Sent {
		t.Fatalf("failed %+v", f)
	}
	checkInvariants(t, &x.e.send)
}

// TestPRNoPolicyAllocs: messages without a policy allocate nothing per
// message through Engine.Queue.
func TestPRNoPolicyAllocs(t *testing.T) {
	x := prTx(t, Config{})
	buf := make([]byte, 100)
	cum := TSN(999)
	round := func() {
		if err := x.e.Queue(x.now, 0, 0, false, buf, PR{}); err != nil {
			t.Fatal(err)
		}
		pkt, n := x.e.AppendData(x.now, x.pkt[:0], 1400)
		x.pkt = pkt
		cum += TSN(n)
		x.mustSACK(cum, api.DefaultBuffer)
	}
	for range 100 {
		round()
	}
	if a := testing.AllocsPerRun(1000, round); a != 0 {
		t.Fatalf("%v allocations per message", a)
	}
}

// TestPRPlaceholderAfterAckedFragments: a message cut short after all its
// sent fragments were acknowledged still gets a FORWARD-TSN, so the
// receiver drops (or stops partially delivering) its first fragments: the
// placeholder TSN the message's rest takes is what the FORWARD-TSN passes.
func TestPRPlaceholderAfterAckedFragments(t *testing.T) {
	x := prTx(t, Config{PeerRwnd: 1500})
	x.queuePR(1, true, 4000, PR{Policy: PRTTL, Value: 100})
	x.flush()
	x.mustSACK(1000, 1500) // the first fragment arrived
	x.advance(200 * time.Millisecond)
	x.queue(1, 100)
	got := x.flush() // the expired rest is abandoned before this
	if len(got) != 1 || got[0] != 1002 {
		t.Fatalf("sent %v, want the reliable message after the placeholder 1001", got)
	}
	cum, es, ok := x.forward()
	if !ok || cum != 1001 || len(es) != 0 {
		t.Fatalf("FORWARD-TSN %v %v %v (unordered: no entry)", cum, es, ok)
	}
	checkInvariants(t, &x.e.send)
}

// BenchmarkMessagesPR is BenchmarkMessages for 1024-byte messages sent
// reliably through Engine.Queue and with each policy (none of them expiring):
// the cost of the policy checks.
func BenchmarkMessagesPR(b *testing.B) {
	for _, pr := range []PR{{}, {Policy: PRTTL, Value: 1 << 30}, {Policy: PRRtx, Value: 3}, {Policy: PRPrio, Value: 1}} {
		b.Run(pr.Policy.String(), func(b *testing.B) {
			m := newMemPair(b)
			m.a.cfg.PartialReliability = true
			msg := make([]byte, 1024)
			for range 1000 {
				m.a.Queue(m.now, 1, 0, false, msg, pr)
				m.step(b)
			}
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.a.Queue(m.now, uint16(i%10), 0, false, msg, pr); err != nil {
					b.Fatal(err)
				}
				if i%8 == 7 {
					m.step(b)
				}
			}
			for m.a.send.queue.buffered > 0 {
				m.step(b)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// TestPRPlaceholderIData: with I-DATA too, a message cut short after its
// sent fragments were acknowledged gets an I-FORWARD-TSN naming it.
func TestPRPlaceholderIData(t *testing.T) {
	x := prTx(t, Config{Interleaved: true, PeerRwnd: 1500})
	x.queuePR(1, false, 4000, PR{Policy: PRTTL, Value: 100})
	x.e.AppendData(x.now, nil, 1400)
	x.mustSACK(1000, 1500)
	x.advance(200 * time.Millisecond)
	x.e.AppendData(x.now, nil, 1400) // abandons the expired rest
	b := x.e.AppendForward(x.now, nil, 1200)
	it := chunk.Chunks(b)
	c, ok := it.Next()
	if !ok {
		t.Fatal("no I-FORWARD-TSN")
	}
	f, err := chunk.ParseIForwardTSN(c)
	if err != nil {
		t.Fatal(err)
	}
	if f.NewCumTSN != 1001 || f.Streams.Len() != 1 || f.Streams.At(0) != (chunk.StreamMID{SID: 1, MID: 0}) {
		t.Fatalf("I-FORWARD-TSN cum %d entries %d", f.NewCumTSN, f.Streams.Len())
	}
	checkInvariants(t, &x.e.send)
}

// TestPRDrainKeepsPolicy: Drain reports each message's policy (a lifetime
// as its end), so a restarted association queues it again under the same
// policy.
func TestPRDrainKeepsPolicy(t *testing.T) {
	x := prTx(t, Config{})
	x.queuePR(0, false, 10, PR{Policy: PRTTL, Value: 100})
	x.queuePR(0, false, 10, PR{Policy: PRRtx, Value: 2})
	x.queue(1, 10)
	var got []Unsent
	x.e.Drain(func(u Unsent) { got = append(got, u) })
	if len(got) != 3 || got[0].PR.Policy != PRTTL || !got[0].Expiry.Equal(epoch.Add(100*time.Millisecond)) ||
		got[1].PR != (PR{Policy: PRRtx, Value: 2}) || got[2].PR != (PR{}) {
		t.Fatalf("drained %+v", got)
	}
}

// A reused message does not keep the policy value of the message it was
// before: a reliable message queued after a PRRtx one was acknowledged is
// drained as reliable, Value 0.
func TestPRValueNotReused(t *testing.T) {
	x := prTx(t, Config{})
	x.queuePR(0, false, 10, PR{Policy: PRRtx, Value: 7})
	x.flush()
	x.mustSACK(x.e.send.ledger.nextTSN-1, api.DefaultBuffer)
	x.queue(1, 10)
	var got []Unsent
	x.e.Drain(func(u Unsent) { got = append(got, u) })
	if len(got) != 1 || got[0].PR != (PR{}) {
		t.Fatalf("drained %+v, want one reliable message", got)
	}
}
