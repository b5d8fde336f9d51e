package indexheap

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// item is a test value: id names it, pos is where the heap says it sits
// (kept by the indexer in a table, as a scheduler keeps it per stream).
type item = uint16

// posTable is the Indexer of the tests: the position of each item + 1,
// 0 when out, as the users keep them.
type posTable struct{ pos []int32 }

func (t posTable) SetIndex(v item, i int) { t.pos[v] = int32(i + 1) }

// model is the brute-force oracle: the entries by item.
type model struct {
	in  map[item]Entry[uint32, item]
	pos []int32
	h   Heap[uint32, item, posTable]
}

func newModel(arity, items int) *model {
	m := &model{in: map[item]Entry[uint32, item]{}, pos: make([]int32, items)}
	m.h.Init(arity, posTable{m.pos})
	return m
}

// check compares the heap with the oracle: the same entries, each where
// the indexer says, in heap order, and the minimum before every other.
func (m *model) check(t testing.TB) {
	t.Helper()
	if m.h.Len() != len(m.in) {
		t.Fatalf("heap of %d, oracle of %d", m.h.Len(), len(m.in))
	}
	for v := range m.pos {
		e, in := m.in[item(v)]
		p := int(m.pos[v]) - 1
		if !in {
			if p != -1 {
				t.Fatalf("item %d out but at %d", v, p)
			}
			continue
		}
		if p < 0 || p >= m.h.Len() {
			t.Fatalf("item %d in but at %d of %d", v, p, m.h.Len())
		}
		if got := *m.h.At(p); got != e {
			t.Fatalf("item %d: entry %+v at its index, want %+v", v, got, e)
		}
	}
	d := 2
	if m.h.quad {
		d = 4
	}
	for i := 1; i < m.h.Len(); i++ {
		if m.h.At(i).Before(m.h.At((i - 1) / d)) {
			t.Fatalf("order broken at %d", i)
		}
	}
	if m.h.Len() > 0 {
		first := m.h.Min()
		for _, e := range m.in {
			if e.Before(first) {
				t.Fatalf("min %+v, but %+v comes before it", *first, e)
			}
		}
	}
}

// op applies one operation chosen by b and r to heap and oracle.
func (m *model) op(b byte, r uint32, base uint32) {
	v := item(r % uint32(len(m.pos)))
	e := Entry[uint32, item]{Key: base + r>>8%64, Tie: r >> 16 % 4, Val: v}
	p := int(m.pos[v]) - 1
	switch b % 8 {
	case 0, 1, 2:
		if p < 0 {
			m.h.Push(e)
			m.in[v] = e
		} else {
			m.h.Fix(p, e)
			m.in[v] = e
		}
	case 3:
		if p >= 0 {
			if got := m.h.Remove(p); got != m.in[v] {
				panic(fmt.Sprintf("removed %+v, want %+v", got, m.in[v]))
			}
			delete(m.in, v)
		}
	case 4:
		if m.h.Len() > 0 {
			min := m.h.Min().Val
			m.h.Remove(0)
			delete(m.in, min)
		}
	case 5:
		if r%16 == 0 {
			m.h.Clear()
			clear(m.in)
		} else if r%16 == 1 {
			m.h.Shrink()
		}
	case 6:
		if r%8 == 0 {
			odd := r & 1
			m.h.Filter(func(e *Entry[uint32, item]) bool { return uint32(e.Val)&1 == odd })
			for v := range m.in {
				if uint32(v)&1 != odd {
					delete(m.in, v)
				}
			}
		}
	case 7:
		if p >= 0 {
			// The same entry again: nothing moves out of order.
			m.h.Fix(p, m.in[v])
		}
	}
}

// TestHeapOracle runs random operations on binary and 4-ary heaps of
// various sizes, with keys that wrap around the serial space, against the
// brute-force oracle.
func TestHeapOracle(t *testing.T) {
	for _, arity := range []int{2, 4} {
		for _, items := range []int{1, 5, 300, 3000} {
			t.Run(fmt.Sprintf("arity=%d/items=%d", arity, items), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(arity), uint64(items)))
				m := newModel(arity, items)
				base := uint32(1<<32 - 20) // keys wrap
				for i := range 20000 {
					m.op(byte(rng.Uint32()), rng.Uint32(), base)
					if i%97 == 0 || items < 400 {
						m.check(t)
					}
					if i%1000 == 999 {
						base += 7
					}
				}
				m.check(t)
			})
		}
	}
}

// TestHeapSortsWithTies pops every entry in order: by key in serial
// order, then by tie, across pages of a large heap.
func TestHeapSortsWithTies(t *testing.T) {
	for _, arity := range []int{2, 4} {
		var h Heap[uint64, int, NoIndex[int]]
		h.Init(arity, NoIndex[int]{})
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 5000
		for i := range n {
			h.Push(Entry[uint64, int]{Key: 1<<64 - 1000 + uint64(rng.IntN(2000)), Tie: uint32(rng.IntN(3)), Val: i})
		}
		prev := h.Remove(0)
		for range n - 1 {
			e := h.Remove(0)
			if e.Before(&prev) {
				t.Fatalf("arity %d: %+v after %+v", arity, e, prev)
			}
			prev = e
		}
		if h.Len() != 0 {
			t.Fatalf("arity %d: %d left", arity, h.Len())
		}
	}
}

// TestBefore pins the order: serial keys (wrapping), then serial ties.
func TestBefore(t *testing.T) {
	type E = Entry[uint32, struct{}]
	for _, c := range []struct {
		a, b E
		want bool
	}{
		{E{Key: 1}, E{Key: 2}, true},
		{E{Key: 2}, E{Key: 1}, false},
		{E{Key: 1}, E{Key: 1}, false},
		{E{Key: 1<<32 - 1}, E{Key: 0}, true}, // wraps
		{E{Key: 0}, E{Key: 1<<31 - 1}, true},
		{E{Key: 0}, E{Key: 1 << 31}, true}, // as int32(a-b) < 0: antipodes precede each other
		{E{Key: 1 << 31}, E{Key: 0}, true},
		{E{Key: 1}, E{Key: 1<<31 + 2}, false},
		{E{Key: 5, Tie: 1}, E{Key: 5, Tie: 2}, true},
		{E{Key: 5, Tie: 1<<32 - 1}, E{Key: 5, Tie: 0}, true},
		{E{Key: 4, Tie: 9}, E{Key: 5, Tie: 0}, true},
	} {
		if got := c.a.Before(&c.b); got != c.want {
			t.Errorf("%+v before %+v = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestPages: storage grows from a few slots to a page, then by whole
// pages, never copying a page; Shrink gives back the pages not used.
func TestPages(t *testing.T) {
	m := newModel(4, 2000)
	var first *[pageLen]Entry[uint32, item]
	for v := range item(2000) {
		m.h.Push(Entry[uint32, item]{Key: uint32(v), Val: v})
		m.in[v] = Entry[uint32, item]{Key: uint32(v), Val: v}
		if v == 0 && m.h.Bytes() > 4*16 {
			t.Fatalf("%d bytes for one entry", m.h.Bytes())
		}
		if m.h.pages != nil {
			if m.h.small != nil {
				t.Fatal("small storage left beside the pages")
			}
			if first == nil {
				first = m.h.pages[0]
			} else if m.h.pages[0] != first {
				t.Fatal("the first page moved")
			}
		}
	}
	if want := (2000 + 3 + pageLen - 1) / pageLen; len(m.h.pages) != want {
		t.Fatalf("%d pages for 2000 entries, want %d", len(m.h.pages), want)
	}
	for v := range item(1990) {
		m.h.Remove(int(m.pos[v]) - 1)
		delete(m.in, v)
	}
	m.check(t)
	m.h.Shrink()
	if len(m.h.pages) != 1 {
		t.Fatalf("%d pages after shrinking to 10 entries", len(m.h.pages))
	}
	m.check(t)
	m.h.Clear()
	m.h.Shrink()
	if m.h.Bytes() != 0 {
		t.Fatalf("%d bytes when empty and shrunk", m.h.Bytes())
	}
	m.in = map[item]Entry[uint32, item]{}
	m.check(t)
	m.h.Push(Entry[uint32, item]{Key: 1, Val: 1})
	m.in[1] = Entry[uint32, item]{Key: 1, Val: 1}
	m.check(t)
	if m.h.pages != nil || len(m.h.small) != 4 {
		t.Fatalf("after shrinking to nothing, one entry takes %d pages and %d slots", len(m.h.pages), len(m.h.small))
	}
}

// TestZeroHeap: the zero Heap is a binary heap with the zero Indexer.
func TestZeroHeap(t *testing.T) {
	var h Heap[uint32, string, NoIndex[string]]
	h.Push(Entry[uint32, string]{Key: 2, Val: "b"})
	h.Push(Entry[uint32, string]{Key: 1, Val: "a"})
	if h.Len() != 2 || h.Min().Val != "a" || h.quad {
		t.Fatalf("zero heap: len %d, min %q, 4-ary %v", h.Len(), h.Min().Val, h.quad)
	}
}

// TestNoAllocs: once its pages exist, pushing, fixing and removing
// allocate nothing.
func TestNoAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	for _, arity := range []int{2, 4} {
		m := newModel(arity, 1000)
		for v := range item(1000) {
			m.h.Push(Entry[uint32, item]{Key: uint32(v) * 7 % 1000, Val: v})
		}
		k := uint32(0)
		n := testing.AllocsPerRun(1000, func() {
			e := *m.h.Min()
			k += 3
			e.Key += k % 2000
			m.h.Fix(0, e)
			v := m.h.At(500).Val
			e = m.h.Remove(500)
			m.h.Push(e)
			_ = v
		})
		if n != 0 {
			t.Errorf("arity %d: %v allocations per run", arity, n)
		}
	}
}

// FuzzHeap drives a heap with operations from the input (two bytes each:
// the operation, then the item and key) and checks it against the oracle
// after every one.
func FuzzHeap(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 4, 0, 3, 2, 1, 7})
	f.Add([]byte{2, 0, 2, 9, 2, 18, 2, 27, 2, 36, 2, 45, 6, 0, 4, 0, 5, 16})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 1 {
			return
		}
		arity := 2 + 2*int(b[0]&1)
		m := newModel(arity, 40)
		base := uint32(1<<32 - 30)
		for i := 1; i+1 < len(b); i += 2 {
			r := uint32(b[i+1]) * 0x01010101
			r = r ^ uint32(i)<<8
			m.op(b[i], r, base)
			m.check(t)
			base += uint32(b[i] >> 6)
		}
	})
}

// BenchmarkFixMin measures replacing the minimum with a later key (a
// scheduler's chunk, a timer that fires and rearms) in heaps of 1000 and
// 65535 entries, with the index kept in a table.
func BenchmarkFixMin(b *testing.B) {
	for _, arity := range []int{2, 4} {
		for _, n := range []int{1000, 65535} {
			b.Run(fmt.Sprintf("arity=%d/n=%d", arity, n), func(b *testing.B) {
				m := newModel(arity, n)
				for v := range n {
					m.h.Push(Entry[uint32, item]{Key: uint32(v), Tie: uint32(v), Val: item(v)})
				}
				tie := uint32(n)
				b.ReportAllocs()
				for b.Loop() {
					e := *m.h.Min()
					e.Key += 1000 + uint32(e.Val%4)*300
					tie++
					e.Tie = tie
					m.h.Fix(0, e)
				}
			})
		}
	}
}

// BenchmarkPushRemove measures pushing an entry and removing one from the
// middle of a heap of 1000.
func BenchmarkPushRemove(b *testing.B) {
	for _, arity := range []int{2, 4} {
		b.Run(fmt.Sprintf("arity=%d", arity), func(b *testing.B) {
			m := newModel(arity, 1001)
			for v := range 1000 {
				m.h.Push(Entry[uint32, item]{Key: uint32(v * 7919 % 1000), Val: item(v)})
			}
			k := uint32(0)
			b.ReportAllocs()
			for b.Loop() {
				k += 7919
				v := m.h.At(int(k % 1000)).Val
				e := m.h.Remove(int(m.pos[v]) - 1)
				e.Key = k % 1000
				m.h.Push(e)
			}
		})
	}
}
