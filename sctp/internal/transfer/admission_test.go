package transfer

import (
	"errors"
	"slices"
	"testing"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
)

// TestStreamLimitFixed: with Config.Buffers.StreamUnsentLimit, each stream's own unsent
// bytes are bounded apart from the others'; the refused stream is listed
// once by TakeStreamRoom when its data is cut and the message fits.
func TestStreamLimitFixed(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{StreamUnsentLimit: 3000}})
	s := &x.e.send
	msg := make([]byte, 1000)
	for sid := range uint16(2) {
		for i := range 3 {
			if err := s.enqueue(sid, 0, false, msg); err != nil {
				t.Fatalf("stream %d message %d: %v", sid, i, err)
			}
		}
	}
	err := s.enqueue(0, 0, false, msg)
	if !errors.Is(err, ErrStreamFull) || !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("fourth message of stream 0: %v, want ErrStreamFull matching ErrWouldBlock", err)
	}
	if got := s.queue.takeStreamRoom(); len(got) != 0 {
		t.Fatalf("room before anything was sent: %v", got)
	}
	if len(sendAll(x)) == 0 {
		t.Fatal("nothing sent")
	}
	if got := s.queue.streamUnsent(0); got > 2000 {
		t.Fatalf("stream 0 has %d unsent bytes after a flush, want at most 2000", got)
	}
	if got := s.queue.takeStreamRoom(); !slices.Equal(got, []uint16{0}) {
		t.Fatalf("room %v, want [0]", got)
	}
	if got := s.queue.takeStreamRoom(); len(got) != 0 {
		t.Fatalf("listed twice: %v", got)
	}
	if err := s.enqueue(0, 0, false, msg); err != nil {
		t.Fatalf("stream 0 after its room was listed: %v", err)
	}
}

// TestStreamLimitShared: without Config.Buffers.StreamUnsentLimit the streams with data
// share the buffer the flight leaves. A writer of a stream without data
// that the full send buffer refuses shrinks the others' shares and is
// listed once the buffer has room for its message.
func TestStreamLimitShared(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 8000}})
	s := &x.e.send
	msg := make([]byte, 1000)
	for i := range 8 {
		if err := s.enqueue(0, 0, false, msg); err != nil {
			t.Fatalf("message %d of the only stream: %v", i, err)
		}
	}
	if err := s.enqueue(0, 0, false, msg); !errors.Is(err, ErrStreamFull) {
		t.Fatalf("ninth message: %v, want ErrStreamFull", err)
	}
	if err := s.enqueue(1, 0, false, msg); !errors.Is(err, ErrStreamFull) {
		t.Fatalf("stream 1 on a full buffer: %v, want ErrStreamFull", err)
	}
	if got := s.queue.streamLimit(s.streams.OutSide(0)); got != 4000 {
		t.Fatalf("limit %d with a second stream waiting, want 4000", got)
	}
	tsns := sendAll(x)
	if len(tsns) == 0 {
		t.Fatal("nothing sent")
	}
	x.mustSACK(tsns[len(tsns)-1], api.DefaultBuffer)
	room := s.queue.takeStreamRoom()
	if !slices.Contains(room, 1) {
		t.Fatalf("room %v after the SACK freed %d chunks, want stream 1 listed", room, len(tsns))
	}
	if err := s.enqueue(1, 0, false, msg); err != nil {
		t.Fatalf("stream 1 after its room was listed: %v", err)
	}
	if u := s.queue.streamUnsent(0); u >= s.queue.streamLimit(s.streams.OutSide(0)) {
		if err := s.enqueue(0, 0, false, msg); !errors.Is(err, ErrStreamFull) {
			t.Fatalf("stream 0 with %d unsent of a limit of %d: %v, want ErrStreamFull", u, s.queue.streamLimit(s.streams.OutSide(0)), err)
		}
	}
}

// TestStreamLimitPriorityPolicy: messages of the priority policy (RFC 7496)
// compete for the send buffer by priority, not by stream: the stream limit
// does not refuse them.
func TestStreamLimitPriorityPolicy(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{StreamUnsentLimit: 1000}})
	s := &x.e.send
	msg := make([]byte, 1000)
	if err := s.enqueue(0, 0, false, msg); err != nil {
		t.Fatal(err)
	}
	if err := s.enqueue(0, 0, false, msg); !errors.Is(err, ErrStreamFull) {
		t.Fatalf("reliable message over the limit: %v", err)
	}
	if err := s.queuePR(x.now, 0, 0, false, msg, PR{Policy: PRPrio, Value: 1}); err != nil {
		t.Fatalf("priority message: %v", err)
	}
}

// TestStreamLimitAllocs: refusing and listing streams allocates nothing in
// steady state.
func TestStreamLimitAllocs(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	x := newTx(t, Config{Buffers: api.Buffers{StreamUnsentLimit: 2000}})
	s := &x.e.send
	msg := make([]byte, 1000)
	sack := &SACK{ARwnd: api.DefaultBuffer}
	run := func() {
		for s.enqueue(0, 0, false, msg) == nil {
		}
		for s.enqueue(1, 0, false, msg) == nil {
		}
		for {
			next := s.ledger.nextTSN
			x.pkt, _ = s.appendData(x.now, x.pkt[:0], 1400)
			if s.ledger.nextTSN == next {
				break
			}
		}
		sack.CumTSNAck = s.ledger.nextTSN - 1
		if _, err := s.handleSACK(x.now, sack); err != nil {
			t.Fatal(err)
		}
		s.queue.takeStreamRoom()
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Fatalf("%v allocations per round", n)
	}
}

// sendAll sends packets of up to 1400 bytes while the windows allow and
// returns the TSNs sent.
func sendAll(x *tx) []TSN {
	var tsns []TSN
	for {
		next := x.e.NextTSN()
		x.pkt, _ = x.e.AppendData(x.now, x.pkt[:0], 1400)
		if x.e.NextTSN() == next {
			return tsns
		}
		for t := next; t != x.e.NextTSN(); t++ {
			tsns = append(tsns, t)
		}
	}
}

// TestUnsentBoundManyStreams: with many streams holding data, a message on
// a stream with nothing queued (which its own limit always admits) waits
// while the streams' unsent bytes reach streamsUnsent times UnsentLimit,
// and its stream is listed once they fall; streams already holding data
// keep their shares. With fewer streams, their shares of the whole
// buffer apply, past that bound.
func TestUnsentBoundManyStreams(t *testing.T) {
	const unsent = 8000
	x := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 4 << 20, UnsentLimit: unsent}, OutStreams: 1000, InStreams: 1000})
	s := &x.e.send
	msg := make([]byte, 1000)
	sid := uint16(0)
	for ; ; sid++ {
		err := s.enqueue(sid, 0, false, msg)
		if errors.Is(err, ErrStreamFull) {
			break
		}
		if err != nil {
			t.Fatalf("stream %d: %v", sid, err)
		}
	}
	// manyStreams streams admitted one message each before the bound
	// applied: that many, each over unsent*streamsUnsent in all.
	if sid != manyStreams || manyStreams*len(msg) <= unsent*streamsUnsent {
		t.Fatalf("stream %d refused (%d unsent); want stream %d refused", sid, s.queue.unsent, manyStreams)
	}
	if err := s.enqueue(0, 0, false, msg); err != nil {
		t.Fatalf("a second message on a stream with data, within its share: %v", err)
	}
	if got := s.queue.takeStreamRoom(); len(got) != 0 {
		t.Fatalf("room before anything was sent: %v", got)
	}
	if len(sendAll(x)) == 0 {
		t.Fatal("nothing sent")
	}
	if got := s.queue.takeStreamRoom(); !slices.Contains(got, sid) {
		t.Fatalf("room %v after the queue was cut into packets, want stream %d listed", got, sid)
	}
	if err := s.enqueue(sid, 0, false, msg); err != nil {
		t.Fatalf("stream %d after its room was listed: %v", sid, err)
	}

	// Eight greedy streams: each queues up to its share of the buffer,
	// well past the bound.
	y := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 4 << 20, UnsentLimit: unsent}, OutStreams: 8, InStreams: 8})
	for i := range 80 {
		if err := y.e.send.enqueue(uint16(i%8), 0, false, msg); err != nil {
			t.Fatalf("message %d of 8 streams: %v", i, err)
		}
	}
}

// TestStreamLimitWeighted: under WFQ the streams with data share the send
// buffer in proportion to their weights, under Priority 8 times less per
// level below the best, under the others evenly; a weight changed or a
// scheduler switched while streams hold data takes effect at once, and
// the shares are given back when the streams empty.
func TestStreamLimitWeighted(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 100_000, UnsentLimit: -1}})
	s := &x.e.send
	msg := make([]byte, 1000)
	// fill queues messages on stream sid until its limit refuses one and
	// returns how many it took.
	fill := func(sid uint16) int {
		n := 0
		for ; n < 1000; n++ {
			if err := s.enqueue(sid, 0, false, msg); err != nil {
				if !errors.Is(err, ErrStreamFull) {
					t.Fatalf("stream %d: %v", sid, err)
				}
				return n
			}
		}
		t.Fatalf("stream %d took 1000 messages", sid)
		return n
	}
	limits := func() (int, int) {
		return s.queue.streamLimit(s.streams.OutSide(0)), s.queue.streamLimit(s.streams.OutSide(1))
	}
	if err := s.switchScheduler(sched.WFQ); err != nil {
		t.Fatal(err)
	}
	s.setStreamValue(0, 1)
	s.setStreamValue(1, 3)
	for sid := range uint16(2) {
		if err := s.enqueue(sid, 0, false, msg); err != nil {
			t.Fatal(err)
		}
	}
	if l0, l1 := limits(); l0 != 25_000 || l1 != 75_000 {
		t.Fatalf("WFQ 1:3: limits %d and %d, want 25000 and 75000", l0, l1)
	}
	if n0, n1 := fill(0), fill(1); n0 != 24 || n1 != 74 {
		t.Fatalf("WFQ 1:3: streams took %d and %d more messages, want 24 and 74", n0, n1)
	}
	s.setStreamValue(1, 1) // at once, with data queued
	if l0, l1 := limits(); l0 != 50_000 || l1 != 50_000 {
		t.Fatalf("WFQ 1:1: limits %d and %d, want 50000 each", l0, l1)
	}
	if err := s.switchScheduler(sched.Priority); err != nil {
		t.Fatal(err)
	}
	s.setStreamValue(1, 1) // stream 0 keeps the default priority 0
	if l0, l1 := limits(); l0 != 100_000*8/9 || l1 != 100_000/9 {
		t.Fatalf("priorities 0 and 1: limits %d and %d, want %d and %d", l0, l1, 100_000*8/9, 100_000/9)
	}
	if err := s.switchScheduler(sched.FCFS); err != nil { // values back to defaults
		t.Fatal(err)
	}
	if l0, l1 := limits(); l0 != 50_000 || l1 != 50_000 {
		t.Fatalf("FCFS: limits %d and %d, want 50000 each", l0, l1)
	}
	for range 1000 {
		tsns := sendAll(x)
		if len(tsns) == 0 {
			break
		}
		x.mustSACK(tsns[len(tsns)-1], api.DefaultBuffer)
	}
	s.queue.takeStreamRoom()
	if s.queue.streamUnsent(0) != 0 || s.queue.streamUnsent(1) != 0 {
		t.Fatalf("%d and %d bytes unsent after the drain", s.queue.streamUnsent(0), s.queue.streamUnsent(1))
	}
	if s.queue.active != 0 || s.queue.activeWeight != 0 {
		t.Fatalf("all sent: %d active streams, weight %d, want none", s.queue.active, s.queue.activeWeight)
	}
}
