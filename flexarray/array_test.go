package flexarray

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/usctp/usctp/internal/testsupport"
)

// pkgFuncs matches the package's own allocating code for
// testsupport.MeasureAllocs.
const pkgFuncs = "flexarray.New|flexarray.(*Array["

// rec24 is a 24-byte pointer-free record, the size of the kernel's
// struct sctp_stream_out.
type rec24 struct {
	a, b uint32
	c    uint64
	d    uint8
}

// withPtr is an element type the garbage collector must scan.
type withPtr[N any] struct {
	p *int
	b N
}

func TestNewAllocatesNothing(t *testing.T) {
	var a *Array[rec24]
	s := testsupport.MeasureAllocs(t, pkgFuncs, func() { a = New[rec24](65535) })
	// The Array header itself is the one allocation New makes.
	if s.Count != 1 || s.Largest > int(unsafe.Sizeof(*a))+16 {
		t.Errorf("New(65535) made %+v, want only the header", s)
	}
	if a.Len() != 65535 || a.Bytes() != 0 {
		t.Errorf("Len %d Bytes %d, want 65535 and 0", a.Len(), a.Bytes())
	}
	for i := range a.Len() {
		if a.Get(i) != nil {
			t.Fatalf("Get(%d) != nil before any Ensure", i)
		}
	}
}

func TestOutOfRange(t *testing.T) {
	a := New[rec24](10)
	for _, i := range []int{-1, 10, 11, 1 << 40, -1 << 62} {
		if a.Get(i) != nil || a.Ensure(i) != nil {
			t.Errorf("Get/Ensure(%d) on Len 10 returned non-nil", i)
		}
	}
	if a.Ensure(9) == nil || a.Get(9) == nil {
		t.Error("Ensure(9) or Get(9) nil on Len 10")
	}
	var z Array[rec24]
	if z.Get(0) != nil || z.Ensure(0) != nil || z.Len() != 0 || z.Bytes() != 0 {
		t.Error("zero Array is not an empty array")
	}
	for _, n := range []int{-1, MaxLen + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Resize(%d) did not panic", n)
				}
			}()
			a.Resize(n)
		}()
	}
}

// TestPageDivision checks the multiply-and-shift page computation against
// integer division for every page size, at page boundaries and at the top
// of the index range.
func TestPageDivision(t *testing.T) {
	for per := 1; per <= PageSize; per++ {
		a := &Array[byte]{per: per}
		// Recompute mul/shift the way setup does, for this per.
		l := uint(0)
		for 1<<l < per {
			l++
		}
		a.shift = uint8(31 + l)
		a.mul = (uint64(1)<<a.shift + uint64(per) - 1) / uint64(per)
		check := func(i int) {
			if got, want := a.pageOf(i), i/per; got != want {
				t.Fatalf("per %d: pageOf(%d) = %d, want %d", per, i, got, want)
			}
		}
		for k := 0; k < 64; k++ {
			check(k*per + per - 1)
			check(k * per)
			check(MaxLen - k)
			check(MaxLen - MaxLen%per - k)
		}
		for range 64 {
			check(rand.IntN(MaxLen + 1))
		}
	}
}

func TestEnsureZeroedAndStable(t *testing.T) {
	a := New[rec24](1000)
	p := a.Ensure(500)
	if *p != (rec24{}) {
		t.Fatal("Ensure returned a non-zero fresh element")
	}
	p.a = 7
	if a.Get(500) != p || a.Ensure(500) != p {
		t.Fatal("Get/Ensure return a different address for the same element")
	}
	// Neighbours on the same page exist now; other pages do not.
	per := a.PerPage()
	first := 500 / per * per
	if a.Get(first) == nil || a.Get(first+per-1) == nil {
		t.Error("page neighbours not materialised")
	}
	if first > 0 && a.Get(first-1) != nil {
		t.Error("previous page materialised")
	}
	// Growing far, deepening the directory, never moves the element.
	for _, n := range []int{5000, 100000, 1 << 22, MaxLen} {
		a.Resize(n)
		a.Ensure(n - 1).a = 1
		a.Ensure(n / 2).a = 1
		if a.Get(500) != p || p.a != 7 {
			t.Fatalf("element moved or changed after Resize(%d)", n)
		}
	}
}

func TestShrinkZeroesAndReleases(t *testing.T) {
	a := New[rec24](2000)
	for i := range a.Len() {
		a.Ensure(i).c = uint64(i) + 1
	}
	full := a.Bytes()
	per := a.PerPage()
	cut := 3*per + 5
	a.Resize(cut)
	if a.Bytes() >= full {
		t.Errorf("Bytes %d after shrink, not below %d", a.Bytes(), full)
	}
	if a.Get(cut) != nil {
		t.Error("Get past Len after shrink")
	}
	a.Resize(2000)
	for i := range a.Len() {
		e := a.Get(i)
		switch {
		case i < cut && (e == nil || e.c != uint64(i)+1):
			t.Fatalf("element %d lost by shrink", i)
		case i >= cut && i < 4*per && (e == nil || *e != rec24{}):
			t.Fatalf("element %d on the kept page is %v after shrink and grow, want zero", i, e)
		case i >= 4*per && e != nil:
			t.Fatalf("element %d on a released page still present", i)
		}
	}
	a.Resize(0)
	if a.Bytes() != 0 {
		t.Errorf("Bytes %d after Resize(0)", a.Bytes())
	}
}

func TestClear(t *testing.T) {
	a := New[rec24](100000)
	a.Ensure(99999).a = 1
	a.Ensure(0).a = 1
	a.Clear()
	if a.Bytes() != 0 || a.Get(0) != nil || a.Get(99999) != nil || a.Len() != 100000 {
		t.Fatal("Clear left pages behind or changed Len")
	}
	if *a.Ensure(99999) != (rec24{}) {
		t.Fatal("element not zero after Clear and Ensure")
	}
}

func TestAll(t *testing.T) {
	for _, n := range []int{0, 1, 170, 65535, 1 << 20} {
		a := New[rec24](n)
		want := []int{}
		for _, i := range []int{n - 1, 0, n / 2, n / 3, 171, 170, 169} {
			if i >= 0 && i < n && a.Get(i) == nil {
				a.Ensure(i)
			}
		}
		for i := range n {
			if a.Get(i) != nil {
				want = append(want, i)
			}
		}
		var got []int
		for i, e := range a.All() {
			if e != a.Get(i) {
				t.Fatalf("All yields %p for %d, Get %p", e, i, a.Get(i))
			}
			got = append(got, i)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("n=%d: All visited %d elements, want %d", n, len(got), len(want))
		}
		// Stopping early works.
		for range a.All() {
			break
		}
	}
}

// TestDeepDirectory uses one element per page so the directory needs more
// than one level, and checks growth, lookup and shrink across levels.
func TestDeepDirectory(t *testing.T) {
	type big [4096]byte
	a := New[big](3 * fan * fan / 2)
	idx := []int{0, fan - 1, fan, fan*fan - 1, fan * fan, a.Len() - 1}
	for _, i := range idx {
		a.Ensure(i)[0] = byte(i)
	}
	if a.depth != 3 {
		t.Fatalf("depth %d, want 3", a.depth)
	}
	for _, i := range idx {
		if e := a.Get(i); e == nil || e[0] != byte(i) {
			t.Fatalf("element %d lost", i)
		}
	}
	if a.Get(1) != nil || a.Get(fan*fan+1) != nil {
		t.Fatal("untouched pages present")
	}
	n := 0
	for i := range a.All() {
		if i != idx[n] {
			t.Fatalf("All visited %d, want %d", i, idx[n])
		}
		n++
	}
	a.Resize(fan + 1)
	if a.depth != 2 {
		t.Errorf("depth %d after shrink to %d, want 2", a.depth, fan+1)
	}
	a.Resize(fan)
	if a.depth != 1 {
		t.Errorf("depth %d after shrink to %d, want 1", a.depth, fan)
	}
	if e := a.Get(fan - 1); e == nil || e[0] != byte((fan-1)%256) {
		t.Error("element lost when the directory lost a level")
	}
	a.Resize(3 * fan * fan / 2)
	if a.Get(fan*fan) != nil || a.Get(a.Len()-1) != nil {
		t.Error("released pages came back")
	}
}

func TestZeroSize(t *testing.T) {
	a := New[struct{}](MaxLen)
	if a.Ensure(MaxLen-1) == nil || a.Get(MaxLen-1) == nil || a.Bytes() > 8 {
		t.Error("zero-size elements")
	}
}

// TestNewFor checks that NewFor's pages fit the length: one small page
// for a short array, a one-level directory (under fan pages) for any
// length up to 65535, and PageSize pages for 65535 elements of 16 bytes.
func TestNewFor(t *testing.T) {
	for _, n := range []int{0, 1, 10, 100, 1000, 65535} {
		a := NewFor[rec24](n)
		if a.Len() != n {
			t.Fatalf("NewFor(%d).Len() = %d", n, a.Len())
		}
		if n > 0 {
			a.Ensure(n - 1)
			a.Ensure(0)
		}
		if a.depth > 1 {
			t.Errorf("NewFor(%d): directory depth %d, want 1", n, a.depth)
		}
		if n <= 10 && a.Bytes() > 512 {
			t.Errorf("NewFor(%d) with two elements used holds %d bytes, want one small page", n, a.Bytes())
		}
	}
	if a := NewFor[[16]byte](65535); a.PerPage() != New[[16]byte](65535).PerPage() {
		t.Errorf("NewFor(65535) of 16-byte elements: %d per page, New: %d", a.PerPage(), New[[16]byte](65535).PerPage())
	}
	if a := NewFor[withPtr[[16]byte]](10); a.Ensure(9) == nil || a.Get(9) == nil {
		t.Error("NewFor with pointers: element 9 missing")
	}
}
