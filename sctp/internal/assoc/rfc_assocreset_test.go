package assoc

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The SSN/TSN Reset Request (RFC 6525 sections 5.1.4 and 5.2.4) at the
// packet level: the test peer plays the other end.

func tsnReset(seq uint32) chunk.ReconfigParam {
	return chunk.ReconfigParam{Type: chunk.ParamSSNTSNReset, ReqSeq: seq}
}

func tsnResponse(seq uint32, r chunk.ReconfigResult, senderNext, receiverNext uint32) chunk.ReconfigParam {
	return chunk.ReconfigParam{Type: chunk.ParamReconfigResponse, RespSeq: seq, Result: r, HasTSNs: true,
		SenderNextTSN: chunk.TSN(senderNext), ReceiverNextTSN: chunk.TSN(receiverNext)}
}

func sameResponse(a, b chunk.ReconfigParam) bool {
	return a.Type == b.Type && a.RespSeq == b.RespSeq && a.Result == b.Result && a.HasTSNs == b.HasTSNs &&
		a.SenderNextTSN == b.SenderNextTSN && a.ReceiverNextTSN == b.ReceiverNextTSN
}

// wantData returns the first DATA chunk of the next packet.
func (tc *testConn) wantData() chunk.Data {
	tc.t.Helper()
	p := tc.wantPacket()
	for i := range p.p.chunks {
		if c := &p.p.chunks[i]; c.typ == chunk.TypeData {
			d, err := chunk.ParseData(chunkOfRx(c))
			if err != nil {
				tc.t.Fatal(err)
			}
			d.Payload = bytes.Clone(d.Payload)
			return d
		}
	}
	tc.t.Fatalf("no DATA in chunks %v", chunkTypes(&p.p))
	return chunk.Data{}
}

// RFC 6525 section 5.2.4, the receiver of an SSN/TSN Reset Request:
//
//	G1: Compute an appropriate value for the Receiver's Next TSN -- the
//	    TSN that the peer should use to send the next DATA chunk. The
//	    value SHOULD be the smallest TSN not acknowledged by the receiver
//	    of the request plus 2^31.
//	G2: Compute an appropriate value for the local endpoint's next TSN,
//	    i.e., the next TSN assigned by the receiver of the SSN/TSN reset
//	    chunk. The value SHOULD be the highest TSN sent by the receiver
//	    of the request plus 1.
//	G5: The next expected and outgoing SSNs MUST be reset to 0 for all
//	    incoming and outgoing streams.
//	G6: A Re-configuration Response Parameter MUST be put into a
//	    RE-CONFIG chunk indicating successful processing.
//
// While our DATA is unacknowledged the request is answered "In progress"
// (as Linux does) and evaluated again when the peer sends it again; a
// retransmission after it was performed gets the same response, next
// TSNs included (section 5.2.1).
func TestAssocResetPeer(t *testing.T) {
	tc := connectReconf(t)
	a := tc.a
	tsn, seq := tc.peerTSN, tc.peerTSN
	tc.writeChunks(dataChunk(3, tsn, 1, 0, 0, []byte("p0")), dataChunk(3, tsn+1, 1, 1, 0, []byte("p1")))
	tc.readMsg()
	tc.readMsg()
	a.send(tc.now, 0, 0, false, []byte("o0"))
	if d := tc.wantData(); d.SSN != 0 || d.TSN != chunk.TSN(uint32(a.localTSN)) {
		t.Fatalf("DATA %+v", d)
	}
	// Our DATA is outstanding: "In progress", nothing reset.
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	tc.wantResponse(seq, chunk.ReconfigPending)
	tc.wantNoEvent()
	tc.writeChunks(sackChunk(uint32(a.localTSN), 65536))
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	ps := tc.wantReconf()
	wantSend, wantRecv := uint32(a.localTSN)+1, tsn+2+1<<31
	want := tsnResponse(seq, chunk.ReconfigSuccessPerformed, wantSend, wantRecv)
	if len(ps) != 1 || !sameResponse(ps[0], want) {
		t.Fatalf("response %+v, want %+v", ps, want)
	}
	ev := tc.wantReconfEvent()
	if ev.Kind != api.EventAssocReset || ev.Err != nil || ev.NextTSN != wantSend || ev.PeerNextTSN != wantRecv {
		t.Fatalf("event %+v", ev)
	}
	// The peer's DATA starts at the Receiver's Next TSN with SSN 0; old
	// TSNs are out of the window now.
	tc.writeChunks(dataChunk(3, tsn+1, 1, 1, 0, []byte("stale")))
	tc.writeChunks(dataChunk(3, wantRecv, 1, 0, 0, []byte("p0 again")))
	if m, ssn := tc.readMsg(); m != "p0 again" || ssn != 0 {
		t.Fatalf("got %q ssn %d", m, ssn)
	}
	if _, _, err := a.read(make([]byte, 16)); err == nil {
		t.Fatal("stale DATA delivered")
	}
	// Ours continues at the Sender's Next TSN with SSN 0.
	a.send(tc.now, 0, 0, false, []byte("o0 again"))
	if d := tc.wantData(); d.SSN != 0 || d.TSN != chunk.TSN(wantSend) {
		t.Fatalf("DATA %+v", d)
	}
	// The retransmitted request gets the same answer, and nothing is
	// reset again.
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	if ps := tc.wantReconf(); len(ps) != 1 || !sameResponse(ps[0], want) {
		t.Fatalf("response %+v", ps)
	}
	tc.wantNoEvent()
	if r := a.stats.Reconf; r.AssocResetsIn != 1 || r.AssocResetsPending != 1 || r.DupRequests != 1 {
		t.Fatalf("counters %+v", r)
	}
}

// RFC 6525 section 5.2.4 with received data out of sequence: the reset
// waits ("In progress") until the gap is filled.
func TestAssocResetPeerGap(t *testing.T) {
	tc := connectReconf(t)
	tsn, seq := tc.peerTSN, tc.peerTSN
	tc.writeChunks(dataChunk(3, tsn+1, 1, 1, 0, []byte("p1")))
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	tc.wantResponse(seq, chunk.ReconfigPending)
	tc.writeChunks(dataChunk(3, tsn, 1, 0, 0, []byte("p0")))
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	ps := tc.wantReconf()
	if len(ps) != 1 || ps[0].Result != chunk.ReconfigSuccessPerformed || uint32(ps[0].ReceiverNextTSN) != tsn+2+1<<31 {
		t.Fatalf("response %+v", ps)
	}
	// What arrived before is still read, in order.
	for _, want := range []string{"p0", "p1"} {
		if m, _ := tc.readMsg(); m != want {
			t.Fatalf("got %q, want %q", m, want)
		}
	}
}

// RFC 6525 section 5.1.4, the sender of an SSN/TSN Reset Request: it sends
// no new DATA, sends the request once everything outstanding is
// acknowledged, and on "Success - Performed" takes the Receiver's Next TSN
// for its next DATA, the Sender's Next TSN as the next TSN expected, and
// SSN 0 on every stream both ways. "Only one SSN/TSN Reset Request SHOULD
// be sent within 30 seconds, which is considered a maximum segment
// lifetime (the IP MSL)."
func TestAssocResetOurs(t *testing.T) {
	tc := connectReconf(t)
	a := tc.a
	tsn := tc.peerTSN
	a.send(tc.now, 2, 0, false, []byte("o0"))
	tc.wantData()
	tc.writeChunks(dataChunk(3, tsn, 2, 0, 0, []byte("p0")))
	tc.readMsg()
	op, err := a.ResetAssoc(tc.now)
	if err != nil {
		t.Fatal(err)
	}
	// Written after the call: held. The request waits for the SACK.
	a.send(tc.now, 2, 0, false, []byte("o after"))
	tc.readPackets()
	for _, p := range tc.sent {
		if ts := chunkTypes(&p.p); slices.Contains(ts, chunk.TypeData) || slices.Contains(ts, chunk.TypeReconfig) {
			t.Fatalf("sent %v before the outstanding DATA was acknowledged", ts)
		}
	}
	tc.sent = nil
	tc.writeChunks(sackChunk(uint32(a.localTSN), 65536))
	ps := tc.wantReconf()
	if len(ps) != 1 || ps[0].Type != chunk.ParamSSNTSNReset || ps[0].ReqSeq != uint32(a.localTSN) {
		t.Fatalf("request %+v", ps)
	}
	// Lost, then "In progress": sent again.
	tc.advanceToTimer()
	tc.wantReconf()
	tc.writeChunks(reconfChunk(tsnResponse(uint32(a.localTSN), chunk.ReconfigPending, 0, 0)))
	tc.wantNoEvent()
	tc.advanceToTimer()
	tc.wantReconf()
	// "Performed" without the next TSNs cannot be applied.
	tc.writeChunks(reconfChunk(response(uint32(a.localTSN), chunk.ReconfigSuccessPerformed)))
	tc.wantNoEvent()
	const sendNext, recvNext = 0x10000000, 0x80000000
	tc.writeChunks(reconfChunk(tsnResponse(uint32(a.localTSN), chunk.ReconfigSuccessPerformed, recvNext, sendNext)))
	ev := tc.wantReconfEvent()
	if ev.Kind != api.EventAssocReset || ev.Err != nil || ev.NextTSN != sendNext || ev.PeerNextTSN != recvNext {
		t.Fatalf("event %+v", ev)
	}
	if e := tc.wantAnswer(op); e.Err != nil {
		t.Fatalf("completion %+v", e)
	}
	if d := tc.wantData(); d.TSN != sendNext || d.SID != 2 || d.SSN != 0 || string(d.Payload) != "o after" {
		t.Fatalf("DATA %+v", d)
	}
	tc.writeChunks(dataChunk(3, recvNext, 2, 0, 0, []byte("p0 again")))
	if m, ssn := tc.readMsg(); m != "p0 again" || ssn != 0 {
		t.Fatalf("got %q ssn %d", m, ssn)
	}
	// At most one request per 30 seconds.
	if _, err := a.ResetAssoc(tc.now); !errors.Is(err, api.ErrAssocResetTooSoon) {
		t.Fatalf("second reset: %v", err)
	}
	tc.advance(31 * time.Second)
	tc.writeChunks(sackChunk(sendNext, 65536))
	if _, err := a.ResetAssoc(tc.now); err != nil {
		t.Fatalf("reset after 31 s: %v", err)
	}
	if r := a.stats.Reconf; r.AssocResetsOut != 1 || r.Malformed != 1 || r.Pending != 1 {
		t.Fatalf("counters %+v", r)
	}
}

// A refused SSN/TSN reset changes no numbering, and the user learns why.
func TestAssocResetDenied(t *testing.T) {
	tc := connectReconf(t)
	a := tc.a
	a.send(tc.now, 0, 0, false, []byte("ssn0"))
	tc.wantData()
	tc.writeChunks(sackChunk(uint32(a.localTSN), 65536))
	a.ResetAssoc(tc.now)
	ps := tc.wantReconf()
	tc.writeChunks(reconfChunk(tsnResponse(ps[0].ReqSeq, chunk.ReconfigDenied, 0, 0)))
	if ev := tc.wantReconfEvent(); ev.Kind != api.EventAssocReset || !errors.Is(ev.Err, api.ErrReconfigDenied) {
		t.Fatalf("event %+v", ev)
	}
	a.send(tc.now, 0, 0, false, []byte("ssn1"))
	if d := tc.wantData(); d.SSN != 1 || d.TSN != chunk.TSN(uint32(a.localTSN)+1) {
		t.Fatalf("DATA %+v after a denied reset", d)
	}
}

// While our SSN/TSN Reset Request is out, the peer's DATA may belong to its
// old numbering (sent before it performed the request) or to the new one
// (its answer lost or overtaken): everything received is held, acknowledged
// as usual, and released when the answer says where the new numbering
// starts (the Sender's Next TSN), the old part before the streams restart.
// A SACK acknowledging TSNs we never sent may be the peer's in the new
// numbering: it is dropped as stale, not answered with ABORT (RFC 9260
// section 12.4), while the request is out.
func TestAssocResetOursHold(t *testing.T) {
	tc := connectReconf(t)
	a := tc.a
	tsn := tc.peerTSN
	a.ResetAssoc(tc.now)
	ps := tc.wantReconf()
	tc.writeChunks(dataChunk(3, tsn, 1, 0, 0, []byte("old")))
	tc.writeChunks(sackChunk(uint32(a.localTSN)+1000, 65536))
	if a.closed || a.data.eng.Info().CumAck != chunk.TSN(uint32(a.localTSN)-1) {
		t.Fatalf("closed %v, cumulative ack %d", a.closed, a.data.eng.Info().CumAck)
	}
	tc.writeChunks(dataChunk(3, tsn+1, 1, 0, 0, []byte("new")))
	if _, _, err := a.read(make([]byte, 16)); err == nil {
		t.Fatal("DATA delivered before the answer")
	}
	const sendNext = 0x40000000
	tc.writeChunks(reconfChunk(tsnResponse(ps[0].ReqSeq, chunk.ReconfigSuccessPerformed, tsn+1, sendNext)))
	for _, want := range []string{"old", "new"} {
		if m, ssn := tc.readMsg(); m != want || ssn != 0 {
			t.Fatalf("got %q ssn %d, want %q ssn 0", m, ssn, want)
		}
	}
	if tc.a.data.eng.CumulativeTSN() != chunk.TSN(tsn+1) {
		t.Fatalf("cumulative TSN %d, want %d", tc.a.data.eng.CumulativeTSN(), tsn+1)
	}
	a.send(tc.now, 0, 0, false, []byte("x"))
	if d := tc.wantData(); d.TSN != sendNext || d.SSN != 0 {
		t.Fatalf("DATA %+v", d)
	}
	if a.closed || a.stats.Violations != 0 {
		t.Fatal("association aborted")
	}
}

// After performing the peer's SSN/TSN reset we send no SACK until its
// first DATA in the new numbering: a SACK reporting the new cumulative TSN
// (the Receiver's Next TSN - 1) would acknowledge TSNs the peer never sent
// if it arrived before our answer (the peer, per RFC 9260 section 12.4,
// aborts). Linux 6.1 does so with a SACK ahead of the answer in one packet.
func TestAssocResetPeerNoEarlySACK(t *testing.T) {
	tc := connectReconf(t)
	tsn, seq := tc.peerTSN, tc.peerTSN
	tc.writeChunks(dataChunk(3, tsn, 1, 0, 0, []byte("p0")))
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	p := tc.wantPacket()
	if ts := chunkTypes(&p.p); !slices.Equal(ts, []chunk.Type{chunk.TypeReconfig}) {
		t.Fatalf("answer packet %v, want the RE-CONFIG alone", ts)
	}
	tc.writeChunks(reconfChunk(tsnReset(seq)))
	p = tc.wantPacket()
	if ts := chunkTypes(&p.p); !slices.Equal(ts, []chunk.Type{chunk.TypeReconfig}) {
		t.Fatalf("answer packet %v, want the RE-CONFIG alone", ts)
	}
	tc.advance(time.Second)
	tc.wantIdle()
	next := tsn + 1 + 1<<31
	tc.writeChunks(dataChunk(3, next, 1, 0, 0, []byte("n0")))
	tc.advance(time.Second)
	_, c := tc.wantChunk(chunk.TypeSack)
	if sk, err := chunk.ParseSack(chunkOfRx(c)); err != nil || uint32(sk.CumTSN) != next {
		t.Fatalf("SACK %+v %v, want cumulative TSN %d", sk, err, next)
	}
}

// BenchmarkAssocReset runs SSN/TSN Reset exchanges through the core: the
// peer's request performed and answered (peer), and ours sent and its
// answer applied (ours; the clock moves 31 s each time for the 30 s rule).
func BenchmarkAssocReset(b *testing.B) {
	buf := make([]byte, 0, 1500)
	drain := func(tc *testConn) {
		tc.events = tc.events[:0]
		for {
			if _, ok := tc.ep.Poll(tc.now, buf[:0]); !ok {
				break
			}
		}
	}
	b.Run("peer", func(b *testing.B) {
		tc := connectReconf(b)
		seq := tc.peerTSN
		b.ReportAllocs()
		for b.Loop() {
			tc.writeChunks(reconfChunk(tsnReset(seq)))
			seq++
			drain(tc)
		}
		if tc.a.stats.Reconf.AssocResetsIn != uint64(b.N) {
			b.Fatalf("%d resets performed, want %d", tc.a.stats.Reconf.AssocResetsIn, b.N)
		}
	})
	b.Run("ours", func(b *testing.B) {
		tc := connectReconf(b)
		a := tc.a
		b.ReportAllocs()
		for b.Loop() {
			tc.now = tc.now.Add(31 * time.Second)
			if _, err := a.ResetAssoc(tc.now); err != nil {
				b.Fatal(err)
			}
			if _, ok := tc.ep.Poll(tc.now, buf[:0]); !ok {
				b.Fatal("no request")
			}
			next := a.data.eng.NextTSN() + 1<<31
			tc.writeChunks(reconfChunk(tsnResponse(uint32(a.rc.out.params[0].seq), chunk.ReconfigSuccessPerformed, tc.peerTSN, uint32(next))))
			drain(tc)
		}
		if a.stats.Reconf.AssocResetsOut != uint64(b.N) {
			b.Fatalf("%d resets performed, want %d", a.stats.Reconf.AssocResetsOut, b.N)
		}
	})
}

// RFC 6525 section 5.2.1: "The decision to deny a re-configuration request
// is an administrative decision": with Config.Extensions.DenyAssocReset the peer's
// SSN/TSN Reset Request is answered "Denied" and nothing changes.
func TestAssocResetPeerDenied(t *testing.T) {
	cfg := testConfig()
	cfg.DenyAssocReset = true
	tc := connectReconfWith(t, cfg, 100)
	tsn := tc.peerTSN
	tc.writeChunks(dataChunk(3, tsn, 1, 0, 0, []byte("p0")))
	tc.writeChunks(reconfChunk(tsnReset(tc.peerTSN)))
	tc.wantResponse(tc.peerTSN, chunk.ReconfigDenied)
	tc.wantNoEvent()
	tc.writeChunks(dataChunk(3, tsn+1, 1, 1, 0, []byte("p1")))
	for _, want := range []string{"p0", "p1"} {
		if m, _ := tc.readMsg(); m != want {
			t.Fatalf("got %q, want %q", m, want)
		}
	}
}
