package crc32c

import (
	"bytes"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// implementation is one code path of Update and the function that selects
// it for the rest of a test.
type implementation struct {
	name string
	use  func()
}

// implementations returns the code paths this machine can run; the test's
// cleanup restores the one the CPU selected.
func implementations(t testing.TB) []implementation {
	saved := useVector
	t.Cleanup(func() { useVector = saved })
	impls := []implementation{{"fallback", func() { useVector = noVector }}}
	if saved >= vectorAVX2 {
		impls = append(impls, implementation{"avx2", func() { useVector = vectorAVX2 }})
	}
	if saved >= vectorAVX512 {
		impls = append(impls, implementation{"avx512", func() { useVector = vectorAVX512 }})
	}
	return impls
}

// want is the reference: hash/crc32 with the Castagnoli table.
func want(crc uint32, p []byte) uint32 { return crc32.Update(crc, castagnoli, p) }

func randomBytes(r *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

func TestKnownValues(t *testing.T) {
	inc, dec := make([]byte, 32), make([]byte, 32)
	for i := range inc {
		inc[i], dec[i] = byte(i), byte(31-i)
	}
	ones := make([]byte, 32)
	for i := range ones {
		ones[i] = 0xff
	}
	// The check value of the CRC catalogue and the examples of RFC 3720
	// section B.4, whose CRC bytes are the little-endian form of these.
	cases := []struct {
		name string
		p    []byte
		want uint32
	}{
		{"123456789", []byte("123456789"), 0xe3069283},
		{"32 zeros", make([]byte, 32), 0x8a9136aa},
		{"32 ones", ones, 0x62a8ab43},
		{"incrementing", inc, 0x46dd794e},
		{"decrementing", dec, 0x113fdb5c},
	}
	for _, impl := range implementations(t) {
		impl.use()
		for _, c := range cases {
			if got := Checksum(c.p); got != c.want {
				t.Errorf("%s: Checksum(%s) = %#08x, want %#08x", impl.name, c.name, got, c.want)
			}
		}
	}
}

// TestEveryLength compares every length from 0 to 4200 bytes with
// hash/crc32, from a zero and from a random starting CRC: every amount of
// padding the vector code adds, and one to sixteen blocks.
func TestEveryLength(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := randomBytes(r, 4200)
	for _, impl := range implementations(t) {
		impl.use()
		for n := 0; n <= len(buf); n++ {
			p := buf[:n]
			if got, w := Checksum(p), want(0, p); got != w {
				t.Fatalf("%s: Checksum of %d bytes = %#08x, want %#08x", impl.name, n, got, w)
			}
			crc := r.Uint32()
			if got, w := Update(crc, p), want(crc, p); got != w {
				t.Fatalf("%s: Update(%#08x, %d bytes) = %#08x, want %#08x", impl.name, crc, n, got, w)
			}
		}
	}
}

// TestRandomBuffers compares random contents and lengths, up to 70,000
// bytes, with hash/crc32.
func TestRandomBuffers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	for _, impl := range implementations(t) {
		impl.use()
		for range rounds {
			n := r.IntN(3000)
			if r.IntN(10) == 0 {
				n = r.IntN(70000)
			}
			p := randomBytes(r, n)
			crc := r.Uint32()
			if got, w := Update(crc, p), want(crc, p); got != w {
				t.Fatalf("%s: Update(%#08x, %d bytes) = %#08x, want %#08x", impl.name, crc, n, got, w)
			}
		}
	}
}

// TestAlignments starts the input at every offset 0-63 into a buffer, so
// that the loads and the padding in front meet every alignment.
func TestAlignments(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	buf := randomBytes(r, 64+9000)
	lengths := []int{1452, 1480, 4096, 9000}
	for n := range 300 {
		lengths = append(lengths, n)
	}
	for _, impl := range implementations(t) {
		impl.use()
		for off := range 64 {
			for _, n := range lengths {
				p := buf[off : off+n]
				if got, w := Checksum(p), want(0, p); got != w {
					t.Fatalf("%s: Checksum of %d bytes at offset %d = %#08x, want %#08x", impl.name, n, off, got, w)
				}
			}
		}
	}
}

// TestUpdateSplits feeds a buffer to Update in random pieces and checks
// the result equals one call over the whole buffer.
func TestUpdateSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, impl := range implementations(t) {
		impl.use()
		for range 500 {
			p := randomBytes(r, r.IntN(5000))
			w := want(0, p)
			var crc uint32
			for rest := p; len(rest) > 0; {
				n := min(len(rest), r.IntN(len(p)+1))
				crc = Update(crc, rest[:n])
				rest = rest[n:]
			}
			if crc != w {
				t.Fatalf("%s: %d bytes in pieces: %#08x, want %#08x", impl.name, len(p), crc, w)
			}
		}
	}
}

// wantPacket is the reference for ChecksumPacket: hash/crc32 over a copy of
// p with bytes 8 to 11 zeroed.
func wantPacket(p []byte) uint32 {
	q := append([]byte(nil), p...)
	clear(q[8:12])
	return want(0, q)
}

// TestChecksumPacket compares ChecksumPacket with hash/crc32 over the
// packet with its checksum field zeroed, for every length from the common
// header's to 4200 bytes and at every offset 0-63.
func TestChecksumPacket(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	buf := randomBytes(r, 64+4200)
	for _, impl := range implementations(t) {
		impl.use()
		for n := 12; n <= 4200; n++ {
			p := buf[:n]
			if got, w := ChecksumPacket(p), wantPacket(p); got != w {
				t.Fatalf("%s: ChecksumPacket of %d bytes = %#08x, want %#08x", impl.name, n, got, w)
			}
		}
		for off := range 64 {
			for _, n := range []int{12, 60, 76, 1452, 1480} {
				p := buf[off : off+n]
				if got, w := ChecksumPacket(p), wantPacket(p); got != w {
					t.Fatalf("%s: ChecksumPacket of %d bytes at offset %d = %#08x, want %#08x", impl.name, n, off, got, w)
				}
			}
		}
	}
}

func TestChecksumPacketShort(t *testing.T) {
	for _, impl := range implementations(t) {
		impl.use()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: ChecksumPacket of 11 bytes did not panic", impl.name)
				}
			}()
			ChecksumPacket(make([]byte, 11))
		}()
	}
}

func TestNoAllocs(t *testing.T) {
	p := make([]byte, 1452)
	for _, impl := range implementations(t) {
		impl.use()
		if n := testing.AllocsPerRun(100, func() { Checksum(p) }); n != 0 {
			t.Errorf("%s: Checksum allocates %v times", impl.name, n)
		}
		if n := testing.AllocsPerRun(100, func() { ChecksumPacket(p) }); n != 0 {
			t.Errorf("%s: ChecksumPacket allocates %v times", impl.name, n)
		}
		d := make([]byte, len(p))
		if n := testing.AllocsPerRun(100, func() { UpdateCopy(0, d, p) }); n != 0 {
			t.Errorf("%s: UpdateCopy allocates %v times", impl.name, n)
		}
	}
}

func FuzzCRC32c(f *testing.F) {
	f.Add([]byte("123456789"), uint32(0), uint(4))
	f.Add(make([]byte, 1452), uint32(0xffffffff), uint(1000))
	f.Add(make([]byte, 300), uint32(1), uint(0))
	f.Fuzz(func(t *testing.T, p []byte, crc uint32, split uint) {
		w := want(crc, p)
		split %= uint(len(p)) + 1
		for _, impl := range implementations(t) {
			impl.use()
			if got := Update(crc, p); got != w {
				t.Fatalf("%s: Update(%#08x, %d bytes) = %#08x, want %#08x", impl.name, crc, len(p), got, w)
			}
			if got := Update(Update(crc, p[:split]), p[split:]); got != w {
				t.Fatalf("%s: Update split at %d of %d bytes = %#08x, want %#08x", impl.name, split, len(p), got, w)
			}
			d := make([]byte, len(p))
			if got := UpdateCopy(crc, d, p); got != w || !bytes.Equal(d, p) {
				t.Fatalf("%s: UpdateCopy(%#08x, %d bytes) = %#08x, want %#08x", impl.name, crc, len(p), got, w)
			}
			if len(p) >= 12 {
				if got, w := ChecksumPacket(p), wantPacket(p); got != w {
					t.Fatalf("%s: ChecksumPacket of %d bytes = %#08x, want %#08x", impl.name, len(p), got, w)
				}
			}
		}
	})
}

// TestUpdateCopy compares UpdateCopy with copy and hash/crc32 for every
// length from 0 to 4200 bytes and for lengths around the 128-byte blocks
// at every source and destination offset 0-63: the CRC, the copy, and
// that nothing past len(src) in dst is written.
func TestUpdateCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	src := randomBytes(r, 64+4200)
	dst := make([]byte, 64+4200+64)
	check := func(name string, crc uint32, d, s []byte) {
		t.Helper()
		for i := range dst {
			dst[i] = 0xa5
		}
		got := UpdateCopy(crc, d, s)
		if w := want(crc, s); got != w {
			t.Fatalf("%s: UpdateCopy(%#08x, %d bytes) = %#08x, want %#08x", name, crc, len(s), got, w)
		}
		if !bytes.Equal(d[:len(s)], s) {
			t.Fatalf("%s: UpdateCopy of %d bytes copied them wrong", name, len(s))
		}
		for i, c := range d[len(s):] {
			if c != 0xa5 {
				t.Fatalf("%s: UpdateCopy of %d bytes wrote dst[%d]", name, len(s), len(s)+i)
			}
		}
	}
	for _, impl := range implementations(t) {
		impl.use()
		for n := 0; n <= 4200; n++ {
			check(impl.name, r.Uint32(), dst[:n+64], src[:n])
		}
		for so := range 64 {
			for do := range 64 {
				for _, n := range []int{0, 7, 255, 256, 257, 383, 1452, 1453} {
					check(impl.name, r.Uint32(), dst[do:do+n+64], src[so:so+n])
				}
			}
		}
	}
}

func TestUpdateCopyMisuse(t *testing.T) {
	buf := make([]byte, 600)
	for _, c := range []struct {
		name     string
		dst, src []byte
	}{
		{"short dst", buf[:10], buf[300:320]},
		{"same", buf[:300], buf[:300]},
		{"dst ahead", buf[100:400], buf[:300]},
		{"src ahead", buf[:300], buf[299:599]},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("UpdateCopy, %s: did not panic", c.name)
				}
			}()
			UpdateCopy(0, c.dst, c.src)
		}()
	}
	// Adjacent is not overlapping.
	if got, w := UpdateCopy(0, buf[300:600], buf[:300]), want(0, buf[:300]); got != w {
		t.Errorf("UpdateCopy of adjacent slices = %#08x, want %#08x", got, w)
	}
}
