package flexarray

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"unsafe"

	"github.com/usctp/usctp/internal/testsupport"
)

// geometryCase checks one element type: see checkGeometry.
type geometryCase struct {
	name string
	run  func(t testing.TB, n, step int)
}

// geometryCases covers element sizes from 1 to 4096 bytes, pointer-free and
// with pointers, including sizes at page and size-class edges.
var geometryCases = []geometryCase{
	{"1B", checkGeometry[[1]byte]},
	{"3B", checkGeometry[[3]byte]},
	{"8B", checkGeometry[uint64]},
	{"16B", checkGeometry[[16]byte]},
	{"20B", checkGeometry[[20]byte]},
	{"24B", checkGeometry[rec24]},
	{"33B", checkGeometry[[33]byte]},
	{"100B", checkGeometry[[100]byte]},
	{"257B", checkGeometry[[257]byte]},
	{"1000B", checkGeometry[[1000]byte]},
	{"1365B", checkGeometry[[1365]byte]},
	{"1366B", checkGeometry[[1366]byte]},
	{"2047B", checkGeometry[[2047]byte]},
	{"2049B", checkGeometry[[2049]byte]},
	{"3000B", checkGeometry[[3000]byte]},
	{"4095B", checkGeometry[[4095]byte]},
	{"4096B", checkGeometry[[4096]byte]},
	{"ptr8B", checkGeometry[*int]},
	{"ptr24B", checkGeometry[withPtr[[16]byte]]},
	{"ptr40B", checkGeometry[withPtr[[32]byte]]},
	{"ptr512B", checkGeometry[withPtr[[504]byte]]},
	{"ptr520B", checkGeometry[withPtr[[512]byte]]},
	{"ptr2048B", checkGeometry[withPtr[[2040]byte]]},
	{"ptr4088B", checkGeometry[withPtr[[4080]byte]]},
}

// checkGeometry fills every step-th element of an n-element Array[T] and
// checks, against the runtime's memory profile, that no allocation exceeds
// PageSize, that Bytes equals what was really allocated, that elements do not
// straddle pages and that each page wastes less than one element.
func checkGeometry[T any](t testing.TB, n, step int) {
	var a *Array[T]
	var s testsupport.AllocStats
	// The runtime's profile of live objects is published a GC cycle late,
	// and on a loaded machine (or under -race) an object freed around the
	// measurement can still be counted: a mismatch is measured again, up
	// to three times, before it counts.
	for attempt := 1; ; attempt++ {
		a = nil
		s = testsupport.MeasureAllocs(t, pkgFuncs, func() {
			a = New[T](n)
			for i := 0; i < n; i += step {
				a.Ensure(i)
			}
			a.Ensure(n - 1)
		})
		header := int(unsafe.Sizeof(*a))
		got := a.Bytes() + slotSize(header, true)
		if got == s.Live {
			break
		}
		if attempt == 3 {
			t.Errorf("Bytes()+header = %d, measured %d live bytes (%d allocated in %d allocations)", got, s.Live, s.Total, s.Count)
			break
		}
		t.Logf("attempt %d: Bytes()+header = %d, measured %d live bytes: measuring again", attempt, got, s.Live)
	}
	if s.Largest > PageSize {
		t.Errorf("largest allocation %d bytes > %d", s.Largest, PageSize)
	}
	runtime.KeepAlive(a)
	esize := int(unsafe.Sizeof(*new(T)))
	per := a.PerPage()
	slot := slotSize(per*esize, a.ptrs)
	if waste := slot - headerSize(per*esize, a.ptrs) - per*esize; waste >= esize {
		t.Errorf("page of %d x %d bytes in a %d-byte slot wastes %d, not under one element", per, esize, slot, waste)
	}
	// No straddling: every element of a page lies inside that page's
	// per*esize bytes, at its own offset.
	for i, e := range a.All() {
		k := i % per
		base := a.Get(i - k)
		off := uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(base))
		if off != uintptr(k*esize) || int(off)+esize > per*esize {
			t.Fatalf("element %d at offset %d of its page (per %d, size %d)", i, off, per, esize)
		}
	}
}

// TestLargestAllocation checks the package's contract: no single allocation
// larger than 4096 bytes for element sizes up to 4096 and lengths up to
// 65536 and beyond (multi-level directory), measured with the memory
// profile.
func TestLargestAllocation(t *testing.T) {
	for _, c := range geometryCases {
		for _, n := range []int{1, 65536, 1 << 21} {
			step := 1
			// Keep memory bounded: fill densely up to ~16 MiB, sparsely above.
			if n*4096 > 16<<20 {
				step = 4093
			}
			if testing.Short() && n > 65536 {
				continue
			}
			t.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(t *testing.T) { c.run(t, n, step) })
		}
	}
}

// TestBytesNearDense checks that 65535 elements of 24 bytes, all
// materialised, hold within 2% of the bytes of a dense array.
func TestBytesNearDense(t *testing.T) {
	const n, size = 65535, 24
	var a *Array[rec24]
	s := testsupport.MeasureAllocs(t, pkgFuncs, func() {
		a = New[rec24](n)
		for i := range n {
			a.Ensure(i)
		}
	})
	dense := n * size
	b := a.Bytes()
	over := float64(b-dense) / float64(dense) * 100
	t.Logf("65535 x 24 B: Bytes %d, dense %d (+%.2f%%), measured %d bytes in %d allocations, largest %d",
		b, dense, over, s.Total, s.Count, s.Largest)
	if over > 2 || over < 0 {
		t.Errorf("Bytes %d is %.2f%% over the dense %d, want within 2%%", b, over, dense)
	}
}

func TestNoAllocs(t *testing.T) {
	a := New[rec24](65535)
	a.Ensure(1000)
	deep := New[[4096]byte](fan*fan + 10)
	deep.Ensure(fan*fan + 5)
	for name, f := range map[string]func(){
		"Get":        func() { _ = a.Get(1001) },
		"GetAbsent":  func() { _ = a.Get(60000) },
		"GetOutside": func() { _ = a.Get(70000) },
		"Ensure":     func() { _ = a.Ensure(1001) },
		"GetDeep":    func() { _ = deep.Get(fan*fan + 5) },
		"EnsureDeep": func() { _ = deep.Ensure(fan*fan + 5) },
		"Len":        func() { _ = a.Len() },
		"ResizeGrow": func() { a.Resize(a.Len() + 1) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

// scannableHeap returns the bytes the garbage collector scanned in the heap
// in a fresh full cycle.
func scannableHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	runtime.GC()
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestPagesNoScan checks the garbage collector choice of the package doc:
// pages of a pointer-free element type are not scanned (they add nothing to
// the heap the collector scans), while pages of an element type with
// pointers are scanned and keep their referents alive.
func TestPagesNoScan(t *testing.T) {
	const n = 1 << 18 // 6 MiB of 24-byte elements
	fill := func(ensure func(int)) {
		for i := range n {
			ensure(i)
		}
	}
	base := scannableHeap()
	free := New[rec24](n)
	fill(func(i int) { free.Ensure(i) })
	afterFree := scannableHeap()
	runtime.KeepAlive(free)
	free = nil
	base2 := scannableHeap()
	ptr := New[withPtr[[16]byte]](n)
	fill(func(i int) { ptr.Ensure(i) })
	afterPtr := scannableHeap()
	runtime.KeepAlive(ptr)

	freeScan := int64(afterFree) - int64(base)
	ptrScan := int64(afterPtr) - int64(base2)
	t.Logf("scanned heap grew by %d bytes for %d pointer-free elements, %d for elements with a pointer", freeScan, n, ptrScan)
	// The pointer-free array's scannable part is its directory: 8 bytes
	// per 4 KiB page. Allow generous noise from the test runtime.
	if freeScan > n*24/16 {
		t.Errorf("pointer-free pages scanned: scannable heap grew %d bytes for %d bytes of elements", freeScan, n*24)
	}
	if ptrScan < n*24/2 {
		t.Errorf("pages with pointers not scanned? scannable heap grew only %d bytes", ptrScan)
	}
}

// TestPagesKeepReferentsAlive checks that pages of a type with pointers are
// typed allocations: an object referenced only from an element survives
// garbage collection, and is collected once its page is released.
func TestPagesKeepReferentsAlive(t *testing.T) {
	a := New[withPtr[[16]byte]](100000)
	collected := make(chan struct{})
	func() {
		x := new(int)
		*x = 42
		runtime.AddCleanup(x, func(ch chan struct{}) { close(ch) }, collected)
		a.Ensure(99999).p = x
	}()
	for range 5 {
		runtime.GC()
	}
	select {
	case <-collected:
		t.Fatal("object referenced from a page was collected")
	default:
	}
	if *a.Get(99999).p != 42 {
		t.Fatal("referent changed")
	}
	a.Resize(10)
	for i := 0; ; i++ {
		runtime.GC()
		select {
		case <-collected:
			return
		default:
		}
		if i == 1000 {
			t.Fatal("object not collected after its page was released")
		}
		runtime.Gosched()
	}
}

var sinkRec *rec24

// BenchmarkGet compares Get with indexing a plain slice, on a table of 65535
// 24-byte records, all materialised, walked with a stride so that every
// access is independent.
func BenchmarkGet(b *testing.B) {
	const n = 65535
	a := New[rec24](n)
	plain := make([]rec24, n)
	for i := range n {
		a.Ensure(i)
	}
	idx := make([]int, 4096)
	for k := range idx {
		idx[k] = (k * 7919) % n
	}
	b.Run("flexarray", func(b *testing.B) {
		var p *rec24
		for k := 0; b.Loop(); k++ {
			p = a.Get(idx[k&4095])
		}
		sinkRec = p
	})
	b.Run("slice", func(b *testing.B) {
		var p *rec24
		for k := 0; b.Loop(); k++ {
			i := idx[k&4095]
			if uint(i) < uint(len(plain)) {
				p = &plain[i]
			}
		}
		sinkRec = p
	})
	deep := NewPaged[rec24](n, 256) // 10 per page: a two-level directory
	for i := range n {
		deep.Ensure(i)
	}
	b.Run("flexarray-2level", func(b *testing.B) {
		var p *rec24
		for k := 0; b.Loop(); k++ {
			p = deep.Get(idx[k&4095])
		}
		sinkRec = p
	})
	b.Run("flexarray-ensure", func(b *testing.B) {
		var p *rec24
		for k := 0; b.Loop(); k++ {
			p = a.Ensure(idx[k&4095])
		}
		sinkRec = p
	})
}

// TestNewPaged checks smaller pages: their geometry, that Bytes matches the
// memory profile, and that the model test holds for them too.
func TestNewPaged(t *testing.T) {
	for _, pb := range []int{64, 256, 1024, 4096} {
		var a *Array[rec24]
		s := testsupport.MeasureAllocs(t, pkgFuncs, func() {
			a = NewPaged[rec24](65535, pb)
			for i := 0; i < 65535; i += 5 {
				a.Ensure(i)
			}
		})
		if a.PerPage() != pb/24 {
			t.Errorf("page %d: PerPage %d, want %d", pb, a.PerPage(), pb/24)
		}
		if got := a.Bytes() + slotSize(int(unsafe.Sizeof(*a)), true); got != s.Live || s.Largest > PageSize {
			t.Errorf("page %d: Bytes()+header %d, measured %+v", pb, got, s)
		}
		runtime.KeepAlive(a)
	}
	for _, pb := range []int{0, 63, 4097} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewPaged(1, %d) did not panic", pb)
				}
			}()
			NewPaged[rec24](1, pb)
		}()
	}
}

var (
	sinkBytes []byte
	sinkPtrs  []*byte
)

// TestAllocSize checks the size-class table against the runtime: the memory
// profile records each allocation with the size of its slot.
func TestAllocSize(t *testing.T) {
	for _, n := range []int{1, 16, 17, 24, 100, 500, 512, 513, 1000, 2048, 3000, 4088, 4089, 4096, 5000, 40000} {
		s := testsupport.MeasureAllocs(t, "flexarray.TestAllocSize.func", func() {
			sinkBytes = make([]byte, n)
			sinkPtrs = make([]*byte, (n+7)/8)
		})
		sinkBytes, sinkPtrs = nil, nil
		want := AllocSize(n, false) + AllocSize((n+7)/8*8, true)
		if n < 16 {
			// Tiny pointer-free objects share 16-byte blocks.
			continue
		}
		if s.Total != want {
			t.Errorf("n=%d: AllocSize says %d+%d, profile %+v", n, AllocSize(n, false), AllocSize((n+7)/8*8, true), s)
		}
	}
}
