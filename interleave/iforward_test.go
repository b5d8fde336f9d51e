package interleave

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

func oneChunk(t testing.TB, b []byte) chunk.Chunk {
	t.Helper()
	it := chunk.Chunks(b)
	c, ok := it.Next()
	if !ok {
		t.Fatalf("no chunk: %v", it.Err())
	}
	return c
}

// RFC 8260 section 2.1: the I-DATA chunk's "Reserved: 16 bits ... It MUST
// be set to 0 by the sender and MUST be ignored by the receiver", and "If
// the B bit is set, this field contains the PPID of the user message ...
// If the B bit is not set, this field contains the FSN." The framer writes
// type 64, a zero reserved field, the PPID in the first fragment and the
// FSN (1, 2, ...) in the later ones; LinuxFSN writes Linux's 0, 1, ...
func TestIDataFramerWire(t *testing.T) {
	tab := stream.NewTable[struct{}, InSide](1, 1)
	fr := NewIDataFramer(tab)
	frag := func(fsn uint32, flags uint8) chunk.IData {
		b := fr.Append(nil, OutFrag{TSN: 7, PPID: 51, MID: 9, FSN: fsn, SID: 0, Flags: flags, Payload: []byte("xyz")})
		if len(b) != 24 || b[0] != byte(chunk.TypeIData) || binary.BigEndian.Uint16(b[10:]) != 0 {
			t.Fatalf("wire % x", b)
		}
		d, err := chunk.ParseIData(oneChunk(t, b))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := frag(0, chunk.FlagBeginning); d.PPID != 51 || d.MID != 9 || d.TSN != 7 {
		t.Fatalf("first fragment %+v", d)
	}
	if d := frag(1, 0); d.FSN != 1 {
		t.Fatalf("second fragment FSN %d, want 1", d.FSN)
	}
	fr.LinuxFSN = true
	if d := frag(1, 0); d.FSN != 0 {
		t.Fatalf("Linux-numbered second fragment FSN %d, want 0", d.FSN)
	}
	if d := frag(2, chunk.FlagEnd); d.FSN != 1 {
		t.Fatalf("Linux-numbered third fragment FSN %d, want 1", d.FSN)
	}
	// The receiver ignores the reserved field.
	b := NewIDataFramer(tab).Append(nil, OutFrag{TSN: 1, MID: 2, FSN: 3, Payload: []byte("a")})
	b[10], b[11] = 0xff, 0xff
	if d, err := chunk.ParseIData(oneChunk(t, b)); err != nil || d.MID != 2 || d.FSN != 3 {
		t.Fatalf("reserved bits not ignored: %+v %v", d, err)
	}
}

// Malformed I-DATA: shorter than its 20-byte header, the codec refuses it
// (no user data and a stream outside the negotiated range are the
// receiver's checks, tested in package transfer). FragFromIData keeps the
// PPID of a first fragment and the FSN of the others.
func TestIDataMalformed(t *testing.T) {
	short := []byte{byte(chunk.TypeIData), 3, 0, 16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := chunk.ParseIData(oneChunk(t, short)); err == nil {
		t.Fatal("16-byte I-DATA parsed")
	}
	var p Pool
	f := FragFromIData(&p, &chunk.IData{Flags: chunk.FlagBeginning | chunk.FlagImmediate, TSN: 4, SID: 1, MID: 5, PPID: 6, Payload: []byte("x")})
	if f.PPID != 6 || f.FSN != 0 || f.Flags != chunk.FlagBeginning || f.MID != 5 || f.TSN != 4 {
		t.Fatalf("frag %+v", f)
	}
	f = FragFromIData(&p, &chunk.IData{Flags: chunk.FlagEnd, FSN: 3, Payload: []byte("x")})
	if f.PPID != 0 || f.FSN != 3 {
		t.Fatalf("frag %+v", f)
	}
}

// RFC 8260 section 2.3.1: the I-FORWARD-TSN's entries are 8 bytes each, so
// its length is 8 + 8k; a trailing partial entry (the Linux bug fixed in
// 2023 by "sctp: fix a potential overflow in sctp_ifwdtsn_skip") is
// refused, as are stream ids outside the negotiated range. "Reserved: 15
// bits ... It MUST be set to 0 by the sender and MUST be ignored by the
// receiver."
func TestIForwardTSNParse(t *testing.T) {
	var b iForward
	b.Abandon(1, false, 4)
	b.Abandon(1, true, 9)
	b.Abandon(1, false, 3) // older: keeps 4
	b.Abandon(0, false, 0xFFFFFFFF)
	b.Abandon(0, false, 1) // newer across the wrap
	pkt, n := b.Append(nil, 77, 1000)
	if n != 3 || len(pkt) != 8+24 {
		t.Fatalf("%d entries, %d bytes", n, len(pkt))
	}
	if pkt[0] != byte(chunk.TypeIForwardTSN) || binary.BigEndian.Uint16(pkt[8+2:]) != 0 || binary.BigEndian.Uint16(pkt[16+2:]) != 1 {
		t.Fatalf("wire % x", pkt)
	}
	cum, skips, err := ParseIForwardTSN(oneChunk(t, pkt), 2, nil)
	want := []MIDSkip{{SID: 1, MID: 4}, {SID: 1, Unordered: true, MID: 9}, {SID: 0, MID: 1}}
	if err != nil || cum != 77 || len(skips) != 3 || skips[0] != want[0] || skips[1] != want[1] || skips[2] != want[2] {
		t.Fatalf("parsed %d %+v %v", cum, skips, err)
	}
	if _, _, err := ParseIForwardTSN(oneChunk(t, pkt), 1, nil); !errors.Is(err, ErrInvalidStream) {
		t.Fatalf("stream 1 of 1: %v", err)
	}
	// Reserved bits set: ignored.
	pkt[8+2] = 0xfe
	if _, skips, err := ParseIForwardTSN(oneChunk(t, pkt), 2, nil); err != nil || skips[0].Unordered {
		t.Fatalf("reserved bits: %+v %v", skips, err)
	}
	// Lengths 8 + 8k only.
	for _, extra := range []int{1, 4, 7} {
		bad := append([]byte{byte(chunk.TypeIForwardTSN), 0, 0, byte(8 + extra), 0, 0, 0, 1}, make([]byte, extra)...)
		for len(bad)%4 != 0 {
			bad = append(bad, 0)
		}
		if _, _, err := ParseIForwardTSN(oneChunk(t, bad), 10, nil); !errors.Is(err, chunk.ErrBadLength) {
			t.Fatalf("length %d: %v", 8+extra, err)
		}
	}
	// Room limits the entries; nothing under 8 bytes.
	if _, n := b.Append(nil, 1, 8+8); n != 1 {
		t.Fatalf("%d entries in 16 bytes", n)
	}
	if p, n := b.Append(nil, 1, 7); n != 0 || len(p) != 0 {
		t.Fatal("appended into 7 bytes")
	}
	b.Reset()
	if b.Len() != 0 {
		t.Fatal("not reset")
	}
}

// More than Linux's ten entries fit one chunk.
func TestIForwardManyEntries(t *testing.T) {
	var b iForward
	for sid := range uint16(40) {
		b.Abandon(sid, sid%2 == 1, stream.MID(sid))
	}
	pkt, n := b.Append(nil, 5, 1200)
	if n != 40 {
		t.Fatalf("%d entries", n)
	}
	_, skips, err := ParseIForwardTSN(oneChunk(t, pkt), 40, nil)
	if err != nil || len(skips) != 40 || skips[39] != (MIDSkip{SID: 39, Unordered: true, MID: 39}) {
		t.Fatalf("%v %v", len(skips), err)
	}
}

// iForward collects abandoned messages and writes I-FORWARD-TSN chunks for
// them (RFC 8260 section 2.3), as a peer would: one entry per stream and
// kind holding the highest abandoned MID, as many entries as the room
// allows. The sender's own builder is in package transfer. Its zero value
// is ready to use.
type iForward struct {
	entries []MIDSkip
}

// Abandon records that message mid of stream sid (ordered, or unordered)
// was abandoned.
func (b *iForward) Abandon(sid uint16, unordered bool, mid stream.MID) {
	for i := range b.entries {
		e := &b.entries[i]
		if e.SID == sid && e.Unordered == unordered {
			if e.MID.LT(mid) {
				e.MID = mid
			}
			return
		}
	}
	b.entries = append(b.entries, MIDSkip{SID: sid, Unordered: unordered, MID: mid})
}

// Len returns the number of entries waiting.
func (b *iForward) Len() int { return len(b.entries) }

// Reset forgets all entries (once the peer's cumulative TSN passed the
// new cumulative TSN they were sent with).
func (b *iForward) Reset() { b.entries = b.entries[:0] }

// Append appends an I-FORWARD-TSN chunk with cumulative TSN newCum and as
// many entries as fit in room bytes, and returns the packet and the number
// of entries written (those stay recorded: the chunk is sent again until
// acknowledged). Nothing is appended when room is under 8 bytes.
func (b *iForward) Append(pkt []byte, newCum chunk.TSN, room int) ([]byte, int) {
	if room < 8 {
		return pkt, 0
	}
	n := min(len(b.entries), (room-8)/8, (chunk.MaxLen-8)/8)
	var tmp [16]chunk.StreamMID
	es := tmp[:0]
	if n > len(tmp) {
		es = make([]chunk.StreamMID, 0, n)
	}
	for _, e := range b.entries[:n] {
		es = append(es, chunk.StreamMID{SID: e.SID, Unordered: e.Unordered, MID: uint32(e.MID)})
	}
	pkt, _ = chunk.AppendIForwardTSN(pkt, newCum, es)
	return pkt, n
}
