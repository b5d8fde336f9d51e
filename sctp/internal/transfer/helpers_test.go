package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// tx is a single engine under test on the sending side; the test plays
// the peer by writing SACKs.
type tx struct {
	t   testing.TB
	e   *Engine
	now time.Time
	pkt []byte
}

func newTx(t testing.TB, cfg Config) *tx {
	t.Helper()
	if cfg.OutStreams == 0 {
		cfg.OutStreams, cfg.InStreams = 4, 4
	}
	if cfg.PeerRwnd == 0 {
		cfg.PeerRwnd = api.DefaultBuffer
	}
	if cfg.LocalTSN == 0 {
		cfg.LocalTSN = 1000
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &tx{t: t, e: e, now: epoch, pkt: make([]byte, 0, 65536)}
}

func (x *tx) advance(d time.Duration) { x.now = x.now.Add(d) }

// queue queues n messages of size bytes on stream 0.
func (x *tx) queue(n, size int) {
	x.t.Helper()
	for range n {
		if err := x.e.send.enqueue(0, 0, false, make([]byte, size)); err != nil {
			x.t.Fatal(err)
		}
	}
}

// packet asks for one packet and returns its DATA chunks.
func (x *tx) packet() []Data {
	x.t.Helper()
	pkt, n := x.e.AppendData(x.now, x.pkt[:0], x.e.path.MTU()-12)
	var out []Data
	for len(pkt) > 0 {
		l := chunkLen(pkt)
		var d Data
		if l < 0 || !parseData(pkt[:l], &d) {
			x.t.Fatalf("AppendData wrote a malformed chunk")
		}
		out = append(out, d)
		pkt = pkt[l:]
	}
	if len(out) != n {
		x.t.Fatalf("AppendData reported %d chunks, wrote %d", n, len(out))
	}
	return out
}

// flush asks for packets until none comes and returns all TSNs sent.
func (x *tx) flush() []TSN {
	var tsns []TSN
	for {
		ds := x.packet()
		if len(ds) == 0 {
			return tsns
		}
		for _, d := range ds {
			tsns = append(tsns, d.TSN)
		}
	}
}

// sack delivers a SACK; gaps are pairs of offsets.
func (x *tx) sack(cum TSN, rwnd uint32, gaps ...uint16) (bool, error) {
	s := &SACK{CumTSNAck: cum, ARwnd: rwnd}
	for i := 0; i+1 < len(gaps); i += 2 {
		s.Gaps = append(s.Gaps, GapBlock{Start: gaps[i], End: gaps[i+1]})
	}
	return x.e.HandleSACK(x.now, s)
}

func (x *tx) mustSACK(cum TSN, rwnd uint32, gaps ...uint16) {
	x.t.Helper()
	if _, err := x.sack(cum, rwnd, gaps...); err != nil {
		x.t.Fatal(err)
	}
}

// rx is a single engine under test on the receiving side.
type rx struct {
	t   testing.TB
	e   *Engine
	now time.Time
}

func newRx(t testing.TB, cfg Config) *rx {
	t.Helper()
	if cfg.OutStreams == 0 {
		cfg.OutStreams, cfg.InStreams = 4, 4
	}
	if cfg.PeerTSN == 0 {
		cfg.PeerTSN = 1
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &rx{t: t, e: e, now: epoch}
}

// data delivers one packet holding one DATA chunk.
func (r *rx) data(tsn TSN, sid, ssn uint16, flags uint8, payload []byte) Verdict {
	r.t.Helper()
	v, err := r.e.HandleData(r.now, &Data{TSN: tsn, SID: sid, SSN: ssn, Flags: flags, Payload: payload})
	if err != nil {
		r.t.Fatal(err)
	}
	r.e.EndPacket(r.now)
	return v
}

// whole delivers an unfragmented ordered message.
func (r *rx) whole(tsn TSN, sid, ssn uint16, n int) Verdict {
	r.t.Helper()
	return r.data(tsn, sid, ssn, chunk.FlagBeginning|chunk.FlagEnd, make([]byte, n))
}

// sack builds the SACK now due and parses it back.
func (r *rx) sack() SACK {
	r.t.Helper()
	b := r.e.AppendSACK(r.now, nil, 1500)
	var s SACK
	if !parseSACK(b, &s) {
		r.t.Fatalf("malformed SACK %x", b)
	}
	return s
}

// readAll reads every ready message and returns their lengths.
func (r *rx) readAll() []int {
	var out []int
	buf := make([]byte, 1<<20)
	n := 0
	for {
		k, info, err := r.e.Read(buf)
		if err != nil {
			return out
		}
		n += k
		if info.EOR {
			out = append(out, n)
			n = 0
		}
	}
}

// checkInvariants recomputes the sender's counters from its records.
func checkInvariants(t testing.TB, s *sender) {
	t.Helper()
	var flight, inFlight, rtx, gap, unacked, prOut int
	for tsn := s.ledger.cumAck + 1; tsn != s.ledger.nextTSN; tsn++ {
		r := s.ledger.rec(tsn)
		if r.state != recAbandoned && r.msg != nil && r.msg.timed() {
			prOut++
		}
		switch r.state {
		case recInFlight:
			flight += s.ledger.size(r)
			inFlight++
			unacked += int(r.n)
		case recRtx:
			rtx++
			unacked += int(r.n)
		case recGapAcked:
			gap++
		case recAbandoned:
		default:
			t.Fatalf("TSN %d above the cumulative ack point in state %d", tsn, r.state)
		}
		if r.msg == nil {
			t.Fatalf("TSN %d has no message", tsn)
		}
	}
	pathFlight := 0
	timer := !s.loss.t3.IsZero()
	for _, p := range s.paths.list {
		pathFlight += p.flight
		timer = timer || !p.t3.IsZero()
	}
	if flight != pathFlight || inFlight != s.ledger.inFlight || rtx != s.ledger.rtxPending || gap != s.ledger.gapAcked || unacked != s.ledger.unackedData {
		t.Fatalf("counters flight %d/%d inFlight %d/%d rtx %d/%d gap %d/%d unacked %d/%d (want/have)",
			flight, pathFlight, inFlight, s.ledger.inFlight, rtx, s.ledger.rtxPending, gap, s.ledger.gapAcked, unacked, s.ledger.unackedData)
	}
	// Each stream's buffered bytes: the uncut parts of its queued
	// messages and its chunks neither acknowledged nor abandoned.
	buffered := map[uint16]int{}
	for tsn := s.ledger.cumAck + 1; tsn != s.ledger.nextTSN; tsn++ {
		if r := s.ledger.rec(tsn); r.state == recInFlight || r.state == recRtx {
			buffered[r.sid] += int(r.n)
		}
	}
	for sid, st := range s.streams.OutSides() {
		for m := st.head; m != nil; m = m.next {
			buffered[uint16(sid)] += len(m.buf) - int(m.off)
		}
		if st.buffered != buffered[uint16(sid)] {
			t.Fatalf("stream %d counts %d bytes buffered, holds %d", sid, st.buffered, buffered[uint16(sid)])
		}
	}
	if prOut != s.pr.timedChunks {
		t.Fatalf("%d outstanding chunks with a PR policy, counted %d", prOut, s.pr.timedChunks)
	}
	if (s.ledger.inFlight+s.ledger.rtxPending > 0) && !timer {
		t.Fatalf("data outstanding without T3-rtx running")
	}
}

// enqueue queues a reliable message on the sender: what Engine.Queue does
// for a message without a PR policy, without reading the clock.
func (s *sender) enqueue(sid uint16, ppid uint32, unordered bool, payload []byte) error {
	return s.queueMessage(sid, ppid, unordered, payload, true)
}

// advancedPeerAckPoint returns the Advanced.Peer.Ack.Point of RFC 3758
// section 3.5 A1, with cum the cumulative TSN ack point.
func (a *abandoner) advancedPeerAckPoint(cum TSN) TSN {
	if a.advPeerAck.LT(cum) {
		return cum
	}
	return a.advPeerAck
}

// streamPartlyCut reports whether outbound stream sid has a message partly
// cut into chunks: its remaining fragments carry the message's SSN (or
// MID), so an Outgoing SSN Reset Request for sid must wait until it is
// fully cut.
func (s *sender) streamPartlyCut(sid uint16) bool {
	st := s.streams.PeekOutSide(sid)
	return st != nil && st.head != nil && st.head.off > 0
}

// streamUnsent returns the bytes of stream sid queued and not yet cut
// into chunks.
func (q *sendQueue) streamUnsent(sid uint16) int {
	if int(sid) >= q.cfg.OutStreams {
		return 0
	}
	if st := q.streams.PeekOutSide(sid); st != nil {
		return st.unsent
	}
	return 0
}

// handleCumAck applies the Cumulative TSN Ack of a SHUTDOWN chunk (RFC 9260
// section 9.2: "Upon reception of the SHUTDOWN chunk, the peer endpoint
// does the following: ... verify, by checking the Cumulative TSN Ack field
// of the chunk, that all its outstanding DATA chunks have been received by
// the SHUTDOWN chunk sender."): a SACK without gap blocks that leaves the
// peer's window as it was. Errors as HandleSACK.
func (s *sender) handleCumAck(now time.Time, cum TSN) (acked bool, err error) {
	if cum.LT(s.ledger.cumAck) {
		return false, nil
	}
	sk := SACK{CumTSNAck: cum, ARwnd: uint32(s.peerRwnd + s.ledger.unackedData)}
	if cum.LEQ(s.ledger.nextTSN - 1) {
		// The window the SACK computes: a_rwnd less what stays unacked.
		for t := s.ledger.cumAck + 1; t.LEQ(cum); t++ {
			if r := s.ledger.rec(t); r.state == recInFlight || r.state == recRtx {
				sk.ARwnd -= uint32(r.n)
			}
		}
	}
	return s.handleSACK(now, &sk)
}
