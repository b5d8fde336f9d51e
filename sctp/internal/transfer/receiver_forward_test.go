package transfer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// fwd hands the receiver a FORWARD-TSN; entries are (sid, ssn) pairs.
func (r *rx) fwd(cum TSN, entries ...uint16) error {
	r.t.Helper()
	var es []chunk.StreamSSN
	for i := 0; i+1 < len(entries); i += 2 {
		es = append(es, chunk.StreamSSN{SID: entries[i], SSN: entries[i+1]})
	}
	c := chunkOf(r.t, func(b []byte) []byte { b, _ = chunk.AppendForwardTSN(b, cum, es); return b })
	return r.e.HandleForwardTSN(r.now, c)
}

// The example of RFC 3758 section 3.6: "In this example, the receiver's
// cumulative TSN point is first updated to 103 and then further advanced to
// 105." "After the above processing, the data receiver MUST stop reporting
// any missing TSNs earlier than or equal to the new cumulative TSN point."
func TestForwardTSNAdvancesCumulative(t *testing.T) {
	r := newRx(t, Config{PeerTSN: 100})
	for _, tsn := range []TSN{100, 101, 102, 104, 105, 107} {
		r.data(tsn, 1, 0, chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered, make([]byte, 10))
	}
	if err := r.fwd(103); err != nil {
		t.Fatal(err)
	}
	if !r.e.SACKDue(r.now) {
		t.Fatal("no SACK due after FORWARD-TSN")
	}
	s := r.sack()
	if s.CumTSNAck != 105 || len(s.Gaps) != 1 || s.Gaps[0] != (GapBlock{Start: 2, End: 2}) {
		t.Fatalf("SACK cum %d gaps %v, want 105 and 107 as gap 2-2", s.CumTSNAck, s.Gaps)
	}
}

// RFC 3758 section 3.6: "during processing of a FORWARD TSN, the receiver
// MUST use the stream sequence information to examine all of the listed
// stream reordering queues, and immediately make available for delivery
// stream sequence numbers earlier than or equal to the stream sequence
// number listed inside the FORWARD TSN." Later messages of the stream
// follow in order.
func TestForwardTSNSkipsSSN(t *testing.T) {
	r := newRx(t, Config{})
	// Stream 2: SSN 0 (TSN 1) abandoned and lost; SSN 1 and 2 arrived.
	r.whole(2, 2, 1, 10)
	r.whole(3, 2, 2, 20)
	if got := r.readAll(); len(got) != 0 {
		t.Fatalf("read %v before the FORWARD-TSN", got)
	}
	if err := r.fwd(1, 2, 0); err != nil {
		t.Fatal(err)
	}
	if got := r.readAll(); len(got) != 2 || got[0] != 10 || got[1] != 20 {
		t.Fatalf("read %v, want the stranded SSNs 1 and 2", got)
	}
	if s := r.sack(); s.CumTSNAck != 3 {
		t.Fatalf("cum %d", s.CumTSNAck)
	}
	// Section 3.6: "if a TSN that was skipped does arrive (i.e., due to
	// network reordering), then the receiver will follow the normal rules
	// defined in RFC 2960 [2] for handling duplicate data."
	if v := r.whole(1, 2, 0, 10); v != Duplicate {
		t.Fatalf("late skipped TSN: %v, want duplicate", v)
	}
}

// RFC 3758 section 3.6: "The receiver MUST remove any partially
// reassembled message, which is still missing one or more TSNs earlier
// than or equal to the new cumulative TSN point." A complete message below
// the point waiting for its turn is delivered, not dropped.
func TestForwardTSNDropsIncomplete(t *testing.T) {
	r := newRx(t, Config{})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 100)) // TSN 2, 3 (rest of SSN 0) abandoned
	r.whole(4, 0, 1, 30)
	r.data(5, 1, 0, chunk.FlagBeginning|chunk.FlagUnordered, make([]byte, 100)) // its end (6) abandoned
	if err := r.fwd(6, 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := r.readAll(); len(got) != 1 || got[0] != 30 {
		t.Fatalf("read %v, want SSN 1 only", got)
	}
	if h := r.e.RecvHeld(); h != 0 {
		t.Fatalf("%d bytes still held", h)
	}
}

// An out-of-date FORWARD-TSN still drops the message it gives up: Linux
// 6.1 (priority policy) cuts a message short after its first fragments
// were acknowledged and sends FORWARD-TSN to the last fragment sent, which
// is the receiver's cumulative TSN already. The cumulative TSN stays (RFC
// 3758 section 3.6: "MUST NOT update its Cumulative TSN"), the fragments
// go and the stream moves on to its next message.
func TestForwardTSNStaleDropsCutMessage(t *testing.T) {
	r := newRx(t, Config{})
	r.data(1, 1, 0, chunk.FlagBeginning, make([]byte, 100))
	r.data(2, 1, 0, 0, make([]byte, 100))
	r.data(3, 1, 0, 0, make([]byte, 100)) // the rest of SSN 0 was never sent
	r.whole(4, 1, 1, 40)
	if got := r.readAll(); len(got) != 0 {
		t.Fatalf("read %v before the FORWARD-TSN", got)
	}
	if err := r.fwd(3, 1, 0); err != nil {
		t.Fatal(err)
	}
	if got := r.readAll(); len(got) != 1 || got[0] != 40 {
		t.Fatalf("read %v, want SSN 1", got)
	}
	if r.e.RecvHeld() != 0 || r.e.CumulativeTSN() != 4 || r.e.stats.ForwardTSNsStale != 1 {
		t.Fatalf("held %d cum %d stale %d", r.e.RecvHeld(), r.e.CumulativeTSN(), r.e.stats.ForwardTSNsStale)
	}
}

// A partial delivery of an abandoned message ends: the reader gets the
// parts delivered, then an empty read with Aborted, then the next message.
// RFC 3758 section 3.6: "In the event that the receiver has invoked the
// partial delivery API, a notification SHOULD also be generated to inform
// the upper layer API that the message being partially delivered will NOT
// be completed."
func TestForwardTSNAbortsPartialDelivery(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 1200))
	r.data(2, 0, 0, 0, make([]byte, 1200))
	if r.e.stats.PartialDeliveries != 1 {
		t.Fatalf("partial delivery did not start")
	}
	buf := make([]byte, 1000)
	if n, info, err := r.e.Read(buf); err != nil || n != 1000 || info.EOR {
		t.Fatalf("first part: %d %+v %v", n, info, err)
	}
	r.whole(5, 0, 1, 50) // the next message; TSN 3, 4 abandoned
	if err := r.fwd(4, 0, 0); err != nil {
		t.Fatal(err)
	}
	total := 1000
	for {
		n, info, err := r.e.Read(buf)
		if err != nil {
			t.Fatalf("no abort marker after %d bytes: %v", total, err)
		}
		if info.Aborted {
			if n != 0 || info.SID != 0 || info.SSN != 0 {
				t.Fatalf("abort marker %d %+v", n, info)
			}
			break
		}
		if info.SSN != 0 || info.EOR {
			t.Fatalf("part %+v", info)
		}
		total += n
	}
	if total != 2400 {
		t.Fatalf("read %d bytes of the aborted message, want 2400", total)
	}
	if got := r.readAll(); len(got) != 1 || got[0] != 50 {
		t.Fatalf("read %v after the abort", got)
	}
	if r.e.stats.PartialDeliveriesAborted != 1 || r.e.RecvHeld() != 0 {
		t.Fatalf("PartialDeliveriesAborted %d held %d", r.e.stats.PartialDeliveriesAborted, r.e.RecvHeld())
	}
}

// Hostile and stale FORWARD-TSNs: a stream out of range or a jump beyond the
// TSN map's window is discarded and counted; an old one changes nothing but
// asks for a SACK.
func TestForwardTSNHostile(t *testing.T) {
	r := newRx(t, Config{})
	r.whole(1, 0, 0, 10)
	r.sack()
	if err := r.fwd(5, 4, 0); !errors.Is(err, interleave.ErrInvalidStream) {
		t.Fatalf("stream 4 of 4: %v", err)
	}
	if err := r.fwd(1 + tsnMapBits + 1); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("beyond the window: %v", err)
	}
	if r.e.CumulativeTSN() != 1 || r.e.stats.ForwardTSNsInvalid != 2 {
		t.Fatalf("cum %d invalid %d", r.e.CumulativeTSN(), r.e.stats.ForwardTSNsInvalid)
	}
	// Section 3.6: "if the "New Cumulative TSN" value carried in the
	// arrived FORWARD TSN chunk is found to be behind or at the current
	// cumulative TSN point, the data receiver MUST treat this FORWARD TSN as
	// out-of-date and MUST NOT update its Cumulative TSN. The receiver
	// SHOULD send a SACK to its peer".
	if err := r.fwd(1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if !r.e.SACKDue(r.now) || r.e.stats.ForwardTSNsStale != 1 || r.e.CumulativeTSN() != 1 {
		t.Fatal("stale FORWARD-TSN not answered with a SACK")
	}
	ri := newRx(t, Config{Interleaved: true})
	if err := ri.fwd(5); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("FORWARD-TSN with I-DATA: %v", err)
	}
}

// FuzzForwardTSN: any FORWARD-TSN after any DATA leaves the receiver
// consistent (no panic, held bytes match what can be read).
func FuzzForwardTSN(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 0, 0, 0, 0}, []byte{1, 0, 2, 0, 4, 1})
	f.Add([]byte{0, 0, 0, 9, 0, 1, 0, 5, 0, 0, 0, 1}, []byte{2, 1, 3, 1, 5, 0})
	f.Fuzz(func(t *testing.T, fwd []byte, data []byte) {
		r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 3000}})
		for i := 0; i+2 < len(data); i += 3 {
			tsn := TSN(1 + data[i]%16)
			flags := data[i+1] & (chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered)
			if _, err := r.e.HandleData(r.now, &Data{TSN: tsn, SID: uint16(data[i+2] % 4), SSN: uint16(data[i+2] / 4 % 4),
				Flags: flags, Payload: make([]byte, 300)}); err != nil {
				return
			}
			r.e.EndPacket(r.now)
		}
		b := append([]byte{byte(chunk.TypeForwardTSN), 0, 0, 0}, fwd...)
		b[2], b[3] = byte((len(b))>>8), byte(len(b))
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		it := chunk.Chunks(b)
		c, ok := it.Next()
		if !ok {
			return
		}
		r.e.HandleForwardTSN(r.now, c)
		buf := make([]byte, 100)
		for range 1000 {
			if _, _, err := r.e.Read(buf); err != nil {
				break
			}
		}
		if r.e.Readable() {
			t.Fatal("still readable after reading everything")
		}
	})
}

// A partial delivery whose next TSN arrives holding another message ends at
// once: fragments of a message have consecutive TSNs (RFC 9260 section
// 6.9), so the sender gave the rest of it up (its placeholder TSN may even
// have been acknowledged already by a FORWARD-TSN that raced ahead).
func TestPartialDeliveryEndsOnForeignFragment(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 1200))
	r.data(2, 0, 0, 0, make([]byte, 1200))
	if r.e.stats.PartialDeliveries != 1 {
		t.Fatal("partial delivery did not start")
	}
	r.data(3, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 10))
	r.data(4, 0, 1, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 20))
	buf := make([]byte, 4096)
	var sizes []int
	aborted := false
	for {
		n, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		if info.Aborted {
			aborted = true
			continue
		}
		if info.EOR {
			sizes = append(sizes, n)
		}
	}
	if !aborted || len(sizes) != 2 {
		t.Fatalf("aborted %v, complete messages %v; want the abort and both later messages", aborted, sizes)
	}
}

// The same when the foreign fragment arrived before the partial delivery
// started (Linux 6.1 gives up the rest of a message whose first fragment
// was acknowledged, under a lifetime, and sends no FORWARD-TSN for it):
// stream 0's SSN 0 has TSN 1 only, TSN 2 is stream 1's message, and stream
// 1's later messages, held behind a missing TSN, start the partial
// delivery of SSN 0; it ends at once with the Aborted marker.
func TestPartialDeliveryForeignFragmentFirst(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 1000))
	r.data(2, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 10))
	r.data(4, 1, 2, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 1200)) // TSN 3 (stream 1 SSN 1) missing
	if r.e.stats.PartialDeliveries != 1 {
		t.Fatal("partial delivery did not start")
	}
	buf := make([]byte, 4096)
	var got []int
	aborted := false
	for {
		n, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		switch {
		case info.Aborted:
			aborted = true
		case info.SID == 0:
			got = append(got, -n)
		case info.EOR:
			got = append(got, n)
		}
	}
	if !aborted || len(got) != 2 || got[0]+got[1] != -990 {
		t.Fatalf("aborted %v, reads %v; want SSN 0's part (-1000), the abort and stream 1's SSN 0 (10)", aborted, got)
	}
	r.data(3, 1, 1, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 30))
	r.data(5, 0, 1, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 50))
	got = got[:0]
	for {
		n, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		got = append(got, int(info.SID)*10000+n)
	}
	if len(got) != 3 {
		t.Fatalf("reads %v after the abort; want stream 1's SSN 1 and 2 and stream 0's SSN 1", got)
	}
}

// A partial delivery ended by a foreign fragment lets its stream's next
// message, already complete, go at once; it is read whole, with no abort
// marker after it (one turned up when a later partial delivery started on
// the complete message and ran past its end).
func TestPartialDeliveryAbortReleasesStream(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 1200))
	r.data(2, 0, 0, 0, make([]byte, 1200))
	r.data(4, 0, 1, chunk.FlagBeginning, make([]byte, 300))
	r.data(5, 0, 1, chunk.FlagEnd, make([]byte, 300))
	if r.e.stats.PartialDeliveries != 1 {
		t.Fatal("partial delivery did not start")
	}
	r.data(3, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 10)) // SSN 0's TSN 3 holds another message
	buf := make([]byte, 4096)
	var reads []string
	for {
		n, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		reads = append(reads, fmt.Sprintf("s%d/%d:%d%s%s", info.SID, info.SSN, n,
			map[bool]string{true: "E"}[info.EOR], map[bool]string{true: "A"}[info.Aborted]))
	}
	want := "[s0/0:2400 s0/0:0A s0/1:600E s1/0:10E]"
	if fmt.Sprint(reads) != want && fmt.Sprint(reads) != "[s0/0:2400 s0/0:0A s1/0:10E s0/1:600E]" {
		t.Fatalf("reads %v, want %s", reads, want)
	}
}
