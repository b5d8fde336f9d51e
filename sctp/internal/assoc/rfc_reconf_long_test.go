package assoc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Stream lists longer than one of our packets can carry: the
// peer's packets may be far larger than ours to it (a 64 KiB packet on
// loopback, or an IP-fragmented one, while ours are sized for the path
// MTU), so a request of the peer that our answer must repeat can name more
// streams than our answer can hold.

// wantReconfPacket reads packets until one carries RE-CONFIG and returns
// its size and parameters.
func (tc *testConn) wantReconfPacket() (int, []chunk.ReconfigParam) {
	tc.t.Helper()
	tc.readPackets()
	for len(tc.sent) > 0 {
		p := tc.sent[0]
		tc.sent = tc.sent[1:]
		if ps := reconfParams(tc.t, &p); len(ps) > 0 {
			return len(p.raw), ps
		}
	}
	tc.t.Fatal("no RE-CONFIG sent")
	return 0, nil
}

func seqSids(n int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = uint16(i)
	}
	return s
}

// RFC 6525 (paraphrase: the exact sentences were not at hand): section
// 5.2.3 has the receiver of an Incoming SSN Reset Request that is willing
// to perform it answer with an Outgoing SSN Reset Request listing the same
// streams, and section 4.4 gives result 2, "Denied", for a request the
// receiver is not willing to perform; section 4.1: an Outgoing SSN Reset
// Request listing no stream resets all of them. A peer's request naming
// 1,000 streams (2,000 bytes of list, carried in its large packet) cannot
// be answered in one of our packets (1,452 bytes here, 1,152 at the
// least): it is answered "Denied", counted, and the association goes on
// reconfiguring. The old code accepted it, could never send its answer
// (its timer never started) and answered every later request "In
// progress" for the association's life.
func TestReconfPeerIncomingResetTooLongDenied(t *testing.T) {
	cfg := testConfig()
	cfg.OutStreams = 2048
	tc := connectReconfWith(t, cfg, 65535)
	a := tc.a
	if a.outStreams != 2048 {
		t.Fatalf("%d outbound streams", a.outStreams)
	}
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN, seqSids(1000)...)))
	tc.wantResponse(tc.peerTSN, chunk.ReconfigDenied)
	if a.rc.out != nil || a.timers.running(timerReconf) {
		t.Fatal("a request of ours is outstanding")
	}
	if n := a.stats.Reconf.ResetListTooLong; n != 1 {
		t.Fatalf("ResetListTooLong %d, want 1", n)
	}
	// Sent again: the same answer (section 5.2.1).
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN, seqSids(1000)...)))
	tc.wantResponse(tc.peerTSN, chunk.ReconfigDenied)

	// The longest list that fits the smallest packet we send is answered,
	// in one packet no larger than that; one more stream is denied.
	most := a.peerResetMax()
	if most < 500 || most > 600 {
		t.Fatalf("peerResetMax %d with a %d-byte BASE_PLPMTU", most, a.ep.cfg.PMTUBase)
	}
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN+1, seqSids(most+1)...)))
	tc.wantResponse(tc.peerTSN+1, chunk.ReconfigDenied)
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN+2, seqSids(most)...)))
	size, ps := tc.wantReconfPacket()
	if len(ps) != 1 || ps[0].Type != chunk.ParamOutgoingSSNReset || ps[0].RespSeq != tc.peerTSN+2 ||
		!slices.Equal(list16(ps[0].Streams), seqSids(most)) {
		t.Fatalf("answer %+v", ps)
	}
	if size > a.ep.cfg.PMTUBase {
		t.Fatalf("answer in a %d-byte packet, BASE_PLPMTU %d", size, a.ep.cfg.PMTUBase)
	}
	if !a.timers.running(timerReconf) {
		t.Fatal("our request sent without its timer")
	}
	tc.writeChunks(reconfChunk(response(ps[0].ReqSeq, chunk.ReconfigSuccessPerformed)))
	if ev := tc.wantReconfEvent(); ev.Direction != api.DirOutgoing || len(ev.Streams) != most || ev.Err != nil {
		t.Fatalf("event %+v", ev)
	}
	// Still reconfiguring.
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN+3, 7)))
	if ps := tc.wantReconf(); len(ps) != 1 || ps[0].Type != chunk.ParamOutgoingSSNReset || ps[0].RespSeq != tc.peerTSN+3 {
		t.Fatalf("answer %+v", ps)
	}
	if n := a.stats.Reconf.ResetListTooLong; n != 2 {
		t.Fatalf("ResetListTooLong %d, want 2", n)
	}
}

// The bound follows the smallest packet this association sends (here a
// configured 400-byte MTU, which BASE_PLPMTU cannot exceed; an AUTH chunk
// the packet needs is taken off the same way): what is accepted is sent
// within it, a longer list is denied.
func TestReconfPeerIncomingResetSmallMTU(t *testing.T) {
	cfg := testConfig()
	cfg.OutStreams = 2048
	cfg.MTU = 400
	tc := connectReconfWith(t, cfg, 65535)
	a := tc.a
	most := a.peerResetMax()
	if most <= 0 || 12+4+20+16+2*most > 400 {
		t.Fatalf("peerResetMax %d for a 400-byte packet", most)
	}
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN, seqSids(most+2)...)))
	tc.wantResponse(tc.peerTSN, chunk.ReconfigDenied)
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN+1, seqSids(most)...)))
	size, ps := tc.wantReconfPacket()
	if len(ps) != 1 || ps[0].Type != chunk.ParamOutgoingSSNReset || size > 400 {
		t.Fatalf("answer %+v in %d bytes", ps, size)
	}
}

// Our own ResetStreams: a list that would not fit in one of
// our packets is refused at once with an error saying so, and nothing is
// queued; before, with a small MTU, 64 streams in both directions (284
// bytes of RE-CONFIG) were accepted and never sent, and the request
// waited forever.
func TestReconfOurResetTooLongRefused(t *testing.T) {
	cfg := testConfig()
	cfg.OutStreams = 2048
	cfg.MTU = 280
	tc := connectReconfWith(t, cfg, 65535)
	a := tc.a
	if _, err := a.ResetStreams(tc.now, api.DirBoth, seqSids(64)); err == nil ||
		!strings.Contains(err.Error(), "do not fit") {
		t.Fatalf("ResetStreams(64 streams both ways, 280-byte MTU) = %v, want an error saying they do not fit", err)
	}
	if _, err := a.ResetStreams(tc.now, api.DirBoth, seqSids(65)); err == nil {
		t.Fatal("65 streams accepted")
	}
	if a.rc.out != nil || len(a.rc.queue) != 0 {
		t.Fatal("a refused request was queued")
	}
	// What fits goes, in one packet within the MTU.
	if _, err := a.ResetStreams(tc.now, api.DirOutgoing, seqSids(64)); err != nil {
		t.Fatal(err)
	}
	size, ps := tc.wantReconfPacket()
	if len(ps) != 1 || ps[0].Type != chunk.ParamOutgoingSSNReset || len(list16(ps[0].Streams)) != 64 || size > 280 {
		t.Fatalf("request %+v in %d bytes", ps, size)
	}
}

// Our answering request's stream list is built once, when the request
// begins, not on every attempt to send it: a request that waits for room
// in a packet (or is sent again) costs no copy of its list each time.
func TestReconfAnswerListBuiltOnce(t *testing.T) {
	cfg := testConfig()
	cfg.OutStreams = 2048
	tc := connectReconfWith(t, cfg, 65535)
	a := tc.a
	tc.writeChunks(reconfChunk(inReset(tc.peerTSN, seqSids(500)...)))
	if a.rc.out == nil || !a.rc.due {
		t.Fatal("no answering request due")
	}
	buf := make([]byte, 0, 2048)
	a.appendReconf(tc.now, buf, 64) // the streams are checked clear once
	allocs := testing.AllocsPerRun(100, func() {
		if b := a.appendReconf(tc.now, buf, 64); len(b) != 0 {
			t.Fatal("a 1,020-byte request sent in 64 bytes")
		}
	})
	if allocs != 0 {
		t.Fatalf("%.0f allocations per attempt to send the waiting request", allocs)
	}
	size, ps := tc.wantReconfPacket()
	if len(ps) != 1 || len(list16(ps[0].Streams)) != 500 || size > a.ep.cfg.PMTUBase {
		t.Fatalf("answer %+v in %d bytes", ps, size)
	}
}

// BenchmarkPeerAddInFlood is a peer sending one Add Incoming Streams
// Request per op through the whole association (RFC 6525 section 5.2.6):
// we answer with an Add Outgoing Streams Request of one stream, which the
// peer performs, while 1, 1k or 64k one-byte messages of ours wait behind
// the peer's full window (1,500 bytes). No cost may grow with what is queued.
func BenchmarkPeerAddInFlood(b *testing.B) {
	for _, queued := range []int{1, 1 << 10, 1 << 16} {
		b.Run(fmt.Sprintf("queued=%d", queued), func(b *testing.B) {
			var tc *testConn
			setup := func() {
				cfg := testConfig()
				cfg.SendBuffer = 256 << 20
				tc = newTestEndpoint(b, cfg)
				tc.writePacket(0, initChunk(chunk.TypeInit, tc.peerTag, 1500, 100, 65535, tc.peerTSN, reconfExt()))
				_, c := tc.wantChunk(chunk.TypeInitAck)
				in := initValue(b, c)
				tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
				tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
				for i := range queued {
					if err := tc.a.send(tc.now, uint16(i%10), 0, false, []byte{1}); err != nil {
						b.Fatal(err)
					}
				}
				tc.readPackets()
				tc.sent, tc.events = nil, nil
			}
			setup()
			buf := make([]byte, 0, 1500)
			seq := tc.peerTSN
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if tc.a.outStreams >= 65000 {
					b.StopTimer()
					setup()
					seq = tc.peerTSN
					b.StartTimer()
				}
				tc.writeChunks(reconfChunk(addStreams(chunk.ParamAddIncomingStreams, seq, 1)))
				seq++
				out := tc.a.rc.out
				if out == nil {
					b.Fatal("no Add Outgoing Streams Request")
				}
				for {
					if _, ok := tc.ep.Poll(tc.now, buf[:0]); !ok {
						break
					}
				}
				tc.writeChunks(reconfChunk(response(uint32(out.params[0].seq), chunk.ReconfigSuccessPerformed)))
				tc.events = tc.events[:0]
			}
		})
	}
}

// With a peer that requires RE-CONFIG authenticated (RFC 4895), our
// packets carrying it hold an AUTH chunk too: the bound leaves room for
// it, so the longest list accepted still goes in one packet of
// BASE_PLPMTU, AUTH included, and one stream more is denied.
func TestReconfPeerIncomingResetAuthRoom(t *testing.T) {
	for _, hm := range []uint16{chunk.HMACSHA1, chunk.HMACSHA256} {
		hmacs := []uint16{hm}
		if hm != chunk.HMACSHA1 {
			hmacs = append(hmacs, chunk.HMACSHA1) // the peer must list SHA-1 (RFC 4895 section 3.3)
		}
		cfg := testConfig()
		cfg.OutStreams = 2048
		cfg.AuthChunks = []chunk.Type{chunk.TypeHeartbeat}
		cfg.AuthKeys = []api.AuthKey{{ID: 5, Key: []byte("shared secret")}}
		tc := newTestEndpoint(t, cfg)
		peer := newTestAuthPeer([]byte{byte(chunk.TypeReconfig)}, hmacs...)
		peer.secret = []byte("shared secret")
		tc.writePacket(0, initChunk(chunk.TypeInit, tc.peerTag, 65536, 100, 65535, tc.peerTSN,
			append(peer.params(), reconfExt())...))
		_, c := tc.wantChunk(chunk.TypeInitAck)
		in := initValue(t, c)
		peer.learn(t, c)
		tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
		tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
		a := tc.a
		if a == nil || !a.reconfOn() || a.authOverhead() == 0 {
			t.Fatalf("HMAC %d: association %v without RE-CONFIG under AUTH", hm, a != nil)
		}
		if want := map[uint16]int{chunk.HMACSHA1: 8 + 20, chunk.HMACSHA256: 8 + 32}[hm]; a.authOverhead() != want {
			t.Fatalf("HMAC %d: AUTH chunk of %d bytes, want %d", hm, a.authOverhead(), want)
		}
		tc.readPackets()
		tc.sent = nil
		most := a.peerResetMax()
		if plain := (a.ep.cfg.PMTUBase - 12 - 40) / 4 * 2; most >= plain {
			t.Fatalf("HMAC %d: bound %d leaves no room for AUTH (%d without)", hm, most, plain)
		}
		tc.writeChunks(reconfChunk(inReset(tc.peerTSN, seqSids(most+1)...)))
		tc.wantResponse(tc.peerTSN, chunk.ReconfigDenied)
		tc.writeChunks(reconfChunk(inReset(tc.peerTSN+1, seqSids(most)...)))
		tc.readPackets()
		found := false
		for _, p := range tc.sent {
			ps := reconfParams(t, &p)
			if len(ps) == 0 {
				continue
			}
			found = true
			if p.p.chunks[0].typ != chunk.TypeAuth || len(ps) != 1 || len(list16(ps[0].Streams)) != most {
				t.Fatalf("HMAC %d: answer %v %+v", hm, chunkTypes(&p.p), ps)
			}
			if len(p.raw) > a.ep.cfg.PMTUBase {
				t.Fatalf("HMAC %d: answer in %d bytes, BASE_PLPMTU %d", hm, len(p.raw), a.ep.cfg.PMTUBase)
			}
		}
		if !found {
			t.Fatalf("HMAC %d: the longest list accepted was not sent", hm)
		}
	}
}
