package transfer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// epoch is the virtual clock's origin.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// side is one engine in a simulated pair with its application: it sends
// numbered messages and checks what it receives.
type side struct {
	t    testing.TB
	name string
	e    *Engine
	out  int // link id towards the peer
	pkt  []byte
	rbuf []byte
	sk   SACK

	// Sending application.
	rng      *rand.Rand
	toSend   int64 // bytes still to queue
	sentMsgs int
	nextSeq  []uint32 // per stream
	pending  []byte   // message built but not accepted yet
	pendSID  uint16
	pendUn   bool
	maxMsg   int
	unordPct int

	// Receiving application: next expected sequence per stream (ordered),
	// and the set of unordered sequences seen.
	expect    []uint32
	unordSeen map[[2]uint32]bool
	recvMsgs  int
	recvBytes int64
	msg       []byte // message being reassembled from Read parts
	readSize  int
	readStep  int // bytes the reader takes per event; 0: everything
	err       error
}

func newSide(t testing.TB, name string, cfg Config, seed uint64) *side {
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &side{
		t: t, name: name, e: e,
		pkt:       make([]byte, 0, 65536),
		rbuf:      make([]byte, 65536),
		rng:       rand.New(rand.NewPCG(seed, 1)),
		nextSeq:   make([]uint32, cfg.OutStreams),
		expect:    make([]uint32, cfg.InStreams),
		unordSeen: make(map[[2]uint32]bool),
		maxMsg:    4000,
		readSize:  65536,
	}
}

// message layout: sid(2) seq(4) len(4) crc(4) then payload bytes derived
// from (sid, seq).
const msgHeader = 14

func fill(b []byte, sid uint16, seq uint32) {
	x := uint32(sid)<<20 ^ seq*2654435761
	for i := msgHeader; i < len(b); i++ {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	binary.BigEndian.PutUint16(b, sid)
	binary.BigEndian.PutUint32(b[2:], seq)
	binary.BigEndian.PutUint32(b[6:], uint32(len(b)))
	binary.BigEndian.PutUint32(b[10:], crc32.ChecksumIEEE(b[msgHeader:]))
}

// produce queues messages until the send buffer refuses or the budget is
// spent.
func (s *side) produce() {
	for s.toSend > 0 {
		if s.pending == nil {
			n := msgHeader + s.rng.IntN(s.maxMsg-msgHeader+1)
			if s.rng.IntN(50) == 0 {
				n = msgHeader + s.rng.IntN(64<<10) // an occasional big one
			}
			sid := uint16(s.rng.IntN(len(s.nextSeq)))
			s.pendUn = s.rng.IntN(100) < s.unordPct
			b := make([]byte, n)
			fill(b, sid, s.nextSeq[sid])
			s.nextSeq[sid]++
			s.pending, s.pendSID = b, sid
		}
		err := s.e.send.enqueue(s.pendSID, 51, s.pendUn, s.pending)
		if errors.Is(err, ErrWouldBlock) {
			return
		}
		if err != nil {
			s.t.Fatalf("%s: Queue: %v", s.name, err)
		}
		s.toSend -= int64(len(s.pending))
		s.sentMsgs++
		s.pending = nil
	}
}

// consume reads every delivered message and checks it.
func (s *side) consume() {
	budget := s.readStep
	for s.readStep == 0 || budget > 0 {
		n, info, err := s.e.Read(s.rbuf[:s.readSize])
		if errors.Is(err, ErrWouldBlock) {
			return
		}
		if err != nil {
			s.fail("Read: %v", err)
			return
		}
		s.msg = append(s.msg, s.rbuf[:n]...)
		budget -= n
		if !info.EOR {
			continue
		}
		s.check(s.msg, info)
		s.msg = s.msg[:0]
	}
}

func (s *side) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%s: "+format, append([]any{s.name}, args...)...)
	}
}

func (s *side) check(b []byte, info RecvInfo) {
	if len(b) < msgHeader {
		s.fail("short message %d bytes", len(b))
		return
	}
	sid := binary.BigEndian.Uint16(b)
	seq := binary.BigEndian.Uint32(b[2:])
	if int(binary.BigEndian.Uint32(b[6:])) != len(b) || crc32.ChecksumIEEE(b[msgHeader:]) != binary.BigEndian.Uint32(b[10:]) {
		s.fail("corrupt message sid %d seq %d len %d", sid, seq, len(b))
		return
	}
	if sid != info.SID || info.PPID != 51 {
		s.fail("message sid %d arrived as sid %d ppid %d", sid, info.SID, info.PPID)
		return
	}
	if info.Unordered {
		k := [2]uint32{uint32(sid), seq}
		if s.unordSeen[k] {
			s.fail("unordered message sid %d seq %d twice", sid, seq)
		}
		s.unordSeen[k] = true
	} else {
		// Ordered messages arrive in order; sequences used by unordered
		// messages are skipped.
		if seq < s.expect[sid] {
			s.fail("ordered message sid %d seq %d after %d", sid, seq, s.expect[sid])
		}
		s.expect[sid] = seq + 1
	}
	s.recvMsgs++
	s.recvBytes += int64(len(b))
}

// flush builds and sends packets while the engine has something to send.
func (s *side) flush(now time.Time, n *simnet.Network) {
	mtu := s.e.path.MTU()
	for i := 0; ; i++ {
		pkt := s.pkt[:0]
		room := mtu - 12
		if s.e.SACKDue(now) {
			pkt = s.e.AppendSACK(now, pkt, room)
		}
		pkt, _ = s.e.AppendData(now, pkt, room-len(pkt))
		if len(pkt) == 0 {
			return
		}
		n.Send(now, s.out, pkt)
		if i > 10000 {
			s.t.Fatalf("%s: flush does not terminate", s.name)
		}
	}
}

// input processes one packet of chunks: DATA, or I-DATA when the side
// speaks it (Config.Interleaved), and SACKs.
func (s *side) input(now time.Time, pkt []byte) {
	interleaved := s.e.Config().Interleaved
	it := chunk.Chunks(pkt)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		switch {
		case c.Type == chunk.TypeData && !interleaved:
			d, err := chunk.ParseData(c)
			if err != nil {
				s.fail("bad DATA: %v", err)
				return
			}
			if _, err := s.e.HandleData(now, &d); err != nil {
				s.fail("HandleData: %v", err)
			}
		case c.Type == chunk.TypeIData && interleaved:
			d, err := chunk.ParseIData(c)
			if err != nil {
				s.fail("bad I-DATA: %v", err)
				return
			}
			if _, err := s.e.HandleIData(now, &d); err != nil {
				s.fail("HandleIData: %v", err)
			}
		case c.Type == chunk.TypeSack:
			sk, err := chunk.ParseSack(c)
			if err != nil {
				s.fail("bad SACK: %v", err)
				return
			}
			s.sk.SetFrom(&sk)
			if _, err := s.e.HandleSACK(now, &s.sk); err != nil {
				s.fail("HandleSACK: %v", err)
			}
		case interleaved:
			s.fail("chunk %v on an I-DATA association", c.Type)
		}
	}
	if err := it.Err(); err != nil {
		s.fail("bad packet: %v", err)
	}
	s.e.EndPacket(now)
}

// pair is two sides joined by a simulated network.
type pair struct {
	n    *simnet.Network
	a, b *side
	now  time.Time
}

func newPair(t testing.TB, seed uint64, link simnet.LinkConfig, cfgA, cfgB Config) *pair {
	cfgA.PeerTSN, cfgB.PeerTSN = cfgB.LocalTSN, cfgA.LocalTSN
	cfgA.PeerRwnd, cfgB.PeerRwnd = uint32(max(cfgB.RecvBuffer, api.DefaultBuffer)), uint32(max(cfgA.RecvBuffer, api.DefaultBuffer))
	if cfgB.RecvBuffer > 0 {
		cfgA.PeerRwnd = uint32(cfgB.RecvBuffer)
	}
	if cfgA.RecvBuffer > 0 {
		cfgB.PeerRwnd = uint32(cfgA.RecvBuffer)
	}
	p := &pair{n: simnet.New(seed), now: epoch}
	p.a = newSide(t, "A", cfgA, seed*3+1)
	p.b = newSide(t, "B", cfgB, seed*3+2)
	p.a.out = p.n.AddLink(link)
	p.b.out = p.n.AddLink(link)
	return p
}

// peer is a side as pair.drive sees it: a side, or an iside (I-DATA),
// which brings its own reader.
type peer interface {
	base() *side
	consume()
}

func (s *side) base() *side { return s }

// run drives the pair until both have sent and received everything or the
// virtual time limit passes.
func (p *pair) run(t testing.TB, limit time.Duration) { p.drive(t, limit, p.done, p.a, p.b) }

// runUntil drives the pair until stop reports true.
func (p *pair) runUntil(t testing.TB, stop func() bool, limit time.Duration) {
	p.drive(t, limit, stop, p.a, p.b)
}

// drive runs the pair, with a and b standing for p.a and p.b, until stop
// reports true.
func (p *pair) drive(t testing.TB, limit time.Duration, stop func() bool, a, b peer) {
	end := p.now.Add(limit)
	peers := [2]peer{a, b}
	for steps := 0; ; steps++ {
		for _, ps := range peers {
			if d := ps.base().e.Deadline(); !d.IsZero() && !d.After(p.now) {
				ps.base().e.OnTimeout(p.now)
			}
		}
		for pk := p.n.Pop(p.now); pk != nil; pk = p.n.Pop(p.now) {
			dst := peers[1-pk.Link] // link 0 is A→B
			dst.base().input(p.now, pk.Data)
			p.n.Free(pk)
			dst.base().flush(p.now, p.n)
		}
		for _, ps := range peers {
			s := ps.base()
			s.produce()
			ps.consume()
			if s.err != nil {
				t.Fatal(s.err)
			}
		}
		for _, ps := range peers {
			s := ps.base()
			s.flush(p.now, p.n)
			if steps%64 == 0 {
				checkInvariants(t, &s.e.send)
			}
		}
		if stop() {
			return
		}
		// Advance the clock to the next event.
		next, ok := p.n.Next()
		for _, ps := range peers {
			s := ps.base()
			if d := s.e.Deadline(); !d.IsZero() && (!ok || d.Before(next)) {
				next, ok = d, true
			}
		}
		for _, ps := range peers {
			s := ps.base()
			if s.readStep > 0 && s.e.Readable() && (!ok || p.now.Add(time.Millisecond).Before(next)) {
				next, ok = p.now.Add(time.Millisecond), true // the slow reader's next read
			}
		}
		if !ok {
			t.Fatalf("stalled at %v: A %s; B %s", p.now.Sub(epoch), p.a.state(), p.b.state())
		}
		if next.After(p.now) {
			p.now = next
		}
		if p.now.After(end) {
			t.Fatalf("not done after %v: A %s; B %s", limit, p.a.state(), p.b.state())
		}
	}
}

func (p *pair) done() bool {
	return p.a.toSend <= 0 && p.b.toSend <= 0 && p.a.pending == nil && p.b.pending == nil &&
		p.a.e.SendIdle() && p.b.e.SendIdle() &&
		p.a.recvMsgs == p.b.sentMsgs && p.b.recvMsgs == p.a.sentMsgs
}

func (s *side) state() string {
	e := s.e
	return fmt.Sprintf("toSend=%d sent=%d recv=%d buffered=%d outstanding=%d cwnd=%d flight=%d rwnd=%d rto=%v held=%d cum=%d",
		s.toSend, s.sentMsgs, s.recvMsgs, e.send.queue.buffered, e.send.ledger.outstanding(), e.path.Cwnd(), e.path.flight,
		e.PeerRwnd(), e.path.RTO(), e.RecvHeld(), e.CumulativeTSN())
}

func TestPairSmoke(t *testing.T) {
	cfg := Config{LocalTSN: 100, OutStreams: 4, InStreams: 4}
	cfgB := cfg
	cfgB.LocalTSN = 0xfffffff0 // wraps during the run
	p := newPair(t, 1, simnet.LinkConfig{Delay: 10 * time.Millisecond}, cfg, cfgB)
	p.a.toSend, p.b.toSend = 1<<20, 1<<20
	p.run(t, time.Minute)
	t.Logf("virtual %v, A sent %d msgs, B sent %d msgs; A %+v", p.now.Sub(epoch), p.a.sentMsgs, p.b.sentMsgs, p.a.e.stats)
}
