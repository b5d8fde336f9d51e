package transfer

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/stream"
)

// countingSched is a scheduler that counts the streams blocked and
// unblocked: an outgoing reset that walked the streams blocks each.
type countingSched struct {
	sched.Scheduler
	blocks, unblocks int
}

func (c *countingSched) Block(sid uint16)   { c.blocks++; c.Scheduler.Block(sid) }
func (c *countingSched) Unblock(sid uint16) { c.unblocks++; c.Scheduler.Unblock(sid) }

// sendEach queues a 1-byte message on each of sids, sends what may go
// and has the peer acknowledge everything.
func sendEach(t testing.TB, x *tx, sids ...uint16) {
	t.Helper()
	for _, sid := range sids {
		if err := x.e.send.enqueue(sid, 0, false, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	for {
		sent := 0
		for {
			var n int
			if x.pkt, n = x.e.AppendData(x.now, x.pkt[:0], 1200); n == 0 {
				break
			}
			sent += n
		}
		if sent == 0 && x.e.send.ledger.outstanding() == 0 {
			return // all sent, or what is left blocked
		}
		x.mustSACK(x.e.NextTSN()-1, 1<<24)
	}
}

// usedSender returns a sender with 65,535 outbound streams, each of which
// sent a message the peer acknowledged, then reset once (which pays for
// them), its scheduler counting the streams blocked and unblocked.
func usedSender(t *testing.T) (*tx, *countingSched) {
	const n = 65535
	x := newTx(t, Config{OutStreams: n, InStreams: 1, Buffers: api.Buffers{SendBuffer: 8 << 20}, PeerRwnd: 1 << 24})
	s := &x.e.send
	sc, err := sched.New(sched.FCFS, sched.Options{Streams: n})
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingSched{Scheduler: sc}
	if err := s.replaceScheduler(cs); err != nil {
		t.Fatal(err)
	}
	all := make([]uint16, n)
	for i := range all {
		all[i] = uint16(i)
	}
	sendEach(t, x, all...)
	resetEvery(t, s)
	for sid := range all {
		if o := x.e.streams.Out(uint16(sid)); o.MID != 0 || o.MIDUO != 0 || o.State != stream.Open {
			t.Fatalf("stream %d after the reset: %+v", sid, *o)
		}
	}
	return x, cs
}

// resetEvery resets every outbound stream of s as the association does for
// a peer's Incoming SSN Reset Request naming none, with nothing queued.
func resetEvery(t *testing.T, s *sender) {
	t.Helper()
	s.beginOutgoingReset(nil)
	if !s.resets.ready() {
		t.Fatal("not ready with nothing queued")
	}
	s.finishOutgoingReset(nil, true)
}

// A reset of every outbound stream (a peer's Incoming SSN Reset Request
// naming none: beginOutgoingReset, ready, finishOutgoingReset) blocks and
// reopens in the scheduler only the streams written during it, not every
// stream in use (blocking and reopening all 65,535 streams would cost
// each request a walk over them). The streams it does not block read as ResetPending
// (StreamState), and the stream written during it numbers from 0 after it.
func TestOutResetAllBlocksOnlyStreamsWritten(t *testing.T) {
	x, cs := usedSender(t)
	s := &x.e.send
	for round := range 3 {
		cs.blocks, cs.unblocks = 0, 0
		s.beginOutgoingReset(nil)
		sendEach(t, x, 7) // written during the reset: waits
		if !s.resets.ready() {
			t.Fatal("not ready with nothing from before the reset")
		}
		if st, _ := s.streamState(7); st != stream.ResetPending {
			t.Fatalf("stream 7 %v during the reset", st)
		}
		if st, _ := s.streamState(9); st != stream.ResetPending {
			t.Fatalf("stream 9 %v during the reset", st)
		}
		s.finishOutgoingReset(nil, true)
		sendEach(t, x) // stream 7's message goes now, SSN 0
		if cs.blocks > 1 || cs.unblocks > 1 {
			t.Fatalf("round %d: %d streams blocked and %d unblocked for one stream used", round, cs.blocks, cs.unblocks)
		}
		if o := x.e.streams.Out(7); o.MID != 1 {
			t.Fatalf("round %d: stream 7 next SSN %d, want 1 (its message numbered 0)", round, o.MID)
		}
		if st, _ := s.streamState(9); st != stream.Open {
			t.Fatalf("stream 9 %v after the reset", st)
		}
	}
}

// A reset of every outbound stream (resetNumbering(nil), also the SSN/TSN
// reset's resetTSN) writes only the records of the streams numbered since
// the last one: with 65,535 streams in use, a record changed behind the
// sender's back is left as it is, so the reset did not look at it
// (rewriting every record would cost each request a walk over them).
func TestOutResetAllWritesOnlyStreamsNumbered(t *testing.T) {
	x, _ := usedSender(t)
	s := &x.e.send
	for _, assoc := range []bool{false, true} {
		x.e.streams.Out(500).MID = 9 // behind the sender's back
		sendEach(t, x, 3)
		if assoc {
			if !s.readyForTSNReset() {
				t.Fatal("not quiet")
			}
			s.resetTSN(s.ledger.nextTSN)
		} else {
			s.resetNumbering(nil)
		}
		if o := x.e.streams.Out(3); o.MID != 0 {
			t.Fatalf("ResetTSN %v: stream 3, numbered since the last reset, not reset: %+v", assoc, *o)
		}
		if o := x.e.streams.Out(500); o.MID != 9 {
			t.Fatalf("ResetTSN %v: a reset of every stream looked at a stream not numbered since the last one", assoc)
		}
	}
}

// readyForTSNReset (asked for each SSN/TSN Reset Request of the peer) and
// the tracker's ready (asked after each packet while our reset waits) read
// counters kept as messages are cut: with 65,535 streams in use, a partly
// cut message, or one from before the reset, planted behind the sender's
// back is not seen, so they did not look at the streams (a walk over
// every stream on each call would find it).
func TestQuietAndResetReadyCount(t *testing.T) {
	x, _ := usedSender(t)
	s := &x.e.send
	st := x.e.streams.OutSide(600)
	st.head = &message{buf: make([]byte, 2), off: 1, seq: s.queue.nextArrival - 1} // behind the sender's back
	if !s.readyForTSNReset() {
		t.Fatal("Quiet walked the streams")
	}
	s.beginOutgoingReset(nil)
	if !s.resets.ready() {
		t.Fatal("ResetReady walked the streams")
	}
	st.head = nil
	s.finishOutgoingReset(nil, false)
}

// outModel checks the sender's outgoing resets against the rules they
// stand for, which a walk over every stream would apply: after every step
// the counters equal what a walk finds (queued streams, partly cut heads,
// streams of the reset with messages from before it), readyForTSNReset and
// ready agree with the walk, every Out record holds the numbering the
// chunks sent imply, and no message written after a reset began starts
// before the reset ends on a stream it resets.
type outModel struct {
	t      testing.TB
	x      *tx
	n      int
	idata  bool
	next   [][2]uint32 // per stream: the next ordered and unordered MID (SSN)
	arrive uint32      // arrival number of the next message (its PPID)
	on     bool        // a reset is under way
	all    bool
	sids   []uint16
	at     uint32 // arrival number of the first message after beginOutgoingReset
}

func newOutModel(t testing.TB, n int, idata, pr bool) *outModel {
	x := newTx(t, Config{OutStreams: n, InStreams: 1, MTU: 1200, Interleaved: idata, PartialReliability: pr})
	return &outModel{t: t, x: x, n: n, idata: idata, next: make([][2]uint32, n)}
}

// inReset reports whether stream sid is one of the reset under way.
func (m *outModel) inReset(sid uint16) bool {
	return m.on && (m.all || slices.Contains(m.sids, sid))
}

// queue writes a message of size bytes on sid (its PPID the arrival
// number), with a lifetime of ttl milliseconds when not 0.
func (m *outModel) queue(sid uint16, size int, unordered bool, ttl uint32) {
	s := &m.x.e.send
	p := make([]byte, size)
	var err error
	if ttl > 0 {
		err = s.queuePR(m.x.now, sid, m.arrive, unordered, p, PR{Policy: PRTTL, Value: ttl})
	} else {
		err = s.enqueue(sid, m.arrive, unordered, p)
	}
	if err == nil {
		m.arrive++
	}
}

// packet sends one packet and checks its chunks.
func (m *outModel) packet() {
	s := &m.x.e.send
	var n int
	m.x.pkt, n = s.appendData(m.x.now, m.x.pkt[:0], 1200)
	if n == 0 {
		return
	}
	it := chunk.Chunks(m.x.pkt)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		var sid uint16
		var mid, ppid uint32
		var begin, unordered bool
		switch c.Type {
		case chunk.TypeData:
			d, err := chunk.ParseData(c)
			if err != nil {
				m.t.Fatal(err)
			}
			sid, mid, ppid, begin, unordered = d.SID, uint32(d.SSN), d.PPID, d.Beginning(), d.Unordered()
		case chunk.TypeIData:
			d, err := chunk.ParseIData(c)
			if err != nil {
				m.t.Fatal(err)
			}
			sid, mid, ppid, begin, unordered = d.SID, d.MID, d.PPID, d.Beginning(), d.Unordered()
		default:
			continue
		}
		if !begin {
			continue
		}
		if m.inReset(sid) && !seqLT(ppid, m.at) {
			m.t.Fatalf("stream %d started message %d, written after its reset began (at %d)", sid, ppid, m.at)
		}
		u := 0
		if unordered {
			if !m.idata {
				if mid != 0 {
					m.t.Fatalf("unordered DATA on stream %d with SSN %d", sid, mid)
				}
				continue
			}
			u = 1
		}
		want := m.next[sid][u]
		if !m.idata {
			want &= 0xffff
		}
		if mid != want {
			m.t.Fatalf("stream %d (unordered %v) numbered %d, want %d", sid, unordered, mid, want)
		}
		m.next[sid][u]++
		if !m.idata {
			m.next[sid][u] &= 0xffff
		}
	}
}

// check compares the counters, readyForTSNReset, ready and the records
// with a walk over every stream.
func (m *outModel) check(step int) {
	m.t.Helper()
	s := &m.x.e.send
	queued, cutting, left := 0, 0, 0
	for sid := range m.n {
		st := s.streams.PeekOutSide(uint16(sid))
		if st != nil && st.head != nil {
			queued++
			if st.head.off > 0 {
				cutting++
			}
			if m.inReset(uint16(sid)) && (st.head.off > 0 || seqLT(st.head.seq, m.at)) {
				left++
			}
		}
		o := s.streams.Out(uint16(sid))
		want := m.next[sid]
		if o.MID != stream.MID(want[0]) || m.idata && o.MIDUO != stream.MID(want[1]) {
			m.t.Fatalf("step %d: stream %d record %+v, want next %v", step, sid, *o, want)
		}
		// Blocked (in effect) once a stream of the reset has nothing
		// from before it left to send.
		old := st != nil && st.head != nil && (st.head.off > 0 || seqLT(st.head.seq, m.at))
		wantState := stream.Open
		if m.inReset(uint16(sid)) && !old {
			wantState = stream.ResetPending
		}
		if got, _ := s.streamState(uint16(sid)); got != wantState {
			m.t.Fatalf("step %d: stream %d %v, want %v", step, sid, got, wantState)
		}
	}
	if queued != s.queue.queuedStreams || cutting != s.queue.partlyCut {
		m.t.Fatalf("step %d: %d streams queued, %d partly cut; counted %d, %d", step, queued, cutting, s.queue.queuedStreams, s.queue.partlyCut)
	}
	if quiet := s.ledger.outstanding() == 0 && !s.pr.forwardDue && cutting == 0; quiet != s.readyForTSNReset() {
		m.t.Fatalf("step %d: readyForTSNReset %v, the walk says %v", step, s.readyForTSNReset(), quiet)
	}
	if m.on && (left == 0) != s.resets.ready() {
		m.t.Fatalf("step %d: ready %v with %d streams holding messages from before the reset", step, s.resets.ready(), left)
	}
}

// step applies one operation coded by op and arg.
func (m *outModel) step(op, arg byte) {
	s := &m.x.e.send
	sid := uint16(int(arg) % m.n)
	switch op % 8 {
	case 0, 1:
		size := []int{1, 700, 1500, 3000}[arg>>6]
		var ttl uint32
		if op&0x10 != 0 {
			ttl = 20
		}
		m.queue(sid, size, op&0x20 != 0, ttl)
	case 2, 3:
		m.packet()
	case 4:
		m.x.pkt = s.appendForward(m.x.now, m.x.pkt[:0], 1200)
		m.x.mustSACK(s.ledger.nextTSN-1, 1<<20)
	case 5:
		if m.on {
			break
		}
		m.on, m.all, m.sids, m.at = true, arg&1 == 0, nil, m.arrive
		if !m.all {
			for i := range 1 + int(arg>>5) {
				m.sids = append(m.sids, uint16((int(arg)+i*3)%m.n))
			}
			m.sids = append(m.sids, m.sids[0]) // named twice
		}
		s.beginOutgoingReset(m.sids)
	case 6:
		if !m.on || !s.resets.ready() {
			break
		}
		performed := arg&1 == 0
		s.finishOutgoingReset(m.sids, performed)
		if performed {
			for sid := range m.n {
				if m.inReset(uint16(sid)) {
					m.next[sid] = [2]uint32{}
				}
			}
		}
		m.on = false
	case 7:
		if arg&1 == 0 {
			m.x.advance(15 * time.Millisecond)
			s.expireLifetimes(m.x.now)
			break
		}
		if !m.on && s.readyForTSNReset() {
			s.resetTSN(s.ledger.nextTSN + TSN(arg))
			clear(m.next)
		}
	}
}

// FuzzOutReset drives the sender with writes (some with lifetimes that
// expire, partly sent or not), packets, acknowledgements, outgoing resets
// of every stream or of some, and SSN/TSN resets, checking outModel's
// rules after every step.
func FuzzOutReset(f *testing.F) {
	f.Add([]byte{0, 0, 0x01, 0x40, 0x10, 0x82, 2, 0, 5, 0, 2, 0, 2, 0, 4, 0, 6, 0, 2, 0, 7, 1})
	f.Add([]byte{0x21, 0xc3, 0x01, 0x82, 2, 0, 5, 0x61, 0, 0xc3, 2, 0, 2, 0, 6, 1, 4, 0, 2, 0})
	f.Add([]byte{0x80, 0x11, 0xc1, 2, 0, 7, 0, 7, 0, 2, 0, 5, 2, 4, 0, 2, 0, 6, 0, 7, 1, 0, 5})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		b := make([]byte, 400)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 1 {
			return
		}
		m := newOutModel(t, 5, b[0]&1 != 0, b[0]&2 != 0)
		b = b[1:]
		for i := 0; i+1 < len(b); i += 2 {
			m.step(b[i], b[i+1])
			m.check(i / 2)
		}
	})
}

// The same rules over long random runs, DATA and I-DATA, with and without
// PR-SCTP.
func TestOutResetModel(t *testing.T) {
	for seed := range uint64(16) {
		rng := rand.New(rand.NewPCG(seed, 23))
		m := newOutModel(t, 6, seed&1 != 0, seed&2 != 0)
		var b [8]byte
		for i := range 3000 {
			binary.LittleEndian.PutUint64(b[:], rng.Uint64())
			m.step(b[0], b[1])
			m.check(i)
		}
	}
}
