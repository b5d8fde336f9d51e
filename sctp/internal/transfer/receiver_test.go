package transfer

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 6.2: "Specifically, an acknowledgement SHOULD be
// generated for at least every second packet (not every second DATA chunk)
// received and SHOULD be generated within 200 ms of the arrival of any
// unacknowledged DATA chunk."
func TestSACKDelayed(t *testing.T) {
	r := newRx(t, Config{})
	// Two DATA chunks in one packet count as one packet.
	r.e.HandleData(r.now, &Data{TSN: 1, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte{1}})
	r.e.HandleData(r.now, &Data{TSN: 2, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte{1}})
	r.e.EndPacket(r.now)
	if r.e.SACKDue(r.now) {
		t.Fatal("SACK due after one packet")
	}
	if d := r.e.Deadline(); !d.Equal(r.now.Add(200 * time.Millisecond)) {
		t.Fatalf("delayed SACK deadline %v, want 200ms", d.Sub(r.now))
	}
	if r.e.SACKDue(r.now.Add(199 * time.Millisecond)) {
		t.Fatal("SACK due before 200 ms")
	}
	if !r.e.SACKDue(r.now.Add(200 * time.Millisecond)) {
		t.Fatal("SACK not due after 200 ms")
	}
	r.whole(3, 0, 2, 1)
	if !r.e.SACKDue(r.now) {
		t.Fatal("SACK not due after the second packet")
	}
	s := r.sack()
	if s.CumTSNAck != 3 || len(s.Gaps) != 0 {
		t.Fatalf("SACK cum %d gaps %v, want 3 and none", s.CumTSNAck, s.Gaps)
	}
	if r.e.SACKDue(r.now) || !r.e.SACKDeadline().IsZero() {
		t.Fatal("SACK still due after sending one")
	}
}

// RFC 9260 section 6.2: "Upon receipt of an SCTP packet containing a DATA
// chunk with the I bit set, the receiver SHOULD NOT delay the sending of
// the corresponding SACK chunk, i.e., the receiver SHOULD immediately
// respond with the corresponding SACK chunk."
func TestSACKImmediateBit(t *testing.T) {
	r := newRx(t, Config{})
	r.data(1, 0, 0, chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagImmediate, []byte{1})
	if !r.e.SACKDue(r.now) {
		t.Fatal("SACK delayed for a DATA chunk with the I bit")
	}
}

// RFC 9260 section 6.2: "When a packet arrives with duplicate DATA
// chunk(s) and with no new DATA chunk(s), the endpoint MUST immediately
// send a SACK chunk with no delay." "The duplicate TSN number(s) SHOULD be
// reported in the SACK chunk as duplicate."
func TestSACKDuplicate(t *testing.T) {
	r := newRx(t, Config{})
	r.whole(1, 0, 0, 10)
	r.sack()
	if v := r.whole(1, 0, 0, 10); v != Duplicate {
		t.Fatalf("verdict %v, want duplicate", v)
	}
	if !r.e.SACKDue(r.now) {
		t.Fatal("no immediate SACK for a duplicate")
	}
	s := r.sack()
	if len(s.Dups) != 1 || s.Dups[0] != 1 {
		t.Fatalf("dups %v, want [1]", s.Dups)
	}
	if len(r.readAll()) != 1 {
		t.Fatal("duplicate delivered twice")
	}
	// Absurd numbers of duplicates: the list stays bounded.
	for range 10000 {
		r.whole(1, 0, 0, 10)
	}
	if s := r.sack(); len(s.Dups) != maxDupTSNs {
		t.Fatalf("%d dups reported, want the bound %d", len(s.Dups), maxDupTSNs)
	}
}

// RFC 9260 section 6.7: "Upon the reception of a new DATA chunk, an
// endpoint examines the continuity of the TSNs received. If the
// endpoint detects a gap in the received DATA chunk sequence, it SHOULD
// send a SACK chunk with Gap Ack Blocks immediately." Section 6.2: "the
// SCTP endpoint MUST fill in the Cumulative TSN Ack field to indicate the
// latest sequential TSN (of a valid DATA chunk) it has received. Any
// received DATA chunks with TSN greater than the value in the Cumulative
// TSN Ack field are reported in the Gap Ack Block fields."
func TestSACKGapBlocks(t *testing.T) {
	r := newRx(t, Config{})
	r.whole(1, 0, 0, 1)
	r.sack()
	r.whole(3, 0, 2, 1)
	if !r.e.SACKDue(r.now) {
		t.Fatal("no immediate SACK on a gap")
	}
	r.whole(4, 0, 3, 1)
	r.whole(6, 0, 5, 1)
	s := r.sack()
	want := []GapBlock{{Start: 2, End: 3}, {Start: 5, End: 5}}
	if s.CumTSNAck != 1 || len(s.Gaps) != 2 || s.Gaps[0] != want[0] || s.Gaps[1] != want[1] {
		t.Fatalf("SACK cum %d gaps %v, want 1 %v", s.CumTSNAck, s.Gaps, want)
	}
	r.whole(2, 0, 1, 1)
	r.whole(5, 0, 4, 1)
	if s := r.sack(); s.CumTSNAck != 6 || len(s.Gaps) != 0 {
		t.Fatalf("after filling: cum %d gaps %v", s.CumTSNAck, s.Gaps)
	}
	if got := len(r.readAll()); got != 6 {
		t.Fatalf("read %d messages, want 6 in order", got)
	}
}

// RFC 9260 section 6.2: "The SCTP endpoint MUST report as many Gap Ack
// Blocks as can fit in a single SACK chunk such that the size of the SCTP
// packet does not exceed the current PMTU."
func TestSACKGapBlocksFit(t *testing.T) {
	r := newRx(t, Config{})
	for i := TSN(0); i < 1000; i++ {
		r.whole(3+2*i, 0, uint16(2+2*i), 1) // every other TSN missing: 1000 blocks
	}
	b := r.e.AppendSACK(r.now, nil, 200)
	var s SACK
	if !parseSACK(b, &s) || len(b) > 200 || len(s.Gaps) != (200-16)/4 {
		t.Fatalf("SACK of %d bytes with %d gaps, want at most 200 bytes and %d gaps", len(b), len(s.Gaps), (200-16)/4)
	}
}

// RFC 9260 section 6.2: "When the receiver's advertised window is 0, the
// receiver MUST drop any new incoming DATA chunk with a TSN larger than the
// largest TSN received so far. ... In either case, if such a DATA chunk is
// dropped, the receiver MUST immediately send back a SACK chunk with the
// current receive window showing only DATA chunks received and accepted so
// far. The dropped DATA chunk(s) MUST NOT be included in the SACK chunk, as
// they were not accepted."
func TestReceiveWindowFull(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 2000}})
	r.whole(1, 0, 0, 1000)
	r.whole(2, 0, 1, 1000)
	if s := r.sack(); s.ARwnd != 0 {
		t.Fatalf("a_rwnd %d with the buffer full, want 0", s.ARwnd)
	}
	if v := r.whole(3, 0, 2, 1000); v != Dropped {
		t.Fatalf("verdict %v for data beyond a zero window, want dropped", v)
	}
	if !r.e.SACKDue(r.now) {
		t.Fatal("no immediate SACK after dropping")
	}
	if s := r.sack(); s.CumTSNAck != 2 || len(s.Gaps) != 0 || s.ARwnd != 0 {
		t.Fatalf("SACK cum %d gaps %v a_rwnd %d, want 2, none, 0", s.CumTSNAck, s.Gaps, s.ARwnd)
	}
	if r.e.stats.DroppedWindow != 1 {
		t.Fatalf("DroppedWindow %d", r.e.stats.DroppedWindow)
	}
}

// RFC 9260 section 6.2: "Also, if the new incoming DATA chunk holds a TSN
// value less than the largest TSN received so far, then the receiver
// SHOULD drop the largest TSN held for reordering and accept the new
// incoming DATA chunk." "If a data receiver drops DATA chunks, it MUST NOT
// include them in Gap Ack Blocks in subsequent SACK chunks until they are
// received again via retransmission."
func TestReceiveWindowFullHoleFiller(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 2000}})
	r.whole(2, 0, 1, 1000)
	r.whole(3, 0, 2, 1000) // window now 0, TSN 1 missing
	if s := r.sack(); s.CumTSNAck != 0 || len(s.Gaps) != 1 || s.Gaps[0] != (GapBlock{Start: 2, End: 3}) {
		t.Fatalf("SACK cum %d gaps %v", s.CumTSNAck, s.Gaps)
	}
	if v := r.whole(1, 0, 0, 400); v != Accepted {
		t.Fatalf("hole filler: %v, want accepted", v)
	}
	if !r.e.SACKDue(r.now) || r.e.stats.DroppedReneged != 1 {
		t.Fatalf("SACK due %v, DroppedReneged %d", r.e.SACKDue(r.now), r.e.stats.DroppedReneged)
	}
	if s := r.sack(); s.CumTSNAck != 2 || len(s.Gaps) != 0 {
		t.Fatalf("SACK cum %d gaps %v, want 2 and TSN 3 no longer reported", s.CumTSNAck, s.Gaps)
	}
	if got := r.readAll(); len(got) != 2 {
		t.Fatalf("read %v, want 2 messages", got)
	}
	if v := r.whole(3, 0, 2, 1000); v != Accepted { // the retransmission
		t.Fatalf("retransmitted TSN 3: %v", v)
	}
	if got := r.readAll(); len(got) != 1 {
		t.Fatalf("read %v after the retransmission", got)
	}
}

// RFC 9260 section 6.2: "When the window opens up, an SCTP receiver SHOULD
// send additional SACK chunks to update the window even if no new data is
// received. The receiver MUST avoid sending a large number of window
// updates -- in particular, large bursts of them. One way to achieve this
// is to send a window update only if the window can be increased by at
// least a quarter of the receive buffer size of the association."
func TestWindowUpdate(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 8000}})
	for i := range 8 {
		r.whole(TSN(1+i), 0, uint16(i), 1000)
	}
	if s := r.sack(); s.ARwnd != 0 {
		t.Fatalf("a_rwnd %d, want 0", s.ARwnd)
	}
	buf := make([]byte, 1000)
	r.e.Read(buf)
	if r.e.SACKDue(r.now) {
		t.Fatal("window update after freeing an eighth of the buffer")
	}
	r.e.Read(buf)
	if !r.e.SACKDue(r.now) {
		t.Fatal("no window update after freeing a quarter of the buffer")
	}
	if s := r.sack(); s.ARwnd != 2000 {
		t.Fatalf("window update a_rwnd %d, want 2000", s.ARwnd)
	}
}

// RFC 9260 section 6.5: "If an endpoint receives a DATA chunk with an
// invalid stream identifier, it SHOULD acknowledge the reception of the
// DATA chunk following the normal procedure, immediately send an ERROR
// chunk with cause set to "Invalid Stream Identifier" ..., and discard the
// DATA chunk."
func TestInvalidStream(t *testing.T) {
	r := newRx(t, Config{OutStreams: 2, InStreams: 2})
	if v := r.whole(1, 2, 0, 10); v != InvalidStream {
		t.Fatalf("verdict %v, want invalid-stream", v)
	}
	if v := r.whole(2, 65535, 0, 10); v != InvalidStream {
		t.Fatalf("verdict %v, want invalid-stream", v)
	}
	if s := r.sack(); s.CumTSNAck != 2 {
		t.Fatalf("cum %d, want the invalid chunks acknowledged (2)", s.CumTSNAck)
	}
	if len(r.readAll()) != 0 {
		t.Fatal("data of an invalid stream delivered")
	}
}

// RFC 9260 section 6.2: "If an endpoint receives a DATA chunk with no user
// data (i.e., the Length field is set to 16), it SHOULD send an ABORT
// chunk with a "No User Data" error cause."
func TestNoUserData(t *testing.T) {
	r := newRx(t, Config{})
	_, err := r.e.HandleData(r.now, &Data{TSN: 1, Flags: chunk.FlagBeginning | chunk.FlagEnd})
	if !errors.Is(err, ErrEmptyMessage) {
		t.Fatalf("err %v, want ErrEmptyMessage", err)
	}
}

// RFC 9260 section 6.6: "Within a stream, an endpoint MUST deliver DATA
// chunks received with the U flag set to 0 to the upper layer according
// to the order of their Stream Sequence Number. If DATA chunks arrive out
// of order of their Stream Sequence Number, the endpoint MUST hold the
// received DATA chunks from delivery to the ULP until they are reordered."
// And: "When an endpoint receives a DATA chunk with the U flag set to 1, it
// bypasses the ordering mechanism and immediately deliver the data to
// the upper layer (after reassembly if the user data is fragmented by the
// data sender)."
func TestOrderedAndUnorderedDelivery(t *testing.T) {
	r := newRx(t, Config{})
	r.data(2, 1, 1, chunk.FlagBeginning|chunk.FlagEnd, []byte("second"))
	r.data(3, 1, 0, chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered, []byte("unordered"))
	buf := make([]byte, 100)
	n, info, err := r.e.Read(buf)
	if err != nil || string(buf[:n]) != "unordered" || !info.Unordered || !info.EOR {
		t.Fatalf("first read %q %+v %v, want the unordered message", buf[:n], info, err)
	}
	if _, _, err := r.e.Read(buf); !errors.Is(err, ErrWouldBlock) {
		t.Fatal("SSN 1 delivered before SSN 0")
	}
	r.data(1, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("first"))
	for _, want := range []string{"first", "second"} {
		n, info, err := r.e.Read(buf)
		if err != nil || string(buf[:n]) != want || info.SID != 1 {
			t.Fatalf("read %q sid %d %v, want %q", buf[:n], info.SID, err, want)
		}
	}
}

// RFC 9260 section 6.9: "An endpoint MUST recognize fragmented DATA chunks
// by examining the B/E bits in each of the received DATA chunks and queue
// the fragmented DATA chunks for reassembly. Once the user message is
// reassembled, SCTP passes the reassembled user message to the specific
// stream for possible reordering and final dispatching." Fragments
// arriving out of order are reassembled by TSN.
func TestReassembly(t *testing.T) {
	r := newRx(t, Config{})
	r.data(12, 0, 0, chunk.FlagEnd, []byte("c"))
	r.data(10, 0, 0, chunk.FlagBeginning, []byte("a"))
	if r.e.Readable() {
		t.Fatal("incomplete message readable")
	}
	r.data(11, 0, 0, 0, []byte("b"))
	buf := make([]byte, 2) // smaller than the message: read in parts
	n, info, _ := r.e.Read(buf)
	if string(buf[:n]) != "ab" || info.EOR {
		t.Fatalf("first part %q EOR %v", buf[:n], info.EOR)
	}
	n, info, _ = r.e.Read(buf)
	if string(buf[:n]) != "c" || !info.EOR || info.TSN != 10 {
		t.Fatalf("second part %q %+v", buf[:n], info)
	}
}

// RFC 9260 section 6.9: a message larger than the receive buffer cannot
// be reassembled whole; "If the data receiver runs out of buffer space
// while still waiting for more fragments to complete the reassembly of the
// message, it SHOULD dispatch part of its inbound message through a
// partial delivery API (see Section 11), freeing some of its receive
// buffer space so that the rest of the message can be received." (partial
// delivery), so the association does not stall.
func TestPartialDelivery(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	payload := func(i int) []byte {
		b := make([]byte, 1000)
		for j := range b {
			b[j] = byte(i)
		}
		return b
	}
	var got []byte
	buf := make([]byte, 1500)
	for i := range 10 {
		flags := uint8(0)
		if i == 0 {
			flags = chunk.FlagBeginning
		}
		if i == 9 {
			flags = chunk.FlagEnd
		}
		if v := r.data(TSN(1+i), 0, 0, flags, payload(i)); v != Accepted {
			t.Fatalf("fragment %d: %v", i, v)
		}
		for {
			n, info, err := r.e.Read(buf)
			if err != nil {
				break
			}
			got = append(got, buf[:n]...)
			if info.EOR != (len(got) == 10000) {
				t.Fatalf("EOR %v at %d bytes", info.EOR, len(got))
			}
		}
	}
	if len(got) != 10000 {
		t.Fatalf("read %d bytes, want 10000", len(got))
	}
	for i := range got {
		if got[i] != byte(i/1000) {
			t.Fatalf("byte %d = %d", i, got[i])
		}
	}
	if r.e.stats.PartialDeliveries != 1 {
		t.Fatalf("PartialDeliveries %d", r.e.stats.PartialDeliveries)
	}
}

// The TSN map works across the 2^32 wrap (RFC 9260 section 1.6, serial
// number arithmetic).
func TestTSNWrap(t *testing.T) {
	r := newRx(t, Config{PeerTSN: 0xfffffffe})
	r.whole(0xfffffffe, 0, 0, 1)
	r.whole(0x00000001, 0, 3, 1) // 0xffffffff and 0 missing
	s := r.sack()
	if s.CumTSNAck != 0xfffffffe || len(s.Gaps) != 1 || s.Gaps[0] != (GapBlock{Start: 3, End: 3}) {
		t.Fatalf("SACK cum %x gaps %v", s.CumTSNAck, s.Gaps)
	}
	r.whole(0xffffffff, 0, 1, 1)
	r.whole(0, 0, 2, 1)
	if s := r.sack(); s.CumTSNAck != 1 || len(s.Gaps) != 0 {
		t.Fatalf("after the wrap cum %x gaps %v", s.CumTSNAck, s.Gaps)
	}
	if n := len(r.readAll()); n != 4 {
		t.Fatalf("read %d messages, want 4", n)
	}
}

// Hostile input: DATA far outside the TSN map's window (or far behind the
// cumulative TSN) is dropped or treated as a duplicate, never stored.
func TestDataOutsideWindow(t *testing.T) {
	r := newRx(t, Config{})
	if v := r.whole(1+tsnMapBits+1, 0, 0, 10); v != Dropped {
		t.Fatalf("TSN beyond the map: %v", v)
	}
	if v := r.whole(1+0x80000000, 0, 0, 10); v == Accepted {
		t.Fatalf("TSN half the space away: %v", v) // serial order undefined: dropped or duplicate
	}
	if v := r.whole(0, 0, 0, 10); v != Duplicate { // behind the cumulative TSN
		t.Fatalf("TSN behind the cumulative TSN: %v", v)
	}
	if r.e.RecvHeld() != 0 || r.e.stats.DroppedRange != 1 {
		t.Fatalf("held %d, DroppedRange %d", r.e.RecvHeld(), r.e.stats.DroppedRange)
	}
}

// Hostile input: an ordered fragment whose SSN was already delivered is a
// protocol violation, not a crash or a second delivery.
func TestOldSSN(t *testing.T) {
	r := newRx(t, Config{})
	r.whole(1, 0, 0, 1)
	r.readAll()
	if _, err := r.e.HandleData(r.now, &Data{TSN: 2, SSN: 0, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte{1}}); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("old SSN: %v, want ErrProtocolViolation", err)
	}
	if len(r.readAll()) != 0 {
		t.Fatal("old SSN delivered")
	}
}

// RFC 9260 section 6.2: "The receiver MUST also have an algorithm for
// advertising its receive window to avoid receiver silly window syndrome
// (SWS), as described in [RFC1122]."
func TestReceiverSWS(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 8000}})
	for i := range 8 {
		r.whole(TSN(1+i), 0, uint16(i), 1000)
	}
	buf := make([]byte, 1000)
	r.e.Read(buf)
	if s := r.sack(); s.ARwnd != 0 {
		t.Fatalf("a_rwnd %d for 1000 free bytes, want 0 (below a full chunk)", s.ARwnd)
	}
	r.e.Read(buf)
	if s := r.sack(); s.ARwnd != 2000 {
		t.Fatalf("a_rwnd %d, want 2000", s.ARwnd)
	}
}

// While a message is in partial delivery, Read continues it before
// anything else (complete messages of other streams wait for Read behind
// it, though their stream's reader may take them). When they fill the
// window, the next fragment of the message in partial delivery is still
// accepted (once its stream was read), or the window would never open
// again for a reader that only uses Read.
func TestPartialDeliveryFullWindow(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.whole(2, 1, 1, 1400) // stream 1 waits for SSN 0 (TSN 1)
	r.whole(3, 1, 2, 1400)
	r.data(4, 0, 0, chunk.FlagBeginning, make([]byte, 600)) // held 3400: partial delivery of stream 0 starts
	r.data(5, 0, 0, 0, make([]byte, 600))
	buf := make([]byte, 4000)
	if n, info, err := r.e.Read(buf); err != nil || n != 1200 || info.EOR || info.SID != 0 {
		t.Fatalf("partial read %d %+v %v", n, info, err)
	}
	r.whole(1, 1, 0, 1200) // stream 1 complete: waits behind the partial delivery for Read
	if !r.e.ReadableStream(1) {
		t.Fatal("stream 1 not readable on its own")
	}
	if r.e.Readable() || r.e.recv.window() != 0 {
		t.Fatalf("readable %v window %d, want waiting messages and a full window", r.e.Readable(), r.e.recv.window())
	}
	if v := r.data(6, 0, 0, chunk.FlagEnd, make([]byte, 500)); v != Accepted {
		t.Fatalf("next fragment of the partial delivery: %v, want accepted", v)
	}
	n, info, _ := r.e.Read(buf)
	if n != 500 || !info.EOR || info.SID != 0 {
		t.Fatalf("end of the partial message: %d %+v", n, info)
	}
	if got := r.readAll(); len(got) != 3 {
		t.Fatalf("then %v, want the 3 waiting messages", got)
	}
	if r.e.stats.PartialOverrun != 1 {
		t.Fatalf("PartialOverrun %d", r.e.stats.PartialOverrun)
	}
}

// The TSN map's window is exactly 16384 TSNs above the cumulative TSN: a
// DATA chunk cum+16384 ahead is accepted and reported in a Gap Ack Block,
// one cum+16385 ahead is dropped and counted (the peer retransmits it once
// the window moved), on both sides of the 2^32 wrap. A chunk at the edge
// shares its bitmap word with the TSNs just above cum, so filling the hole
// must advance the cumulative TSN over TSN cum+1 only.
func TestTSNWindowEdge(t *testing.T) {
	for _, peer := range []TSN{1, 0xffffff00, 0xffffc000} {
		r := newRx(t, Config{PeerTSN: peer})
		cum := peer - 1
		if v := r.whole(cum+16385, 0, 1, 1); v != Dropped {
			t.Fatalf("peer TSN %#x: cum+16385: %v, want dropped", peer, v)
		}
		if r.e.stats.DroppedRange != 1 || r.e.RecvHeld() != 0 {
			t.Fatalf("peer TSN %#x: DroppedRange %d held %d after cum+16385", peer, r.e.stats.DroppedRange, r.e.RecvHeld())
		}
		if v := r.whole(cum+16384, 0, 1, 1); v != Accepted {
			t.Fatalf("peer TSN %#x: cum+16384: %v, want accepted", peer, v)
		}
		s := r.sack()
		if s.CumTSNAck != cum || len(s.Gaps) != 1 || s.Gaps[0] != (GapBlock{Start: 16384, End: 16384}) {
			t.Fatalf("peer TSN %#x: SACK cum %#x gaps %v, want cum %#x and gap 16384-16384", peer, s.CumTSNAck, s.Gaps, cum)
		}
		r.whole(cum+1, 0, 0, 1)
		if s := r.sack(); s.CumTSNAck != cum+1 || len(s.Gaps) != 1 || s.Gaps[0] != (GapBlock{Start: 16383, End: 16383}) {
			t.Fatalf("peer TSN %#x: after cum+1, SACK cum %#x gaps %v", peer, s.CumTSNAck, s.Gaps)
		}
		// The window moved by one: cum+16385 (now the new cum+16384) fits.
		if v := r.whole(cum+16385, 0, 2, 1); v != Accepted {
			t.Fatalf("peer TSN %#x: cum+16385 after the window moved: %v, want accepted", peer, v)
		}
		if r.e.stats.DroppedRange != 1 {
			t.Fatalf("peer TSN %#x: DroppedRange %d, want 1", peer, r.e.stats.DroppedRange)
		}
	}
}

// TestWindowUpdateLargeMTU: a receive buffer smaller than the MTU (32 KiB
// with 64 KB packets) still sends window updates. RFC 9260 section 6.2:
// "The receiver MUST also have an algorithm for advertising its receive
// window to avoid receiver silly window syndrome (SWS), as described in
// [RFC1122]": RFC 1122's update threshold is the smaller of half the
// buffer and a full segment, and a threshold of one MTU would exceed the
// whole buffer here: the window, once closed, would open only through the
// peer's zero window probes.
func TestWindowUpdateLargeMTU(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 32 << 10}, MTU: 65535})
	for i := range 32 {
		r.whole(TSN(1+i), 0, uint16(i), 1024)
	}
	if s := r.sack(); s.ARwnd != 0 {
		t.Fatalf("a_rwnd %d, want 0", s.ARwnd)
	}
	buf := make([]byte, 1024)
	for range 15 {
		r.e.Read(buf)
	}
	if r.e.SACKDue(r.now) {
		t.Fatal("window update before half the buffer is free")
	}
	r.e.Read(buf)
	if !r.e.SACKDue(r.now) {
		t.Fatal("no window update with half the buffer free")
	}
	if s := r.sack(); s.ARwnd != 16<<10 {
		t.Fatalf("window update a_rwnd %d, want %d", s.ARwnd, 16<<10)
	}
}

// TestAdvertisedWindowBelow2GiB: a receive buffer of 2 GiB or more is
// advertised as 2 GiB less one byte, since a peer takes an a_rwnd with the
// top bit set for a negative window (as the sender here does).
func TestAdvertisedWindowBelow2GiB(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 3 << 30, RecvBufferMax: 3 << 30}})
	r.whole(1, 0, 0, 100)
	if s := r.sack(); s.ARwnd != negativeWindow-1 {
		t.Fatalf("a_rwnd %d with a 3 GiB receive buffer, want %d", s.ARwnd, negativeWindow-1)
	}
}
