package assoc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// TestInitAckLengthLeavesOutLastPadding: an INIT ACK whose last parameter (the State
// Cookie, or an Unrecognized Parameter after it) has padding does not count that
// padding in its chunk length (RFC 9260 section 3.2), as the Linux kernel
// does: tshark flags the other form as malformed.
func TestInitAckLengthLeavesOutLastPadding(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	unrec, _ := chunk.AppendParam(nil, chunk.ParamUnrecognizedParameter, []byte{0x80, 0x77, 0, 5, 1})
	for _, tc := range []struct {
		u          []byte
		interleave bool
	}{{nil, false}, {unrec, false}, {nil, true}, {unrec, true}} {
		u := tc.u
		offer := extForwardTSN
		if tc.interleave {
			offer |= extIData
		}
		b := appendInitAck(nil, &c, 1<<20, j, u, offer, nil, nil, nil)
		if len(b)%4 != 0 {
			t.Fatalf("INIT ACK of %d bytes: not padded", len(b))
		}
		n := int(binary.BigEndian.Uint16(b[2:]))
		// Walk the parameters after the 20-byte fixed part: the chunk must end
		// exactly where the last one's declared length ends.
		off, end := 20, 0
		for off+4 <= len(b) {
			l := int(binary.BigEndian.Uint16(b[off+2:]))
			end = off + l
			off += (l + 3) &^ 3
		}
		if n != end {
			t.Errorf("unrecognized=%d bytes: chunk length %d, want %d (the last parameter's end, without its padding)", len(u), n, end)
		}
		if _, err := chunk.ParsePacket(append(make([]byte, 12), b...)); err != nil {
			t.Errorf("unrecognized=%d bytes: %v", len(u), err)
		}
	}
}

// TestInitLengthLeavesOutLastPadding: our INIT offering I-DATA ends with the
// 6-byte Supported Extensions parameter, whose padding the chunk length must
// not count (RFC 9260 section 3.2).
func TestInitLengthLeavesOutLastPadding(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		ep := NewEndpoint(Config{Extensions: api.Extensions{Interleaving: interleave}, Rand: newTestRand(2)}, t0)
		a := ep.newAssoc(assocKey{})
		b := a.appendInit(nil)
		if len(b)%4 != 0 {
			t.Fatalf("INIT of %d bytes: not padded", len(b))
		}
		n := int(binary.BigEndian.Uint16(b[2:]))
		off, end := 20, 20
		for off+4 <= len(b) {
			l := int(binary.BigEndian.Uint16(b[off+2:]))
			end = off + l
			off += (l + 3) &^ 3
		}
		if n != end {
			t.Errorf("interleave=%v: chunk length %d, want %d", interleave, n, end)
		}
	}
}

// TestParsePacketTypeHint: inPacket.find answers from the chunks whatever
// the type hint parsePacket records: a type it holds is found, an absent
// type whose hint bit another type shares (0x86 and ABORT) is not.
func TestParsePacketTypeHint(t *testing.T) {
	build := func(types ...chunk.Type) []byte {
		b := appendHeader(nil, 1, 2, 7)
		for _, ty := range types {
			b, _ = chunk.Chunk{Type: ty, Value: []byte{1, 2, 3, 4}}.Append(b)
		}
		return finishPacket(b, 0)
	}
	for _, tc := range []struct {
		types []chunk.Type
		find  chunk.Type
		want  int // index of the chunk found, -1: none
	}{
		{[]chunk.Type{chunk.TypeSack, chunk.TypeAbort}, chunk.TypeAbort, 1},
		{[]chunk.Type{chunk.TypeSack, chunk.TypeAbort}, chunk.TypeShutdownComplete, -1},
		{[]chunk.Type{0x86}, chunk.TypeAbort, -1},
		{[]chunk.Type{0x86, chunk.TypeAbort}, chunk.TypeAbort, 1},
		{[]chunk.Type{chunk.TypeHeartbeat}, chunk.TypeHeartbeat, 0},
	} {
		var p inPacket
		if r := parsePacket(build(tc.types...), &p, false); r != parseOK {
			t.Fatalf("%v: parse %v", tc.types, r)
		}
		got := -1
		if c := p.find(tc.find); c != nil {
			got = int(c.off / 8)
		}
		if got != tc.want {
			t.Errorf("%v: find(%v) = chunk %d, want %d", tc.types, tc.find, got, tc.want)
		}
	}
}
