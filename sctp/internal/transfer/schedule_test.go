package transfer

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/stream"
)

var allKinds = []sched.Kind{sched.FCFS, sched.Priority, sched.RoundRobin, sched.FairCapacity, sched.WFQ, sched.RoundRobinPacket}

// schedPair joins the sender of engine a to the receiver of engine b in
// memory, without loss, and checks the wire: every DATA chunk a sends is
// the next TSN, and without I-DATA the fragments of one message are
// contiguous in TSN (no other stream's data between them).
type schedPair struct {
	tb      testing.TB
	a, b    *Engine
	now     time.Time
	pkt     []byte
	sack    []byte
	d       Data
	sk      SACK
	rbuf    []byte
	lastTSN TSN
	open    bool   // the last chunk did not end its message
	openSID uint16 // stream and SSN of that message
	openSSN uint16
	chunks  int
	onChunk func(d *Data) // every DATA chunk a sends, in TSN order
	onMsg   func(info RecvInfo, msg []byte)
}

func newSchedPair(tb testing.TB, cfg Config) *schedPair {
	tb.Helper()
	cfg.LocalTSN, cfg.PeerTSN = 1, 1
	if cfg.PeerRwnd == 0 {
		cfg.PeerRwnd = api.DefaultBuffer
	}
	a, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return &schedPair{tb: tb, a: a, b: b, now: epoch, lastTSN: 0,
		pkt: make([]byte, 0, 65536), sack: make([]byte, 0, 2048), rbuf: make([]byte, 256<<10)}
}

// packet asks a for one packet of at most room bytes and hands it to b. It
// returns the number of chunks sent.
func (p *schedPair) packet(room int) int {
	pkt, n := p.a.AppendData(p.now, p.pkt[:0], room)
	for len(pkt) > 0 {
		l := chunkLen(pkt)
		if l < 0 || !parseData(pkt[:l], &p.d) {
			p.tb.Fatalf("malformed DATA chunk")
		}
		p.check(&p.d)
		if p.onChunk != nil {
			p.onChunk(&p.d)
		}
		if _, err := p.b.HandleData(p.now, &p.d); err != nil {
			p.tb.Fatal(err)
		}
		pkt = pkt[l:]
	}
	if n > 0 {
		p.b.EndPacket(p.now)
	}
	return n
}

// check applies the wire invariants to the next DATA chunk.
func (p *schedPair) check(d *Data) {
	p.chunks++
	if d.TSN != p.lastTSN+1 {
		p.tb.Fatalf("TSN %d after %d: no loss here, so no retransmission expected", d.TSN, p.lastTSN)
	}
	p.lastTSN = d.TSN
	if p.open {
		if d.Beginning() || d.SID != p.openSID || d.SSN != p.openSSN {
			p.tb.Fatalf("TSN %d (stream %d SSN %d, B=%v) splits the message of stream %d SSN %d",
				d.TSN, d.SID, d.SSN, d.Beginning(), p.openSID, p.openSSN)
		}
	} else if !d.Beginning() {
		p.tb.Fatalf("TSN %d on stream %d continues no message", d.TSN, d.SID)
	}
	p.open = !d.End()
	p.openSID, p.openSSN = d.SID, d.SSN
}

// ack reads everything b has, then returns b's SACK to a.
func (p *schedPair) ack() {
	for {
		n, info, err := p.b.Read(p.rbuf)
		if err != nil {
			break
		}
		if !info.EOR {
			p.tb.Fatalf("message larger than %d bytes", len(p.rbuf))
		}
		if p.onMsg != nil {
			p.onMsg(info, p.rbuf[:n])
		}
	}
	s := p.b.AppendSACK(p.now, p.sack[:0], DefaultMTU-12)
	if !parseSACK(s, &p.sk) {
		p.tb.Fatal("malformed SACK")
	}
	if _, err := p.a.HandleSACK(p.now, &p.sk); err != nil {
		p.tb.Fatal(err)
	}
	p.now = p.now.Add(time.Millisecond)
}

// drain sends and acknowledges until a is idle.
func (p *schedPair) drain() {
	for i := 0; !p.a.SendIdle(); i++ {
		for p.packet(DefaultMTU-12) > 0 {
		}
		p.ack()
		if i > 1e6 {
			p.tb.Fatalf("sender never idle: %d buffered", p.a.send.queue.buffered)
		}
	}
}

// payload returns message seq of stream sid, size bytes: its stream, its
// number and bytes derived from both, so a mix-up shows.
func payload(buf []byte, sid uint16, seq uint32, size int) []byte {
	buf = buf[:0]
	buf = binary.BigEndian.AppendUint16(buf, sid)
	buf = binary.BigEndian.AppendUint32(buf, seq)
	for len(buf) < size {
		buf = append(buf, byte(uint32(sid)*31+seq*7+uint32(len(buf))))
	}
	return buf[:max(size, 6)]
}

// checkPayload verifies a message made by payload and returns its stream
// and number.
func checkPayload(tb testing.TB, msg []byte) (uint16, uint32) {
	tb.Helper()
	if len(msg) < 6 {
		tb.Fatalf("message of %d bytes", len(msg))
	}
	sid, seq := binary.BigEndian.Uint16(msg), binary.BigEndian.Uint32(msg[2:])
	for i := 6; i < len(msg); i++ {
		if msg[i] != byte(uint32(sid)*31+seq*7+uint32(i)) {
			tb.Fatalf("stream %d message %d: byte %d corrupt", sid, seq, i)
		}
	}
	return sid, seq
}

// TestSwitchSchedulerRandom is the property test of run-time scheduler
// switches: random messages (one to six fragments) on random streams,
// packets of random room (so messages stay half sent across packets),
// switches to random schedulers, random per-stream values, streams blocked
// and unblocked at random, SACKs at random. Every message must arrive once,
// intact and in order within its stream; the fragments of a message must
// be contiguous in TSN under every scheduler; blocked streams must send no
// new message while blocked.
func TestSwitchSchedulerRandom(t *testing.T) {
	seeds := 24
	if testing.Short() {
		seeds = 8
	}
	for seed := range uint64(seeds) {
		runSwitchRandom(t, seed)
	}
}

func runSwitchRandom(t testing.TB, seed uint64) {
	const streams = 12
	rng := rand.New(rand.NewPCG(seed, 5))
	p := newSchedPair(t, Config{OutStreams: streams, InStreams: streams, Buffers: api.Buffers{SendBuffer: 256 << 10}})
	var sent, got [streams]uint32
	var blocked [streams]bool
	var switches, values int
	p.onChunk = func(d *Data) {
		if d.Beginning() && blocked[d.SID] {
			t.Fatalf("seed %d: blocked stream %d starts message SSN %d under %v", seed, d.SID, d.SSN, p.a.Scheduler())
		}
	}
	p.onMsg = func(info RecvInfo, msg []byte) {
		sid, seq := checkPayload(t, msg)
		if sid != info.SID {
			t.Fatalf("seed %d: message of stream %d arrived on stream %d", seed, sid, info.SID)
		}
		if seq != got[sid] {
			t.Fatalf("seed %d: stream %d: message %d arrived, want %d", seed, sid, seq, got[sid])
		}
		got[sid]++
	}
	buf := make([]byte, 0, 8192)
	for range 3000 {
		switch r := rng.IntN(100); {
		case r < 40:
			sid := uint16(rng.IntN(streams))
			size := 1 + rng.IntN(8000)
			err := p.a.send.enqueue(sid, 0, false, payload(buf, sid, sent[sid], size))
			if errors.Is(err, ErrWouldBlock) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			sent[sid]++
		case r < 70:
			p.packet(600 + rng.IntN(DefaultMTU-12-600))
		case r < 82:
			p.ack()
		case r < 88:
			k := allKinds[rng.IntN(len(allKinds))]
			if err := p.a.SwitchScheduler(k); err != nil {
				t.Fatal(err)
			}
			if p.a.Scheduler() != k {
				t.Fatalf("scheduler %v after switching to %v", p.a.Scheduler(), k)
			}
			switches++
		case r < 94:
			sid := uint16(rng.IntN(streams))
			v := uint16(rng.IntN(5))
			err := p.a.SetStreamValue(sid, v)
			if err != nil && !(v == 0 && p.a.Scheduler() == sched.WFQ && errors.Is(err, sched.ErrValue)) {
				t.Fatalf("SetStreamValue(%d, %d) under %v: %v", sid, v, p.a.Scheduler(), err)
			}
			values++
		default:
			sid := uint16(rng.IntN(streams))
			// A stream blocked in the middle of a message finishes it:
			// only new messages wait.
			blocked[sid] = !blocked[sid]
			st := stream.Open
			if blocked[sid] {
				st = []stream.State{stream.Closed, stream.ResetPending, stream.AddPending}[rng.IntN(3)]
			}
			if err := p.a.SetStreamState(sid, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	for sid := range uint16(streams) {
		blocked[sid] = false
		if err := p.a.SetStreamState(sid, stream.Open); err != nil {
			t.Fatal(err)
		}
	}
	p.drain()
	p.ack()
	for sid := range streams {
		if got[sid] != sent[sid] {
			t.Errorf("seed %d: stream %d: %d of %d messages arrived", seed, sid, got[sid], sent[sid])
		}
	}
	if seed == 0 {
		t.Logf("%d chunks, %d switches, %d value changes", p.chunks, switches, values)
	}
}

// TestFragmentsNotSplit queues large multi-fragment messages on several
// streams under every scheduler and checks the wire: without I-DATA the
// fragments of one message are contiguous in TSN (RFC 9260 section 6.9;
// the bug usrsctp fixed in 2020), even when a packet ends in the middle
// of a message and the next packet could start another stream.
func TestFragmentsNotSplit(t *testing.T) {
	for _, k := range allKinds {
		t.Run(k.String(), func(t *testing.T) {
			const streams = 6
			// Everything is queued up front: no stream limit (WFQ's
			// weights would also be the streams' shares of the buffer).
			p := newSchedPair(t, Config{OutStreams: streams, InStreams: streams, Buffers: api.Buffers{SendBuffer: 4 << 20, StreamUnsentLimit: 4 << 20}})
			if err := p.a.SwitchScheduler(k); err != nil {
				t.Fatal(err)
			}
			for sid := range uint16(streams) {
				p.a.SetStreamValue(sid, 1+sid%3) // mixed priorities and weights
			}
			var got [streams]uint32
			p.onMsg = func(info RecvInfo, msg []byte) {
				sid, seq := checkPayload(t, msg)
				if seq != got[sid] {
					t.Fatalf("stream %d: message %d, want %d", sid, seq, got[sid])
				}
				got[sid]++
			}
			buf := make([]byte, 0, 64<<10)
			const perStream = 20
			for seq := range uint32(perStream) {
				for sid := range uint16(streams) {
					size := 5000 + int(sid)*3001 + int(seq)*997 // 4 to 22 fragments
					if err := p.a.send.enqueue(sid, 0, false, payload(buf, sid, seq, size)); err != nil {
						t.Fatal(err)
					}
				}
			}
			rng := rand.New(rand.NewPCG(uint64(k), 1))
			multi := 0
			p.onChunk = func(d *Data) {
				if !d.End() {
					multi++
				}
			}
			for i := 0; !p.a.SendIdle(); i++ {
				// Small and odd rooms end packets in the middle of messages.
				for p.packet(600+rng.IntN(DefaultMTU-12-600)) > 0 {
				}
				p.ack()
				if i > 1e5 {
					t.Fatal("stalled")
				}
			}
			p.ack()
			for sid := range streams {
				if got[sid] != perStream {
					t.Errorf("stream %d: %d of %d messages", sid, got[sid], perStream)
				}
			}
			if multi == 0 {
				t.Fatal("no multi-fragment message")
			}
		})
	}
}

// TestSwitchKeepsPin switches the scheduler while a message is half sent:
// the rest of that message goes first, then the new scheduler picks.
func TestSwitchKeepsPin(t *testing.T) {
	p := newSchedPair(t, Config{OutStreams: 4, InStreams: 4})
	buf := make([]byte, 0, 16<<10)
	p.a.send.enqueue(0, 0, false, payload(buf, 0, 0, 10000))
	p.a.send.enqueue(1, 0, false, payload(buf, 1, 0, 1000))
	p.a.send.enqueue(2, 0, false, payload(buf, 2, 0, 1000))
	var order []uint16
	p.onChunk = func(d *Data) { order = append(order, d.SID) }
	if p.packet(DefaultMTU-12) != 1 {
		t.Fatal("want one chunk")
	}
	// Stream 2 gets the top priority; stream 0 must still finish first.
	if err := p.a.SwitchScheduler(sched.Priority); err != nil {
		t.Fatal(err)
	}
	p.a.SetStreamValue(0, 5)
	p.a.SetStreamValue(1, 3)
	p.a.SetStreamValue(2, 1)
	p.drain()
	want := []uint16{0, 0, 0, 0, 0, 0, 0, 0, 2, 1}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
}

// TestSwitchKeepsArrivalOrder switches to FCFS with messages of several
// streams queued: FCFS then serves them in the order they were queued.
func TestSwitchKeepsArrivalOrder(t *testing.T) {
	// StreamUnsentLimit: stream 7's priority also makes its share of the
	// buffer small; everything is to be queued here.
	p := newSchedPair(t, Config{OutStreams: 8, InStreams: 8, Buffers: api.Buffers{StreamUnsentLimit: 1 << 20}})
	if err := p.a.SwitchScheduler(sched.Priority); err != nil {
		t.Fatal(err)
	}
	p.a.SetStreamValue(7, 9) // served last under Priority
	buf := make([]byte, 0, 256)
	order := []uint16{7, 3, 7, 1, 0, 3, 5, 7, 2}
	var seq [8]uint32
	for _, sid := range order {
		p.a.send.enqueue(sid, 0, false, payload(buf, sid, seq[sid], 100))
		seq[sid]++
	}
	if err := p.a.SwitchScheduler(sched.FCFS); err != nil {
		t.Fatal(err)
	}
	var got []uint16
	p.onChunk = func(d *Data) { got = append(got, d.SID) }
	p.drain()
	if len(got) != len(order) {
		t.Fatalf("sent %v, want %v", got, order)
	}
	for i := range order {
		if got[i] != order[i] {
			t.Fatalf("sent %v, want %v", got, order)
		}
	}
}

// TestStreamValues covers per-stream values through the sender: bounds,
// invalid values, and the reset to defaults on a switch.
func TestStreamValues(t *testing.T) {
	p := newSchedPair(t, Config{OutStreams: 10, InStreams: 10})
	s := &p.a.send
	if s.scheduler() != sched.FCFS {
		t.Fatalf("default scheduler %v", s.scheduler())
	}
	if err := s.setStreamValue(10, 1); !errors.Is(err, ErrStreamID) {
		t.Errorf("stream 10 of 10: %v", err)
	}
	if _, err := s.streamValue(65535); !errors.Is(err, ErrStreamID) {
		t.Errorf("stream 65535: %v", err)
	}
	if err := s.setStreamState(10, stream.Closed); !errors.Is(err, ErrStreamID) {
		t.Errorf("state of stream 10: %v", err)
	}
	if err := s.switchScheduler(sched.WFQ); err != nil {
		t.Fatal(err)
	}
	if err := s.setStreamValue(3, 0); !errors.Is(err, sched.ErrValue) {
		t.Errorf("WFQ weight 0: %v", err)
	}
	if err := s.setStreamValue(3, 7); err != nil {
		t.Fatal(err)
	}
	if v, err := s.streamValue(3); v != 7 || err != nil {
		t.Errorf("weight %d, %v", v, err)
	}
	s.switchScheduler(sched.WFQ) // same kind: values reset too
	if v, _ := s.streamValue(3); v != sched.DefaultWeight {
		t.Errorf("weight %d after switch, want %d", v, sched.DefaultWeight)
	}
	s.switchScheduler(sched.Priority)
	if v, _ := s.streamValue(3); v != sched.DefaultPriority {
		t.Errorf("priority %d after switch", v)
	}
	if err := s.switchScheduler(sched.Kind(42)); !errors.Is(err, ErrConfig) || !errors.Is(err, sched.ErrKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if s.scheduler() != sched.Priority {
		t.Errorf("a failed switch changed the scheduler to %v", s.scheduler())
	}
	if err := s.replaceScheduler(nil); !errors.Is(err, ErrConfig) {
		t.Errorf("nil scheduler: %v", err)
	}
	busy, _ := sched.New(sched.RoundRobin, sched.Options{Streams: 10})
	busy.Enqueue(1, 10)
	if err := s.replaceScheduler(busy); !errors.Is(err, ErrConfig) {
		t.Errorf("busy scheduler: %v", err)
	}
	fresh, _ := sched.New(sched.RoundRobin, sched.Options{Streams: 10})
	if err := s.replaceScheduler(fresh); err != nil || s.scheduler() != sched.RoundRobin {
		t.Errorf("fresh scheduler: %v, %v", err, s.scheduler())
	}
}

// TestBlockedStreamDoesNotBlockOthers: a stream that cannot send (closed,
// reset or add pending) keeps its messages and never holds up the other
// streams, under every scheduler, also across a switch; when it opens
// again its messages go in order.
func TestBlockedStreamDoesNotBlockOthers(t *testing.T) {
	for _, k := range allKinds {
		for _, st := range []stream.State{stream.Closed, stream.ResetPending, stream.AddPending} {
			p := newSchedPair(t, Config{OutStreams: 4, InStreams: 4})
			s := &p.a.send
			s.switchScheduler(k)
			buf := make([]byte, 0, 4096)
			if err := s.setStreamState(0, st); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.streamState(0); got != st {
				t.Fatalf("state %v, want %v", got, st)
			}
			for seq := range uint32(5) {
				s.enqueue(0, 0, false, payload(buf, 0, seq, 3000))
				s.enqueue(1, 0, false, payload(buf, 1, seq, 3000))
			}
			s.switchScheduler(allKinds[(int(k)+1)%len(allKinds)]) // still blocked after a switch
			var sids []uint16
			p.onChunk = func(d *Data) { sids = append(sids, d.SID) }
			for range 100 {
				for p.packet(DefaultMTU-12) > 0 {
				}
				p.ack()
			}
			for _, sid := range sids {
				if sid != 1 {
					t.Fatalf("%v/%v: blocked stream sent: %v", k, st, sids)
				}
			}
			if len(sids) != 15 || s.idle() {
				t.Fatalf("%v/%v: stream 1 sent %d chunks, want 15", k, st, len(sids))
			}
			s.setStreamState(0, stream.Open)
			p.drain()
			if len(sids) != 30 {
				t.Fatalf("%v/%v: %d chunks, want 30", k, st, len(sids))
			}
		}
	}
}

// TestStateChangedBehindSendersBack: a stream whose record state changed
// without SetStreamState is still skipped when the scheduler picks it.
func TestStateChangedBehindSendersBack(t *testing.T) {
	p := newSchedPair(t, Config{OutStreams: 4, InStreams: 4})
	s := &p.a.send
	buf := make([]byte, 0, 256)
	s.enqueue(0, 0, false, payload(buf, 0, 0, 100))
	s.enqueue(1, 0, false, payload(buf, 1, 0, 100))
	p.a.streams.Out(0).State = stream.ResetPending
	var sids []uint16
	p.onChunk = func(d *Data) { sids = append(sids, d.SID) }
	p.packet(DefaultMTU - 12)
	p.ack()
	if len(sids) != 1 || sids[0] != 1 {
		t.Fatalf("sent %v, want [1]", sids)
	}
	s.setStreamState(0, stream.Open)
	p.drain()
	if len(sids) != 2 || sids[1] != 0 {
		t.Fatalf("sent %v, want [1 0]", sids)
	}
}

// TestSwitchSparseArrivals switches with an old message left far behind
// the newer ones (its stream was blocked while 100 others went out): the
// backlog is sorted rather than bucketed, and FCFS still serves it in
// arrival order.
func TestSwitchSparseArrivals(t *testing.T) {
	p := newSchedPair(t, Config{OutStreams: 4, InStreams: 4})
	s := &p.a.send
	buf := make([]byte, 0, 256)
	s.setStreamState(1, stream.Closed)
	s.enqueue(1, 0, false, payload(buf, 1, 0, 100)) // A
	for seq := range uint32(100) {
		s.enqueue(0, 0, false, payload(buf, 0, seq, 100))
	}
	for range 20 {
		for p.packet(DefaultMTU-12) > 0 {
		}
		p.ack()
	}
	s.enqueue(2, 0, false, payload(buf, 2, 0, 100)) // B
	s.enqueue(3, 0, false, payload(buf, 3, 0, 100)) // C
	s.enqueue(1, 0, false, payload(buf, 1, 1, 100)) // D
	if b := s.backlog(); len(b) != 4 || b[0].age != 103 {
		t.Fatalf("backlog %+v", b)
	}
	s.setStreamState(1, stream.Open)
	if err := s.switchScheduler(sched.FCFS); err != nil {
		t.Fatal(err)
	}
	var got []uint16
	p.onChunk = func(d *Data) { got = append(got, d.SID) }
	p.drain()
	if want := []uint16{1, 2, 3, 1}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// TestPendingFollowsScheduler: Pending sizes the next chunk from the
// message the scheduler would start, and is false when every stream with
// data is blocked.
func TestPendingFollowsScheduler(t *testing.T) {
	// A window below the smallest fragment point the window allows
	// (minWinFragPoint), so that a full chunk exceeds it.
	p := newSchedPair(t, Config{OutStreams: 4, InStreams: 4, PeerRwnd: 1000})
	s := &p.a.send
	buf := make([]byte, 0, 4096)
	s.enqueue(1, 0, false, payload(buf, 1, 0, 900)) // fits the 1000-byte window
	s.enqueue(2, 0, false, payload(buf, 2, 0, 3000))
	if !s.pending(p.now) {
		t.Fatal("a 900-byte message and a 1000-byte window: Pending false")
	}
	s.setStreamState(1, stream.ResetPending)
	if s.pending(p.now) {
		t.Fatal("stream 2's first chunk exceeds the window: Pending true")
	}
	s.setStreamState(2, stream.ResetPending)
	if s.pending(p.now) {
		t.Fatal("every stream blocked: Pending true")
	}
	s.setStreamState(1, stream.Open)
	if !s.pending(p.now) {
		t.Fatal("stream 1 open again: Pending false")
	}
}
