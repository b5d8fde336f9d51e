package transfer

import (
	"errors"
	"slices"
	"testing"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 1.5.2: "On the receiving side, SCTP ensures that
// messages are delivered to the SCTP user in sequence within a given
// stream. However, while one stream might be blocked waiting for the next
// in-sequence user message, delivery from other streams might proceed."
// A reader of stream 1 gets its message while an earlier message of stream
// 0 sits unread, and Read still returns stream 0's first.
func TestReadStreamIndependent(t *testing.T) {
	r := newRx(t, Config{})
	r.data(1, 0, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("zero"))
	r.data(2, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("one"))
	buf := make([]byte, 100)
	if !r.e.ReadableStream(1) || r.e.ReadableStream(2) {
		t.Fatal("ReadableStream wrong")
	}
	n, info, err := r.e.ReadStream(1, buf)
	if err != nil || string(buf[:n]) != "one" || info.SID != 1 || !info.EOR || info.TSN != 2 {
		t.Fatalf("ReadStream(1): %q %+v %v", buf[:n], info, err)
	}
	if _, _, err := r.e.ReadStream(1, buf); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("ReadStream(1) again: %v, want ErrWouldBlock", err)
	}
	if _, _, err := r.e.ReadStream(3, buf); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("ReadStream(3): %v, want ErrWouldBlock", err)
	}
	n, info, err = r.e.Read(buf)
	if err != nil || string(buf[:n]) != "zero" || info.SID != 0 || !info.EOR {
		t.Fatalf("Read: %q %+v %v", buf[:n], info, err)
	}
	if r.e.Readable() || r.e.RecvHeld() != 0 {
		t.Fatalf("readable %v held %d after reading everything", r.e.Readable(), r.e.RecvHeld())
	}
}

// RFC 9260 section 6.6: "Within a stream, an endpoint MUST deliver DATA
// chunks received with the U flag set to 0 to the upper layer according
// to the order of their Stream Sequence Number." Read returns messages in
// the order they became deliverable across streams: stream 1's message,
// complete first, before stream 0's, which waited for SSN 0.
func TestReadArrivalOrder(t *testing.T) {
	r := newRx(t, Config{})
	r.data(2, 0, 1, chunk.FlagBeginning|chunk.FlagEnd, []byte("0/1"))
	r.data(3, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("1/0"))
	r.data(4, 2, 7, chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered, []byte("2/u"))
	r.data(1, 0, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("0/0"))
	r.data(5, 1, 1, chunk.FlagBeginning|chunk.FlagEnd, []byte("1/1"))
	var got []string
	buf := make([]byte, 100)
	for {
		n, _, err := r.e.Read(buf)
		if err != nil {
			break
		}
		got = append(got, string(buf[:n]))
	}
	if want := []string{"1/0", "2/u", "0/0", "0/1", "1/1"}; !slices.Equal(got, want) {
		t.Fatalf("Read order %v, want %v", got, want)
	}
}

// A message larger than the reader's buffer keeps its place whoever reads
// next: Read takes a part, ReadStream continues it, Read finishes it, and
// every part names the message (stream, SSN, PPID, first TSN).
func TestReadPartsMixed(t *testing.T) {
	r := newRx(t, Config{})
	r.data(10, 2, 0, chunk.FlagBeginning, []byte("abc"))
	r.data(11, 2, 0, 0, []byte("def"))
	r.data(12, 2, 0, chunk.FlagEnd, []byte("gh"))
	r.data(13, 2, 1, chunk.FlagBeginning|chunk.FlagEnd, []byte("next"))
	r.data(14, 3, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("other"))
	var got []byte
	check := func(n int, info RecvInfo, err error, eor bool, p []byte) {
		t.Helper()
		if err != nil || info.SID != 2 || info.SSN != 0 || info.TSN != 10 || info.EOR != eor {
			t.Fatalf("part %q: %+v %v", p[:n], info, err)
		}
		got = append(got, p[:n]...)
	}
	p := make([]byte, 2)
	n, info, err := r.e.Read(p)
	check(n, info, err, false, p)
	n, info, err = r.e.ReadStream(2, p[:1])
	check(n, info, err, false, p)
	p4 := make([]byte, 4)
	n, info, err = r.e.ReadStream(2, p4)
	check(n, info, err, false, p4)
	n, info, err = r.e.Read(make([]byte, 0)) // an empty buffer reads nothing
	if n != 0 || err != nil || info.EOR {
		t.Fatalf("empty read %d %+v %v", n, info, err)
	}
	n, info, err = r.e.Read(p4)
	check(n, info, err, true, p4)
	if string(got) != "abcdefgh" {
		t.Fatalf("message read as %q", got)
	}
	n, info, _ = r.e.ReadStream(3, p4[:4])
	if string(p4[:n]) != "othe" || info.EOR {
		t.Fatalf("stream 3: %q %+v", p4[:n], info)
	}
	// Read takes the next message in arrival order, stream 2's SSN 1,
	// then the rest of the one stream 3's reader started.
	n, info, _ = r.e.Read(p4)
	if string(p4[:n]) != "next" || info.SID != 2 || info.SSN != 1 || !info.EOR {
		t.Fatalf("then %q %+v", p4[:n], info)
	}
	n, info, _ = r.e.Read(p4)
	if string(p4[:n]) != "r" || info.SID != 3 || !info.EOR {
		t.Fatalf("then %q %+v", p4[:n], info)
	}
	if r.e.stats.MessagesDelivered != 3 {
		t.Fatalf("MessagesDelivered %d", r.e.stats.MessagesDelivered)
	}
}

// RFC 9260 section 6.9: the receiver short of buffer space "SHOULD
// dispatch part of its inbound message through a partial delivery API".
// A message in partial delivery holds back
// its own stream only: stream 1's messages are readable by their reader at
// once. Read, having returned a part of the partial message, continues
// that message before anything else (one message at a time, as on a
// one-to-one socket), and the next fragment is accepted over a full window
// once its stream was read, or the association would stall.
func TestPartialDeliveryOtherStreams(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 1000))
	r.data(2, 0, 0, 0, make([]byte, 1000)) // held 2000: partial delivery starts
	if r.e.stats.PartialDeliveries != 1 {
		t.Fatalf("PartialDeliveries %d", r.e.stats.PartialDeliveries)
	}
	r.data(4, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("s1"))
	r.data(5, 0, 9, chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered, []byte("s0 unordered")) // waits for the end of stream 0's message
	buf := make([]byte, 5000)
	n, info, err := r.e.Read(buf)
	if err != nil || n != 2000 || info.SID != 0 || info.EOR {
		t.Fatalf("partial read %d %+v %v", n, info, err)
	}
	if r.e.Readable() {
		t.Fatal("Read would skip to another message before the partial one ended")
	}
	if !r.e.ReadableStream(1) || r.e.ReadableStream(0) {
		t.Fatal("stream 1 not readable during stream 0's partial delivery, or stream 0's unordered message jumped in")
	}
	n, info, _ = r.e.ReadStream(1, buf)
	if string(buf[:n]) != "s1" || !info.EOR {
		t.Fatalf("stream 1 read %q %+v", buf[:n], info)
	}
	// Fill the window with stream 2, which nobody reads yet.
	for i := range 3 {
		r.data(TSN(6+i), 2, uint16(i), chunk.FlagBeginning|chunk.FlagEnd, make([]byte, 1000))
	}
	if r.e.recv.window() >= 1000 {
		t.Fatalf("window %d, want nearly full", r.e.recv.window())
	}
	if v := r.data(3, 0, 0, chunk.FlagEnd, make([]byte, 1000)); v != Accepted {
		t.Fatalf("end of the partial message: %v, want accepted", v)
	}
	n, info, _ = r.e.Read(buf)
	if n != 1000 || info.SID != 0 || !info.EOR || info.TSN != 1 {
		t.Fatalf("end of the partial message read %d %+v", n, info)
	}
	if r.e.stats.PartialOverrun != 1 {
		t.Fatalf("PartialOverrun %d", r.e.stats.PartialOverrun)
	}
	// Stream 0's unordered message was queued when the partial delivery
	// ended, after stream 2's messages.
	for i := range 3 {
		if n, info, _ := r.e.Read(buf); n != 1000 || info.SID != 2 || info.SSN != uint16(i) {
			t.Fatalf("Read %d: %d %+v, want stream 2's SSN %d", i, n, info, i)
		}
	}
	n, info, _ = r.e.Read(buf)
	if string(buf[:n]) != "s0 unordered" || !info.Unordered {
		t.Fatalf("then %q %+v, want stream 0's unordered message", buf[:n], info)
	}
}

// A Read that returned part of a message in partial delivery stops
// waiting for it when ReadStream reads the rest.
func TestPartialDeliveryFinishedByStreamReader(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}})
	r.data(1, 0, 0, chunk.FlagBeginning, make([]byte, 1000))
	r.data(2, 0, 0, 0, make([]byte, 1000))
	r.data(4, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("s1"))
	buf := make([]byte, 5000)
	if n, info, _ := r.e.Read(buf); n != 2000 || info.EOR {
		t.Fatalf("partial read %d %+v", n, info)
	}
	r.data(3, 0, 0, chunk.FlagEnd, make([]byte, 10))
	if n, info, _ := r.e.ReadStream(0, buf); n != 10 || !info.EOR {
		t.Fatalf("stream 0's end %d %+v", n, info)
	}
	n, info, err := r.e.Read(buf)
	if err != nil || string(buf[:n]) != "s1" {
		t.Fatalf("Read after the stream reader ended the message: %q %+v %v", buf[:n], info, err)
	}
}

// AppendReadable lists each stream that got data once, until it is called
// again.
func TestAppendReadable(t *testing.T) {
	r := newRx(t, Config{})
	r.data(1, 3, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("a"))
	r.data(2, 1, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("b"))
	r.data(3, 3, 1, chunk.FlagBeginning|chunk.FlagEnd, []byte("c"))
	r.data(5, 2, 1, chunk.FlagBeginning|chunk.FlagEnd, []byte("held")) // waits for SSN 0
	got := r.e.AppendReadable(nil)
	if !slices.Equal(got, []uint16{3, 1}) {
		t.Fatalf("AppendReadable %v, want [3 1]", got)
	}
	if got := r.e.AppendReadable(nil); len(got) != 0 {
		t.Fatalf("again: %v", got)
	}
	r.data(6, 3, 2, chunk.FlagBeginning|chunk.FlagEnd, []byte("d")) // stream 3 not empty: no news
	r.data(4, 2, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("e"))
	if got := r.e.AppendReadable(nil); !slices.Equal(got, []uint16{2}) {
		t.Fatalf("AppendReadable %v, want [2]", got)
	}
}

// With I-DATA, each stream is read on its own too, and the parts of an
// ordered and an unordered message of one stream in partial delivery name
// their message.
func TestReadStreamIData(t *testing.T) {
	r := newRx(t, Config{Interleaved: true, InterleaveFSN: interleave.FSNRFC, Buffers: api.Buffers{RecvBuffer: 4000}})
	idata := func(tsn TSN, sid uint16, mid, fsn uint32, flags uint8, n int) {
		t.Helper()
		d := IData{TSN: tsn, SID: sid, MID: mid, FSN: fsn, Flags: flags, Payload: make([]byte, n)}
		if v, err := r.e.HandleIData(r.now, &d); err != nil || v != Accepted {
			t.Fatalf("TSN %d: %v %v", tsn, v, err)
		}
		r.e.EndPacket(r.now)
	}
	idata(1, 0, 0, 0, chunk.FlagBeginning, 1200)
	idata(2, 0, 0, 1, 0, 1200) // partial delivery of stream 0's MID 0
	idata(3, 1, 0, 0, chunk.FlagBeginning|chunk.FlagEnd, 10)
	buf := make([]byte, 5000)
	n, info, err := r.e.ReadStream(1, buf)
	if err != nil || n != 10 || info.SID != 1 || !info.EOR {
		t.Fatalf("stream 1: %d %+v %v", n, info, err)
	}
	n, info, _ = r.e.ReadStream(0, buf)
	if n != 2400 || info.EOR || info.MID != 0 || info.TSN != 1 {
		t.Fatalf("stream 0 part: %d %+v", n, info)
	}
	idata(4, 0, 0, 2, chunk.FlagEnd, 100)
	n, info, _ = r.e.Read(buf)
	if n != 100 || !info.EOR || info.SID != 0 || info.TSN != 1 {
		t.Fatalf("stream 0 end: %d %+v", n, info)
	}
}

// Reading streams in any order allocates nothing per message.
func TestNoAllocsReadStream(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	m := newMemPair(t)
	msg := make([]byte, 1000)
	buf := make([]byte, 300)
	var sids []uint16
	round := func() {
		for sid := range uint16(10) {
			m.a.send.enqueue(sid, 7, sid%3 == 0, msg)
		}
		for m.a.send.queue.buffered > 0 {
			pkt, n := m.a.AppendData(m.now, m.pkt[:0], DefaultMTU-12)
			if n == 0 {
				break
			}
			m.deliver(t, pkt)
			sids = m.b.AppendReadable(sids[:0])
			// Streams backwards, each in 300-byte parts; every third
			// stream through Read.
			for sid := 9; sid >= 0; sid-- {
				for {
					var err error
					if sid%3 == 1 {
						_, _, err = m.b.Read(buf)
					} else {
						_, _, err = m.b.ReadStream(uint16(sid), buf)
					}
					if err != nil {
						break
					}
				}
			}
			m.ack(t)
		}
	}
	for range 200 {
		round()
	}
	if allocs := testing.AllocsPerRun(200, round); allocs != 0 {
		t.Errorf("%v allocations per 10 messages, want 0", allocs)
	}
	if h := m.b.RecvHeld(); h != 0 {
		t.Fatalf("held %d after reading everything", h)
	}
}

// BenchmarkReceiveStreams measures the receive path per 1024-byte message
// (HandleData, reassembly, delivery queue, read) with 10 streams read in
// arrival order (Read) or each through its own queue against arrival
// order (ReadStream, streams taken last to first).
func BenchmarkReceiveStreams(b *testing.B) {
	for _, mode := range []string{"Read", "ReadStream"} {
		b.Run(mode, func(b *testing.B) {
			e, err := New(Config{PeerTSN: 1, OutStreams: 10, InStreams: 10})
			if err != nil {
				b.Fatal(err)
			}
			payload := make([]byte, 1024)
			buf := make([]byte, 2048)
			var ssn [10]uint16
			tsn := TSN(1)
			d := Data{Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: payload}
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for i := 0; i < b.N; i += 10 {
				for sid := range uint16(10) {
					d.TSN, d.SID, d.SSN = tsn, sid, ssn[sid]
					tsn++
					ssn[sid]++
					if _, err := e.HandleData(epoch, &d); err != nil {
						b.Fatal(err)
					}
				}
				e.EndPacket(epoch)
				if mode == "Read" {
					for range 10 {
						e.Read(buf)
					}
				} else {
					for sid := 9; sid >= 0; sid-- {
						e.ReadStream(uint16(sid), buf)
					}
				}
				if e.SACKDue(epoch) {
					e.AppendSACK(epoch, buf[:0], 1400)
				}
			}
		})
	}
}
