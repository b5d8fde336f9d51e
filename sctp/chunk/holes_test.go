package chunk

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestHolesMatchFlat builds random packets of SACK, DATA and I-DATA chunks
// twice, with Append and with AppendHole over a buffer of stale bytes, and
// checks that filling the holes gives the same bytes and that the
// checksum computed over the pieces is the flat packet's.
func TestHolesMatchFlat(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	for i := range 2000 {
		flat := Header{SrcPort: 5000, DstPort: 5001, Tag: r.Uint32()}.Append(nil)
		stale := make([]byte, 0, 1<<17)
		stale = stale[:cap(stale)]
		for j := range stale {
			stale[j] = byte(r.Uint32())
		}
		gath := append(stale[:0], flat...)
		var holes []Hole
		if r.IntN(3) == 0 {
			s := Sack{CumTSN: TSN(r.Uint32()), ARwnd: r.Uint32()}
			flat, _ = s.Append(flat)
			gath, _ = s.Append(gath)
		}
		for range 1 + r.IntN(5) {
			payload := make([]byte, 1+r.IntN(1<<r.IntN(15)))
			for k := range payload {
				payload[k] = byte(r.Uint32())
			}
			var h Hole
			var err error
			if r.IntN(2) == 0 {
				d := Data{Flags: uint8(r.IntN(16)), TSN: TSN(r.Uint32()), SID: uint16(r.Uint32()), SSN: uint16(r.Uint32()), PPID: r.Uint32(), Payload: payload}
				flat, _ = d.Append(flat)
				gath, h, err = d.AppendHole(gath)
			} else {
				d := IData{Flags: uint8(r.IntN(16)), TSN: TSN(r.Uint32()), SID: uint16(r.Uint32()), MID: r.Uint32(), PPID: r.Uint32(), FSN: r.Uint32(), Payload: payload}
				flat, _ = d.Append(flat)
				gath, h, err = d.AppendHole(gath)
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.IntN(4) == 0 {
				copy(gath[h.At:], payload) // a small payload copied, as the sender does
			} else {
				holes = append(holes, h)
			}
		}
		if len(gath) != len(flat) {
			t.Fatalf("packet %d: %d bytes with holes, %d flat", i, len(gath), len(flat))
		}
		if got, want := ChecksumHoles(gath, holes), Checksum(flat); got != want {
			t.Fatalf("packet %d: checksum over pieces %#x, flat %#x", i, got, want)
		}
		SetChecksumHoles(gath, holes)
		SetChecksum(flat)
		FillHoles(gath, holes)
		if !bytes.Equal(gath, flat) {
			t.Fatalf("packet %d: filled packet differs from the flat one", i)
		}
		if _, err := VerifyChecksum(gath, false); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
	}
}

// TestFillChecksumHoles builds packets with holes of random sizes and
// makes them whole below a random keep: the holes filled give the flat
// packet's bytes, the holes returned are the others in order, and the
// checksum is the flat packet's. FillShortHoles leaves the same bytes.
func TestFillChecksumHoles(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 2))
	for i := range 2000 {
		flat := Header{SrcPort: 5000, DstPort: 5001, Tag: r.Uint32()}.Append(nil)
		gath := make([]byte, 0, 1<<17)
		for j := range gath[:cap(gath)] {
			gath[:cap(gath)][j] = byte(r.Uint32())
		}
		gath = append(gath, flat...)
		if r.IntN(3) == 0 {
			s := Sack{CumTSN: TSN(r.Uint32()), ARwnd: r.Uint32()}
			flat, _ = s.Append(flat)
			gath, _ = s.Append(gath)
		}
		var holes []Hole
		for range 1 + r.IntN(6) {
			payload := make([]byte, 1+r.IntN(1<<r.IntN(14)))
			for k := range payload {
				payload[k] = byte(r.Uint32())
			}
			d := Data{Flags: uint8(r.IntN(16)), TSN: TSN(r.Uint32()), PPID: r.Uint32(), Payload: payload}
			flat, _ = d.Append(flat)
			var h Hole
			gath, h, _ = d.AppendHole(gath)
			holes = append(holes, h)
		}
		keep := 1 + r.IntN(1<<r.IntN(15))
		var want []Hole
		for _, h := range holes {
			if len(h.Data) >= keep {
				want = append(want, h)
			}
		}
		other := append([]byte(nil), gath...)
		otherHoles := append([]Hole(nil), holes...)
		left := FillChecksumHoles(gath, holes, keep)
		if len(left) != len(want) {
			t.Fatalf("packet %d: %d holes left, want %d", i, len(left), len(want))
		}
		for j := range left {
			if left[j].At != want[j].At || len(left[j].Data) != len(want[j].Data) {
				t.Fatalf("packet %d: hole %d left is %d+%d, want %d+%d", i, j, left[j].At, len(left[j].Data), want[j].At, len(want[j].Data))
			}
		}
		SetChecksum(flat)
		if got, w := binary.LittleEndian.Uint32(gath[8:]), binary.LittleEndian.Uint32(flat[8:]); got != w {
			t.Fatalf("packet %d: checksum %#x, flat %#x", i, got, w)
		}
		FillHoles(gath, left)
		if !bytes.Equal(gath, flat) {
			t.Fatalf("packet %d: filled packet differs from the flat one", i)
		}
		otherLeft := FillShortHoles(other, otherHoles, keep)
		FillHoles(other, otherLeft)
		if len(otherLeft) != len(want) || !bytes.Equal(other[12:], flat[12:]) {
			t.Fatalf("packet %d: FillShortHoles: %d holes left, want %d, or the bytes differ", i, len(otherLeft), len(want))
		}
	}
}

// TestHolesNoAllocs checks that building a DATA chunk with a hole and
// checksumming around it allocate nothing.
func TestHolesNoAllocs(t *testing.T) {
	buf := make([]byte, 0, 4096)
	payload := make([]byte, 1400)
	holes := make([]Hole, 0, 4)
	n := testing.AllocsPerRun(100, func() {
		b := Header{}.Append(buf)
		d := Data{TSN: 1, Payload: payload}
		b, h, _ := d.AppendHole(b)
		hs := append(holes[:0], h)
		SetChecksumHoles(b, hs)
		FillChecksumHoles(b, hs, 2000)
	})
	if n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
