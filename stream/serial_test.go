package stream

import (
	"math/rand/v2"
	"testing"
)

// serial is what the three serial types share, for one generic test.
type serial[T any] interface {
	~uint16 | ~uint32
	LT(T) bool
	LEQ(T) bool
	GT(T) bool
	GEQ(T) bool
	Next() T
}

// checkSerial checks a against b for n-bit serial numbers with the
// definition of RFC 1982 section 3.2, written out literally.
func checkSerial[T serial[T]](t testing.TB, a, b T, bits uint) {
	t.Helper()
	half := uint64(1) << (bits - 1)
	ia, ib := uint64(a), uint64(b)
	// RFC 1982 3.2: s1 < s2 if (i1 < i2 and i2 - i1 < 2^(SERIAL_BITS - 1))
	// or (i1 > i2 and i1 - i2 > 2^(SERIAL_BITS - 1)).
	lt := (ia < ib && ib-ia < half) || (ia > ib && ia-ib > half)
	gt := (ia < ib && ib-ia > half) || (ia > ib && ia-ib < half)
	if a.LT(b) != lt || a.GT(b) != gt || a.LEQ(b) != (lt || a == b) || a.GEQ(b) != (gt || a == b) {
		t.Fatalf("%d vs %d (%d bits): LT %v GT %v LEQ %v GEQ %v, want LT %v GT %v",
			ia, ib, bits, a.LT(b), a.GT(b), a.LEQ(b), a.GEQ(b), lt, gt)
	}
}

func TestSerialWrap(t *testing.T) {
	if SSN(65535).Next() != 0 || SSN(65530).Add(10) != 4 {
		t.Error("SSN does not wrap")
	}
	if MID(1<<32-1).Next() != 0 || MID(1<<32-3).Add(5) != 2 || FSN(1<<32-1).Next() != 0 || FSN(7).Add(1<<32-1) != 6 {
		t.Error("MID/FSN do not wrap")
	}
	if !SSN(65535).LT(0) || !SSN(0).GT(65535) || !SSN(65000).LT(100) || SSN(100).LT(65000) {
		t.Error("SSN order across the wrap")
	}
	if !MID(1<<32-1).LT(0) || !FSN(0).GT(1<<32-1) || !MID(1<<32-100).LT(100) {
		t.Error("MID/FSN order across the wrap")
	}
	// Exactly half the space apart: undefined by RFC 1982; neither order.
	if SSN(0).LT(1<<15) || SSN(0).GT(1<<15) || MID(5).LT(5+1<<31) || FSN(5).GT(5+1<<31) {
		t.Error("half-distance pair ordered")
	}
	if MID(0x12345).SSN() != 0x2345 {
		t.Error("MID.SSN")
	}
}

func TestSerialAgainstRFC1982(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		a, d := r.Uint32(), r.Uint32()
		b := a + d
		if r.IntN(4) == 0 {
			b = a + d%8 - 4 // near
		}
		checkSerial(t, SSN(a), SSN(b), 16)
		checkSerial(t, MID(a), MID(b), 32)
		checkSerial(t, FSN(a), FSN(b), 32)
	}
	for _, a := range []uint32{0, 1, 1<<15 - 1, 1 << 15, 1<<16 - 1, 1<<31 - 1, 1 << 31, 1<<32 - 1} {
		for _, d := range []uint32{0, 1, 1<<15 - 1, 1 << 15, 1<<15 + 1, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1} {
			checkSerial(t, SSN(a), SSN(a+d), 16)
			checkSerial(t, MID(a), MID(a+d), 32)
			checkSerial(t, FSN(a), FSN(a+d), 32)
		}
	}
}
