package chunk

import (
	"bytes"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestTSNSerial(t *testing.T) {
	cases := []struct {
		a, b TSN
		lt   bool
	}{
		{1, 2, true}, {2, 1, false}, {0xffffffff, 0, true}, {0, 0xffffffff, false},
		{0x7fffffff, 0x80000000, true}, {5, 5, false},
	}
	for _, c := range cases {
		if got := c.a.LT(c.b); got != c.lt {
			t.Errorf("%d.LT(%d) = %v", c.a, c.b, got)
		}
		if got := c.a.GT(c.b); got != (!c.lt && c.a != c.b) {
			t.Errorf("%d.GT(%d) = %v", c.a, c.b, got)
		}
		if c.a.LEQ(c.b) != (c.lt || c.a == c.b) || c.a.GEQ(c.b) != !c.lt {
			t.Errorf("LEQ/GEQ(%d,%d) wrong", c.a, c.b)
		}
	}
	if TSN(0xffffffff).Next() != 0 || TSN(0xfffffffe).Add(3) != 1 {
		t.Error("wrap")
	}
}

// TestCRC32cVector checks the CRC against the iSCSI test vector of RFC 3720
// section B.4 (32 zero bytes: aa 36 91 8a on the wire), which RFC 9260
// appendix B shares.
func TestCRC32cVector(t *testing.T) {
	if got := crc32.Checksum(make([]byte, 32), crc32.MakeTable(crc32.Castagnoli)); got != 0x8a9136aa {
		t.Fatalf("crc32c = %#x", got)
	}
	pkt := Header{SrcPort: 1, DstPort: 2, Tag: 3}.Append(nil)
	pkt = AppendEmpty(pkt, TypeCookieAck, 0)
	SetChecksum(pkt)
	if _, err := VerifyChecksum(pkt, false); err != nil {
		t.Fatal(err)
	}
	pkt[13] ^= 1
	if _, err := VerifyChecksum(pkt, false); !errors.Is(err, ErrBadChecksum) {
		t.Fatalf("corrupt: %v", err)
	}
	SetZeroChecksum(pkt)
	if _, err := VerifyChecksum(pkt, false); !errors.Is(err, ErrBadChecksum) {
		t.Fatalf("zero without acceptZero: %v", err)
	}
	if r, err := VerifyChecksum(pkt, true); err != nil || r != ChecksumZero {
		t.Fatalf("zero with acceptZero: %v %v", r, err)
	}
}

// TestChecksumMatchesHashCRC32 checks Checksum against hash/crc32's
// Castagnoli CRC of the packet with its checksum field zeroed, for packets
// of every length up to past a jumbo frame's, so the wire stays what
// hash/crc32 gave.
func TestChecksumMatchesHashCRC32(t *testing.T) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 9100)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	zeroed := make([]byte, len(buf))
	for n := HeaderLen; n <= len(buf); n++ {
		pkt := buf[:n]
		copy(zeroed, pkt)
		clear(zeroed[8:12])
		if got, want := Checksum(pkt), crc32.Checksum(zeroed[:n], tab); got != want {
			t.Fatalf("Checksum of %d bytes = %#08x, hash/crc32 %#08x", n, got, want)
		}
	}
}

func TestWalkerBasics(t *testing.T) {
	var b []byte
	b, _ = (&Data{Flags: FlagBeginning | FlagEnd, TSN: 7, SID: 1, SSN: 2, PPID: 3, Payload: []byte("hello")}).Append(b)
	b = append(b, 0x7f, 0, 0, 5, 9, 0, 0, 0) // unknown chunk 0x7f, length 5, padded
	b, _ = AppendSack(b, 100, 5000, []GapBlock{{2, 3}}, []TSN{99})
	it := Chunks(b)
	var types []Type
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		types = append(types, c.Type)
	}
	if it.Err() != nil || len(types) != 3 || types[1].Known() || types[1].Action() != ActionStopReport {
		t.Fatalf("types %v err %v", types, it.Err())
	}
	if !bytes.Equal(b[len(b)-4:], []byte{0, 0, 0, 99}) {
		t.Fatal("dup")
	}
}
