package interleave

import (
	"bytes"
	"testing"
)

// fillBuf writes a pattern of seed into b's bytes.
func fillBuf(b *RecvBuf, seed byte) {
	for i, p := 0, b.Bytes(); i < len(p); i++ {
		p[i] = seed + byte(i*7)
	}
}

// A lent fragment references its buffer: it costs its record, the pool
// charges the buffer once whatever the number of its fragments, and the
// buffer goes back only when the reader and every fragment let go.
func TestLendReferencesBuffer(t *testing.T) {
	out := RecvBufsOut()
	b := NewRecvBuf()
	fillBuf(b, 1)
	var p Pool
	var frags []*Frag
	for off := 100; off+1400 <= RecvBufSize; off += 1500 {
		payload := b.Bytes()[off : off+1400]
		f := p.Lend(payload, b)
		if f == nil {
			continue // an offset that reads as a copy's capacity
		}
		if !bytes.Equal(f.Data, payload) || &f.Data[0] != &payload[0] {
			t.Fatalf("fragment at %d does not reference the payload", off)
		}
		if f.Cost() != FragOverhead {
			t.Fatalf("lent fragment costs %d, want its record %d", f.Cost(), FragOverhead)
		}
		frags = append(frags, f)
	}
	if len(frags) < 40 {
		t.Fatalf("%d fragments lent, want most of 43", len(frags))
	}
	if p.LentCost() != RecvBufCost || p.LentBufs() != 1 {
		t.Fatalf("pool charges %d for %d buffers, want %d for 1", p.LentCost(), p.LentBufs(), RecvBufCost)
	}
	if !b.Lent() {
		t.Fatal("buffer with lent fragments not Lent")
	}
	b.Release() // the reader takes another buffer
	if RecvBufsOut() != out+1 {
		t.Fatalf("%d buffers out, want %d: referenced buffer recycled", RecvBufsOut(), out+1)
	}
	for i, f := range frags {
		p.Put(f)
		if f.Data != nil {
			t.Fatal("Put fragment keeps its Data")
		}
		if last := i == len(frags)-1; (RecvBufsOut() == out) != last {
			t.Fatalf("after %d of %d fragments put: %d buffers out, want %d", i+1, len(frags), RecvBufsOut(), out+btoi(!last))
		}
	}
	if p.LentCost() != 0 || p.LentBufs() != 0 {
		t.Fatalf("pool still charges %d for %d buffers", p.LentCost(), p.LentBufs())
	}
	// The records are reused, for copies and for lending.
	if p.Free() != len(frags) {
		t.Fatalf("%d free records, want %d", p.Free(), len(frags))
	}
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Lend copies (returns nil) a small payload, one outside the buffer, one
// whose offset would give a copy's capacity, and any payload of a buffer
// that lends to another pool.
func TestLendCopies(t *testing.T) {
	b := NewRecvBuf()
	defer b.Release()
	var p, q Pool
	if f := p.Lend(b.Bytes()[100:100+LendMin-1], b); f != nil {
		t.Fatal("lent a payload under LendMin")
	}
	if f := p.Lend(make([]byte, 2000), b); f != nil {
		t.Fatal("lent a payload outside the buffer")
	}
	off := RecvBufSize - 4096 // capacity 4096: a class
	if f := p.Lend(b.Bytes()[off:off+1000], b); f != nil {
		t.Fatal("lent a fragment whose capacity reads as a copy's")
	}
	f := p.Lend(b.Bytes()[100:1600], b)
	if f == nil {
		t.Fatal("did not lend")
	}
	if g := q.Lend(b.Bytes()[2000:3500], b); g != nil {
		t.Fatal("a buffer lent to two pools")
	}
	p.Put(f)
	g := q.Lend(b.Bytes()[2000:3500], b)
	if g == nil {
		t.Fatal("buffer no pool holds not lent")
	}
	q.Put(g)
	if b.Lent() {
		t.Fatal("buffer still lent after its fragments were put")
	}
}

// A buffer is never recycled while a fragment references it: the bytes of
// a buffer read into after its recycling never show in a fragment lent
// before.
func TestLentBytesSurviveRecycling(t *testing.T) {
	var p Pool
	var held []*Frag
	var want [][]byte
	for round := range 64 {
		b := NewRecvBuf()
		fillBuf(b, byte(round))
		if f := p.Lend(b.Bytes()[1000:3000], b); f != nil {
			held = append(held, f)
			want = append(want, append([]byte(nil), f.Data...))
		}
		b.Release()
		// New buffers get other bytes; a recycled one must not be one a
		// held fragment references.
		for range 4 {
			c := NewRecvBuf()
			fillBuf(c, 0xAA)
			c.Release()
		}
		for i, f := range held {
			if !bytes.Equal(f.Data, want[i]) {
				t.Fatalf("round %d: fragment %d's bytes changed: its buffer was recycled", round, i)
			}
		}
		if round%3 == 2 { // read some
			p.Put(held[0])
			held, want = held[1:], want[1:]
		}
	}
	for _, f := range held {
		p.Put(f)
	}
	if p.LentBufs() != 0 {
		t.Fatalf("%d buffers still lent", p.LentBufs())
	}
}

// Lending and returning a fragment allocates nothing once buffers and
// records are recycled.
func TestLendAllocs(t *testing.T) {
	var p Pool
	b := NewRecvBuf()
	defer b.Release()
	payload := b.Bytes()[100:1500]
	p.Put(p.Lend(payload, b))
	if n := testing.AllocsPerRun(100, func() { p.Put(p.Lend(payload, b)) }); n != 0 {
		t.Fatalf("%v allocations per lent fragment", n)
	}
}

// lentCap tells every capacity a lent fragment can have (at least
// LendMin, under RecvBufSize) from every buffer class and from what Get
// gives a fragment over the largest class.
func TestLentCap(t *testing.T) {
	class := map[int]bool{}
	for _, c := range bufClasses {
		class[c] = true
		if lentCap(c) {
			t.Fatalf("class %d reads as lent", c)
		}
	}
	for c := LendMin; c <= RecvBufSize+1; c++ {
		// Powers of two that are no class (8192) are refused too: Lend
		// copies at those offsets.
		want := c < RecvBufSize && !class[c] && c&(c-1) != 0
		if lentCap(c) != want {
			t.Fatalf("lentCap(%d) = %v, want %v", c, lentCap(c), want)
		}
	}
}
