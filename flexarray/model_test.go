package flexarray

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// model is the obvious implementation Array is checked against: plain
// slices, as long as the largest length used, plus the length.
type model struct {
	n       int
	vals    []uint32
	present []bool // the element's page is materialised
}

// opsChecker applies operations to an Array and to the model and compares.
type opsChecker[T any] struct {
	t    testing.TB
	a    *Array[T]
	m    model
	get  func(*T) uint32
	set  func(*T, uint32)
	ptrs map[int]*T // addresses handed out, which must not move
}

func newOpsChecker[T any](t testing.TB, maxLen int, get func(*T) uint32, set func(*T, uint32)) *opsChecker[T] {
	c := &opsChecker[T]{t: t, a: New[T](0), get: get, set: set, ptrs: map[int]*T{}}
	size := maxLen + c.a.PerPage()
	c.m.vals, c.m.present = make([]uint32, size), make([]bool, size)
	return c
}

func (c *opsChecker[T]) resize(n int) {
	c.a.Resize(n)
	if n < c.m.n {
		// Pages wholly past the end go away; the rest of the last page
		// reads as zero.
		per := c.a.PerPage()
		kept := (n + per - 1) / per * per
		for i := n; i < len(c.m.vals); i++ {
			c.m.vals[i] = 0
			if i >= kept {
				c.m.present[i] = false
				delete(c.ptrs, i)
			}
		}
	}
	c.m.n = n
}

func (c *opsChecker[T]) ensure(i int, v uint32) {
	e := c.a.Ensure(i)
	if i < 0 || i >= c.m.n {
		if e != nil {
			c.t.Fatalf("Ensure(%d) with Len %d = non-nil", i, c.m.n)
		}
		return
	}
	if e == nil {
		c.t.Fatalf("Ensure(%d) = nil with Len %d", i, c.m.n)
	}
	if old, ok := c.ptrs[i]; ok && old != e {
		c.t.Fatalf("element %d moved", i)
	}
	c.ptrs[i] = e
	per := c.a.PerPage()
	first := i / per * per
	for k := first; k < min(first+per, len(c.m.present)); k++ {
		c.m.present[k] = true
	}
	if got := c.get(e); got != c.m.vals[i] {
		c.t.Fatalf("Ensure(%d) reads %d, model %d", i, got, c.m.vals[i])
	}
	c.set(e, v)
	c.m.vals[i] = v
}

func (c *opsChecker[T]) check(i int) {
	e := c.a.Get(i)
	if i < 0 || i >= c.m.n || !c.m.present[i] {
		if e != nil {
			c.t.Fatalf("Get(%d) = non-nil, model says absent (Len %d)", i, c.m.n)
		}
		return
	}
	if e == nil {
		c.t.Fatalf("Get(%d) = nil, model says present", i)
	}
	if got := c.get(e); got != c.m.vals[i] {
		c.t.Fatalf("Get(%d) reads %d, model %d", i, got, c.m.vals[i])
	}
}

func (c *opsChecker[T]) checkAll() {
	if c.a.Len() != c.m.n {
		c.t.Fatalf("Len %d, model %d", c.a.Len(), c.m.n)
	}
	next := 0
	for i, e := range c.a.All() {
		for ; next < i; next++ {
			if c.m.present[next] {
				c.t.Fatalf("All skipped present element %d", next)
			}
		}
		if !c.m.present[i] || c.get(e) != c.m.vals[i] {
			c.t.Fatalf("All yielded element %d (per %d, Len %d): present %v, value %d, model %d", i, c.a.PerPage(), c.m.n, c.m.present[i], c.get(e), c.m.vals[i])
		}
		next = i + 1
	}
	for ; next < c.m.n; next++ {
		if c.m.present[next] {
			c.t.Fatalf("All skipped present element %d", next)
		}
	}
}

// run interprets data as a sequence of operations.
func (c *opsChecker[T]) run(data []byte, maxLen int) {
	for len(data) >= 5 {
		op, arg := data[0], int(binary.LittleEndian.Uint32(data[1:5]))
		data = data[5:]
		n := c.m.n
		switch op % 8 {
		case 0:
			c.resize(arg % (maxLen + 1))
		case 1, 2, 3:
			c.ensure(arg%(n+2)-1, uint32(arg)%255+1)
		case 4, 5, 6:
			c.check(arg%(n+2) - 1)
		case 7:
			if n > 0 {
				c.check(n - 1)
			}
			c.checkAll()
		}
	}
	c.checkAll()
}

func getU32(p *uint32) uint32    { return *p }
func setU32(p *uint32, v uint32) { *p = v }

func getBig(p *[1500]byte) uint32    { return uint32(p[0]) | uint32(p[1499])<<8 }
func setBig(p *[1500]byte, v uint32) { p[0], p[1499] = byte(v), byte(v>>8) }

func getHuge(p *[4096]byte) uint32    { return uint32(p[7]) }
func setHuge(p *[4096]byte, v uint32) { p[7] = byte(v) }

// TestAgainstModel is the property test: random Resize/Ensure/Get/All
// sequences agree with a plain slice, for small, medium and page-sized
// elements (the last one with a multi-level directory).
func TestAgainstModel(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 99))
		data := make([]byte, 5*1000)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		newOpsChecker(t, 20000, getU32, setU32).run(data, 20000)
		newOpsChecker(t, 3000, getBig, setBig).run(data, 3000)
		newOpsChecker(t, 3*fan, getHuge, setHuge).run(data, 3*fan)
	}
}

// FuzzArrayOps drives the model check with fuzzer-chosen operations.
func FuzzArrayOps(f *testing.F) {
	f.Add([]byte{0, 100, 0, 0, 0, 1, 50, 0, 0, 0, 4, 51, 0, 0, 0, 0, 10, 0, 0, 0, 7, 0, 0, 0, 0})
	f.Add([]byte{0, 255, 255, 0, 0, 1, 255, 240, 0, 0, 0, 3, 0, 0, 0, 0, 255, 255, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		newOpsChecker(t, 1<<17, getU32, setU32).run(data, 1<<17)
		newOpsChecker(t, 2*fan+3, getHuge, setHuge).run(data, 2*fan+3)
	})
}
