package transfer

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// msgKey names a message in the I-DATA delivery: parts of messages of
// different streams may alternate between reads.
type msgKey struct {
	sid uint16
	uo  bool
	mid uint32
}

// iside is a pair side speaking I-DATA, with its own reader (assembling
// parts per message).
type iside struct {
	*side
	parts map[msgKey][]byte
}

func (s *iside) consume() {
	for {
		n, info, err := s.e.Read(s.rbuf[:s.readSize])
		if errors.Is(err, ErrWouldBlock) {
			return
		}
		if err != nil || info.Aborted {
			s.fail("Read: %v %+v", err, info)
			return
		}
		k := msgKey{info.SID, info.Unordered, info.MID}
		s.parts[k] = append(s.parts[k], s.rbuf[:n]...)
		if info.EOR {
			s.check(s.parts[k], info)
			delete(s.parts, k)
		}
	}
}

// newIPair is newPair with I-DATA on both sides and a round-robin
// scheduler that may switch streams after every chunk.
func newIPair(t testing.TB, seed uint64, link simnet.LinkConfig, cfg Config) (*pair, [2]*iside) {
	cfg.Interleaved = true
	mk := func() Config {
		c := cfg
		s, err := sched.New(sched.RoundRobin, sched.Options{Interleaved: true, Streams: cfg.OutStreams})
		if err != nil {
			t.Fatal(err)
		}
		c.Scheduler = s
		return c
	}
	p := newPair(t, seed, link, mk(), mk())
	return p, [2]*iside{{p.a, map[msgKey][]byte{}}, {p.b, map[msgKey][]byte{}}}
}

// Large messages on many streams, interleaved chunk by chunk, over a
// network that loses, duplicates and reorders: every message arrives
// exactly once, intact, and in MID order on its stream where ordered
// (side.check), in both directions.
func TestIDataPairLossy(t *testing.T) {
	for seed := range uint64(3) {
		link := simnet.LinkConfig{Delay: 15 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.02, Dup: 0.01, Reorder: 0.02}
		p, sides := newIPair(t, seed+1, link, Config{LocalTSN: 7, OutStreams: 8, InStreams: 8, Buffers: api.Buffers{RecvBuffer: 256 << 10}})
		for _, s := range sides {
			s.toSend = 3 << 20
			s.maxMsg = 40000
			s.unordPct = 20
		}
		p.drive(t, 10*time.Minute, p.done, sides[0], sides[1])
		if p.a.e.stats.Retransmits == 0 || p.b.e.stats.Retransmits == 0 {
			t.Errorf("seed %d: no retransmissions: the network was not lossy", seed)
		}
		t.Logf("seed %d: virtual %v, A→B %d msgs, B→A %d msgs, retransmits %d/%d", seed, p.now.Sub(epoch),
			p.a.sentMsgs, p.b.sentMsgs, p.a.e.stats.Retransmits, p.b.e.stats.Retransmits)
	}
}

// Messages larger than the receive buffer on several streams at once:
// partial delivery runs per stream, parts of different messages alternate
// in the reads, and everything still arrives whole and in order.
func TestIDataPairPartialDelivery(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 0.01, Reorder: 0.01}
	p, sides := newIPair(t, 9, link, Config{LocalTSN: 0xfffffff0, OutStreams: 4, InStreams: 4, Buffers: api.Buffers{RecvBuffer: 40 << 10}})
	for _, s := range sides {
		s.toSend = 2 << 20
		s.maxMsg = 120 << 10
		s.readSize = 3000
	}
	p.drive(t, 10*time.Minute, p.done, sides[0], sides[1])
	pd := p.a.e.stats.PartialDeliveries + p.b.e.stats.PartialDeliveries
	if pd == 0 {
		t.Fatal("no partial delivery")
	}
	t.Logf("virtual %v, %d+%d msgs, %d partial deliveries, %d overruns", p.now.Sub(epoch), p.a.sentMsgs, p.b.sentMsgs,
		pd, p.a.e.stats.PartialOverrun+p.b.e.stats.PartialOverrun)
}

// The sender interleaves: with two streams each holding a large message,
// consecutive I-DATA chunks alternate between the streams, each stream's
// fragments numbered 0, 1, 2, ... (PPID on the first) under one MID.
func TestIDataSenderInterleaves(t *testing.T) {
	s, err := sched.New(sched.RoundRobin, sched.Options{Interleaved: true, Streams: 2})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{OutStreams: 2, InStreams: 2, PeerRwnd: 1 << 20, Interleaved: true, Scheduler: s, MTU: 1200})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 5000)
	for sid := range uint16(2) {
		if err := e.send.enqueue(sid, 9, false, big); err != nil {
			t.Fatal(err)
		}
	}
	now := epoch
	var sids []uint16
	next := map[uint16]uint32{}
	for range 6 {
		pkt, _ := e.AppendData(now, nil, 1200-12)
		it := chunk.Chunks(pkt)
		for c, ok := it.Next(); ok; c, ok = it.Next() {
			if c.Type != chunk.TypeIData {
				t.Fatalf("chunk %v", c.Type)
			}
			d, _ := chunk.ParseIData(c)
			if len(d.Payload) > 1200-12-20 {
				t.Fatalf("fragment of %d bytes: the fragment point ignores the 20-byte header", len(d.Payload))
			}
			fsn := d.FSN
			if d.Beginning() {
				fsn = 0
				if d.PPID != 9 {
					t.Fatalf("PPID %d", d.PPID)
				}
			}
			if fsn != next[d.SID] || d.MID != 0 {
				t.Fatalf("stream %d: MID %d FSN %d, want FSN %d", d.SID, d.MID, fsn, next[d.SID])
			}
			next[d.SID]++
			sids = append(sids, d.SID)
		}
	}
	switches := 0
	for i := 1; i < len(sids); i++ {
		if sids[i] != sids[i-1] {
			switches++
		}
	}
	if switches < len(sids)/2 {
		t.Fatalf("chunks by stream %v: not interleaved", sids)
	}
}

// A DATA chunk on an I-DATA association, and an I-DATA chunk on a DATA
// one, are protocol violations (RFC 8260 section 2.2.3: "the receiver of
// the DATA chunk MUST abort the association").
func TestIDataWrongVariant(t *testing.T) {
	ei, err := New(Config{OutStreams: 1, InStreams: 1, Interleaved: true})
	if err != nil {
		t.Fatal(err)
	}
	d := Data{Flags: chunk.FlagBeginning | chunk.FlagEnd, TSN: 0, Payload: []byte("x")}
	if _, err := ei.HandleData(epoch, &d); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("DATA with I-DATA negotiated: %v", err)
	}
	ed, err := New(Config{OutStreams: 1, InStreams: 1})
	if err != nil {
		t.Fatal(err)
	}
	id := IData{Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte("x")}
	if _, err := ed.HandleIData(epoch, &id); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("I-DATA without I-DATA negotiated: %v", err)
	}
}

// I-FORWARD-TSN at the receiver: the cumulative TSN moves, a partial
// delivery of a skipped message ends (the reader sees Aborted after the
// parts it got), later messages flow, malformed chunks are refused, and
// on a DATA association the chunk is a protocol violation.
func TestIDataReceiverIForwardTSN(t *testing.T) {
	e, err := New(Config{OutStreams: 2, InStreams: 2, Interleaved: true, Buffers: api.Buffers{RecvBuffer: 4000}, PeerTSN: 10})
	if err != nil {
		t.Fatal(err)
	}
	r := &e.recv
	big := make([]byte, 1500)
	for i, d := range []IData{
		{TSN: 10, SID: 0, MID: 0, Flags: chunk.FlagBeginning, PPID: 5, Payload: big},
		{TSN: 11, SID: 0, MID: 0, FSN: 1, Payload: big},
		{TSN: 13, SID: 1, MID: 0, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte("after")},
	} {
		if v, err := r.handleIData(epoch, &d); err != nil || v != Accepted {
			t.Fatalf("chunk %d: %v %v", i, v, err)
		}
	}
	buf := make([]byte, 8000)
	// Held 3005 bytes over a partial delivery point of 2000: stream 0's
	// first parts are out, stream 1's whole message with them.
	var got []string
	for {
		n, info, err := r.read(buf)
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%d/%d:%d eor=%v aborted=%v", info.SID, info.MID, n, info.EOR, info.Aborted))
	}
	// TSN 12 (the rest of stream 0's message) was abandoned.
	c := chunkOf(t, func(b []byte) []byte {
		b, _ = chunk.AppendIForwardTSN(b, 12, []chunk.StreamMID{{SID: 0, MID: 0}})
		return b
	})
	if err := r.handleIForwardTSN(epoch, c); err != nil {
		t.Fatal(err)
	}
	if r.tsns.cum != 13 || !r.acks.due(epoch) {
		t.Fatalf("cum %d, SACK due %v", r.tsns.cum, r.acks.due(epoch))
	}
	for {
		n, info, err := r.read(buf)
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%d/%d:%d eor=%v aborted=%v", info.SID, info.MID, n, info.EOR, info.Aborted))
	}
	want := "[0/0:3000 eor=false aborted=false 1/0:5 eor=true aborted=false 0/0:0 eor=false aborted=true]"
	if fmt.Sprint(got) != want {
		t.Fatalf("reads %v\nwant  %s", got, want)
	}
	// Stale: no change.
	if err := r.handleIForwardTSN(epoch, c); err != nil || r.tsns.cum != 13 {
		t.Fatalf("stale I-FORWARD-TSN: %v, cum %d", err, r.tsns.cum)
	}
	bad := chunkOf(t, func(b []byte) []byte {
		b, _ = chunk.AppendIForwardTSN(b, 20, []chunk.StreamMID{{SID: 2, MID: 0}})
		return b
	})
	if err := r.handleIForwardTSN(epoch, bad); err == nil || r.tsns.cum != 13 {
		t.Fatalf("stream 2 of 2: %v, cum %d", err, r.tsns.cum)
	}
	short := chunk.Chunk{Type: chunk.TypeIForwardTSN, Value: []byte{0, 0, 0, 20, 0, 0, 0, 0}}
	if err := r.handleIForwardTSN(epoch, short); !errors.Is(err, chunk.ErrBadLength) {
		t.Fatalf("length 12: %v", err)
	}
	ed, _ := New(Config{OutStreams: 1, InStreams: 1})
	if err := ed.HandleIForwardTSN(epoch, c); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("I-FORWARD-TSN without I-DATA: %v", err)
	}
}

func chunkOf(t testing.TB, build func([]byte) []byte) chunk.Chunk {
	t.Helper()
	it := chunk.Chunks(build(nil))
	c, ok := it.Next()
	if !ok {
		t.Fatal(it.Err())
	}
	return c
}

// The sender numbers fragments the RFC 8260 way (second fragment FSN 1)
// until the peer shows Linux's numbering (second fragment FSN 0, all a
// Linux receiver reassembles, as the kernel probe in kernelvm found); then
// it numbers the same way. Config.Extensions.InterleaveFSN fixes either numbering.
func TestIDataSenderFollowsLinuxFSN(t *testing.T) {
	sendFSNs := func(e *Engine) []uint32 {
		if err := e.send.enqueue(0, 1, false, make([]byte, 3000)); err != nil {
			t.Fatal(err)
		}
		var fsns []uint32
		for {
			pkt, n := e.AppendData(epoch, nil, 1200-12)
			if n == 0 {
				return fsns
			}
			it := chunk.Chunks(pkt)
			for c, ok := it.Next(); ok; c, ok = it.Next() {
				d, _ := chunk.ParseIData(c)
				if !d.Beginning() {
					fsns = append(fsns, d.FSN)
				}
			}
		}
	}
	linuxMsg := func(e *Engine) {
		for _, d := range []IData{
			{TSN: 0, Flags: chunk.FlagBeginning, Payload: []byte("a")},
			{TSN: 1, FSN: 0, Payload: []byte("b")},
			{TSN: 2, FSN: 1, Flags: chunk.FlagEnd, Payload: []byte("c")},
		} {
			if _, err := e.HandleIData(epoch, &d); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		conv      interleave.FSNConvention
		peerLinux bool
		want      string
	}{
		{interleave.FSNAuto, false, "[1 2]"},
		{interleave.FSNAuto, true, "[0 1]"},
		{interleave.FSNRFC, true, "[1 2]"},
		{interleave.FSNLinux, false, "[0 1]"},
	} {
		e, err := New(Config{OutStreams: 1, InStreams: 1, PeerRwnd: 1 << 20, MTU: 1200, Interleaved: true, InterleaveFSN: c.conv})
		if err != nil {
			t.Fatal(err)
		}
		if c.peerLinux {
			linuxMsg(e)
		}
		if got := fmt.Sprint(sendFSNs(e)); got != c.want {
			t.Errorf("%v, peer Linux %v: FSNs %s, want %s", c.conv, c.peerLinux, got, c.want)
		}
	}
}

// The window rules of RFC 9260 section 6.2 hold for I-DATA: with the
// window full, a chunk filling a hole makes the receiver drop the highest
// TSN held for reassembly ("the receiver SHOULD drop the largest TSN held
// for reordering and accept the new incoming DATA chunk"), which leaves
// the SACK, and a chunk above the highest TSN is dropped.
func TestIDataReceiveWindowFullHoleFiller(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 2000}, Interleaved: true})
	id := func(tsn TSN, sid uint16, mid uint32, n int) Verdict {
		d := IData{TSN: tsn, SID: sid, MID: mid, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: make([]byte, n)}
		v, err := r.e.HandleIData(r.now, &d)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	id(2, 0, 1, 1000)
	id(3, 0, 2, 1000) // window now 0, TSN 1 (MID 0) missing
	if v := id(4, 0, 3, 10); v != Dropped {
		t.Fatalf("TSN above the highest with the window full: %v", v)
	}
	if v := id(1, 0, 0, 400); v != Accepted {
		t.Fatalf("hole filler: %v, want accepted", v)
	}
	if r.e.stats.DroppedReneged != 1 {
		t.Fatalf("DroppedReneged %d", r.e.stats.DroppedReneged)
	}
	if s := r.sack(); s.CumTSNAck != 2 || len(s.Gaps) != 0 {
		t.Fatalf("SACK cum %d gaps %v, want 2 and TSN 3 no longer reported", s.CumTSNAck, s.Gaps)
	}
	if got := r.readAll(); len(got) != 2 {
		t.Fatalf("read %v, want 2 messages", got)
	}
	if v := id(3, 0, 2, 1000); v != Accepted {
		t.Fatalf("retransmitted TSN 3: %v", v)
	}
	if got := r.readAll(); len(got) != 1 {
		t.Fatalf("read %v after the retransmission", got)
	}
}

// RFC 8260 section 2.1: "the sender MUST NOT have more than 2**31 - 1
// ordered messages for each outgoing stream in flight". An ordered I-DATA
// chunk whose MID is 2^31 or more ahead of the stream's next expected one
// (which serial arithmetic reads as behind it, or leaves undefined) cannot
// be placed: the receiver refuses it with a protocol violation (ABORT)
// and counts it; 2^31 - 1 ahead is held.
func TestIDataMIDOutsideWindow(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 4000}, Interleaved: true})
	send := func(tsn TSN, mid uint32) error {
		d := IData{TSN: tsn, SID: 1, MID: mid, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte{1}}
		_, err := r.e.HandleIData(r.now, &d)
		return err
	}
	if err := send(1, 1<<31-1); err != nil {
		t.Fatalf("MID 2^31 - 1 ahead: %v", err)
	}
	if err := send(2, 1<<31); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("MID 2^31 ahead: %v, want a protocol violation", err)
	}
	if r.e.stats.IDataMIDRefused != 1 {
		t.Fatalf("IDataMIDRefused %d, want 1", r.e.stats.IDataMIDRefused)
	}
}
