package flexarray

import (
	"fmt"
	"iter"
	"math/bits"
	"reflect"
	"unsafe"
)

const (
	// PageSize is the largest number of bytes the package allocates at once,
	// for element pages and directory nodes alike (element types larger than
	// a page are the exception; see New).
	PageSize = 4096

	// MaxLen is the largest length an Array can have.
	MaxLen = 1<<31 - 1

	ptrSize = int(unsafe.Sizeof(unsafe.Pointer(nil)))

	// fan is the number of pointers in a full directory node: the node plus
	// the runtime's malloc header fill exactly one PageSize slot.
	fan = (PageSize - mallocHeader) / ptrSize
)

// spans[l] is the number of pages covered by one entry of a directory node
// at level l (level 0 entries are pages); spans[d] is what a directory of
// depth d covers. Values saturate at MaxLen, which no page index reaches.
var spans = func() (s [5]int) {
	s[0] = 1
	for l := 1; l < len(s); l++ {
		if s[l-1] > MaxLen/fan {
			s[l] = MaxLen
		} else {
			s[l] = s[l-1] * fan
		}
	}
	return s
}()

// node is a full directory node.
type node = [fan]unsafe.Pointer

// Array is a page-chunked array of T with stable element addresses.
//
// The zero Array is an empty array of length 0; use New or Resize to give it
// a length. Elements are created (zeroed) a page at a time by Ensure; Get
// never creates anything.
type Array[T any] struct {
	// top is the root directory node. At depth 1 its entries point to
	// pages (the first element of a []T of length per); at depth d > 1 they
	// point to full directory nodes of depth d-1. Its length covers the
	// highest page materialised so far, its capacity at most fan.
	top   []unsafe.Pointer
	n     int     // length
	per   int     // elements per page
	mul   uint64  // page(i) = i*mul >> shift, exact for 0 <= i <= MaxLen
	shift uint8   //
	depth uint8   // directory levels; 0 while no page exists
	ptrs  bool    // T contains pointers
	esize uintptr // unsafe.Sizeof(T)
}

// New returns an array of n zero elements with pages of PageSize bytes. It
// allocates no element page: Ensure creates them. An element type larger
// than a page (malloc header included) gets one element per page, and so
// allocations larger than PageSize. New panics if n is outside [0, MaxLen].
func New[T any](n int) *Array[T] {
	return NewPaged[T](n, PageSize)
}

// NewPaged is New with pages of at most pageBytes bytes, for arrays that are
// usually sparse or small: smaller pages cost less when few elements are
// used but need more directory entries when many are. NewPaged panics if
// pageBytes is outside [64, PageSize] or n is out of range.
func NewPaged[T any](n, pageBytes int) *Array[T] {
	if pageBytes < 64 || pageBytes > PageSize {
		panic(fmt.Sprintf("flexarray: page size %d out of range [64, %d]", pageBytes, PageSize))
	}
	a := new(Array[T])
	a.setup(pageBytes)
	a.Resize(n)
	return a
}

// minFitPage is the smallest page NewFor chooses.
const minFitPage = 256

// NewFor is New with the smallest pages (256 bytes or more) that keep a
// one-level directory for n elements: a short array with few elements used
// holds one small page, while a full one keeps every lookup one load deep.
// NewFor panics if n is out of range.
func NewFor[T any](n int) *Array[T] {
	if n < 0 || n > MaxLen {
		panic(fmt.Sprintf("flexarray: length %d out of range [0, %d]", n, MaxLen))
	}
	t := reflect.TypeFor[T]()
	esize := int(t.Size())
	if esize == 0 || esize >= PageSize {
		return New[T](n)
	}
	per := (n + fan - 1) / fan // elements a page needs
	need := per*esize + headerSize(per*esize, hasPointers(t))
	pb := minFitPage
	for pb < need && pb < PageSize {
		pb *= 2
	}
	return NewPaged[T](n, pb)
}

// setup computes the page geometry of T for pages of at most pb bytes; it
// runs once, in NewPaged or on the first Resize of a zero Array.
func (a *Array[T]) setup(pb int) {
	t := reflect.TypeFor[T]()
	a.esize = t.Size()
	a.ptrs = hasPointers(t)
	switch {
	case a.esize == 0:
		a.per = MaxLen // one page, holding no bytes
	case int(a.esize) >= pb:
		a.per = 1
	default:
		a.per = pb / int(a.esize)
		if a.per*int(a.esize)+headerSize(a.per*int(a.esize), a.ptrs) > pb {
			a.per = max(1, (pb-mallocHeader)/int(a.esize))
		}
	}
	// Division by a number known only at run time, done as a multiply and
	// a shift: with l = ceil(log2 per), s = 31 + l and m = ceil(2^s / per),
	// floor(i*m / 2^s) == floor(i / per) for every 0 <= i < 2^31 (the error
	// i*(m - 2^s/per)/2^s stays below 2^-l <= 1/per), and i*m < 2^63.
	l := uint(bits.Len(uint(a.per - 1)))
	s := 31 + l
	a.shift = uint8(s)
	a.mul = (uint64(1)<<s + uint64(a.per) - 1) / uint64(a.per)
}

// hasPointers reports whether values of type t contain pointers the garbage
// collector must trace.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Interface, reflect.Slice, reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// Len returns the number of elements.
func (a *Array[T]) Len() int { return a.n }

// PerPage returns the number of elements one page holds.
func (a *Array[T]) PerPage() int {
	if a.per == 0 {
		a.setup(PageSize)
	}
	return a.per
}

// pageOf returns the index of the page holding element i (0 <= i <= MaxLen).
func (a *Array[T]) pageOf(i int) int {
	return int((uint64(i) * a.mul) >> a.shift)
}

// Get returns a pointer to element i, or nil when i is outside [0, Len) or
// its page was never materialised by Ensure. Get never allocates.
func (a *Array[T]) Get(i int) *T {
	if uint(i) >= uint(a.n) {
		return nil
	}
	p := a.pageOf(i)
	var pg unsafe.Pointer
	if a.depth == 1 {
		if uint(p) >= uint(len(a.top)) {
			return nil
		}
		pg = a.top[p]
	} else {
		pg = a.lookup(p)
	}
	if pg == nil {
		return nil
	}
	return (*T)(unsafe.Add(pg, uintptr(i-p*a.per)*a.esize))
}

// Ensure returns a pointer to element i, first materialising the page that
// holds it (zeroed) if needed. It returns nil only when i is outside
// [0, Len). On a materialised page Ensure does not allocate.
func (a *Array[T]) Ensure(i int) *T {
	if uint(i) >= uint(a.n) {
		return nil
	}
	p := a.pageOf(i)
	var pg unsafe.Pointer
	if a.depth == 1 && uint(p) < uint(len(a.top)) {
		pg = a.top[p]
	} else {
		pg = a.lookup(p)
	}
	if pg == nil {
		pg = a.materialise(p)
	}
	return (*T)(unsafe.Add(pg, uintptr(i-p*a.per)*a.esize))
}

// lookup returns page p, or nil if it is not materialised.
func (a *Array[T]) lookup(p int) unsafe.Pointer {
	return a.nodeAt(p, 0)
}

// nodeAt returns the directory entry at the given level on the path to page
// p: the page itself for level 0, the node of page pointers holding it for
// level 1, and so on. It returns nil if that entry is missing.
func (a *Array[T]) nodeAt(p int, level uint8) unsafe.Pointer {
	if a.depth == 0 || level >= a.depth {
		return nil
	}
	// digits[l] is p's index in its level-l node (base-fan digits of p).
	var digits [len(spans)]int
	for l := range a.depth - 1 {
		digits[l] = p % fan
		p /= fan
	}
	if p >= len(a.top) {
		return nil
	}
	ptr := a.top[p]
	for l := a.depth - 1; l > level && ptr != nil; {
		l--
		ptr = (*node)(ptr)[digits[l]]
	}
	return ptr
}

// pages returns the number of pages needed to hold n elements.
func (a *Array[T]) pages(n int) int {
	if n == 0 {
		return 0
	}
	return a.pageOf(n-1) + 1
}

// materialise creates page p, which must be missing, and the directory
// nodes on its path, and returns it.
func (a *Array[T]) materialise(p int) unsafe.Pointer {
	if a.depth == 0 {
		a.depth = 1
	}
	// Deepen the directory until the root covers page p. The old root
	// becomes entry 0 of the new one, so no page moves.
	for p >= spans[a.depth] {
		var child unsafe.Pointer
		if len(a.top) > 0 {
			full := new(node)
			copy(full[:], a.top)
			child = unsafe.Pointer(full)
		}
		a.top = nil
		a.depth++
		a.growTop(1)
		a.top[0] = child
	}
	var digits [len(spans)]int
	for l := range a.depth - 1 {
		digits[l] = p % fan
		p /= fan
	}
	if p >= len(a.top) {
		a.growTop(p + 1)
	}
	slot := &a.top[p]
	for l := a.depth - 1; l > 0; {
		if *slot == nil {
			*slot = unsafe.Pointer(new(node))
		}
		l--
		slot = &(*node)(*slot)[digits[l]]
	}
	page := make([]T, a.per)
	*slot = unsafe.Pointer(unsafe.SliceData(page))
	return *slot
}

// growTop lengthens the root node to n entries, reallocating it if needed
// with room to spare, but never beyond a full node or beyond what Len needs.
func (a *Array[T]) growTop(n int) {
	if n <= cap(a.top) {
		a.top = a.top[:n]
		return
	}
	s := spans[a.depth-1]
	limit := max(n, min(fan, (a.pages(a.n)+s-1)/s))
	c := min(max(n, 2*cap(a.top)), limit)
	// Take the whole size class the allocation lands in anyway.
	c = min(max(c, ptrsInSlot(c)), limit)
	top := make([]unsafe.Pointer, n, c)
	copy(top, a.top)
	a.top = top
}

// Resize sets the length to n. Growing allocates nothing and never moves an
// element, so pointers from Get and Ensure stay valid. Shrinking releases
// every page wholly past the new end and zeroes the elements cut from the
// last page, so a later grow never exposes stale values. Resize panics if n
// is outside [0, MaxLen].
func (a *Array[T]) Resize(n int) {
	if n < 0 || n > MaxLen {
		panic(fmt.Sprintf("flexarray: length %d out of range [0, %d]", n, MaxLen))
	}
	if a.per == 0 {
		a.setup(PageSize)
	}
	if n >= a.n {
		a.n = n
		return
	}
	old := a.n
	a.n = n
	if k := n % a.per; k != 0 {
		p := n / a.per
		if pg := a.lookup(p); pg != nil {
			page := unsafe.Slice((*T)(pg), a.per)
			clear(page[k:min(a.per, old-p*a.per)])
		}
	}
	a.trim(a.pages(n))
}

// trim drops every page with index >= np and every directory node left
// without pages, and lowers the directory depth where it can.
func (a *Array[T]) trim(np int) {
	if a.depth == 0 {
		return
	}
	if np == 0 {
		a.top, a.depth = nil, 0
		return
	}
	s := spans[a.depth-1]
	if keep := (np + s - 1) / s; keep < len(a.top) {
		clear(a.top[keep:])
		a.top = a.top[:keep]
	}
	if k := len(a.top) - 1; a.depth > 1 && k >= 0 && a.top[k] != nil && np-k*s < s {
		trimNode((*node)(a.top[k]), a.depth-2, np-k*s)
	}
	for a.depth > 1 && len(a.top) <= 1 {
		// The root has at most one child: make that child the root.
		if len(a.top) == 0 || a.top[0] == nil {
			a.top, a.depth = nil, 0
			return
		}
		child := (*node)(a.top[0])
		a.depth--
		s := spans[a.depth-1]
		a.top = child[:min(fan, (np+s-1)/s)]
	}
}

// trimNode drops the entries of nd, a node at the given level (0: entries
// are pages), past its first np pages.
func trimNode(nd *node, level uint8, np int) {
	s := spans[level]
	keep := (np + s - 1) / s
	clear(nd[keep:])
	if level > 0 && nd[keep-1] != nil {
		trimNode((*node)(nd[keep-1]), level-1, np-(keep-1)*s)
	}
}

// Clear releases every page and the directory. The length is unchanged and
// every element reads as absent (Get returns nil) until Ensure creates it
// again, zeroed.
func (a *Array[T]) Clear() {
	a.top, a.depth = nil, 0
}

// All returns an iterator over the materialised elements and their indexes,
// in index order. Elements of pages created or released while the iteration
// runs may or may not be visited.
func (a *Array[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		for p := 0; ; p++ {
			var pg unsafe.Pointer
			if p, pg = a.seek(p); pg == nil {
				return
			}
			first := p * a.per
			for k := 0; k < a.per && first+k < a.n; k++ {
				if !yield(first+k, (*T)(unsafe.Add(pg, uintptr(k)*a.esize))) {
					return
				}
			}
		}
	}
}

// seek returns the first materialised page with index >= p, or nil.
func (a *Array[T]) seek(p int) (int, unsafe.Pointer) {
	np := a.pages(a.n)
	if a.depth > 0 {
		np = min(np, len(a.top)*spans[a.depth-1])
	}
	for p < np {
		if pg := a.lookup(p); pg != nil {
			return p, pg
		}
		// Skip the largest missing subtree on the path to p.
		skip := 1
		for level := uint8(1); level < a.depth && a.nodeAt(p, level) == nil; level++ {
			s := spans[level]
			skip = s - p%s
		}
		p += skip
	}
	return p, nil
}

// Bytes returns the bytes this array holds: its element pages and directory
// nodes, each counted as the size-class slot the Go allocator gives it. It
// does not count the Array header itself.
func (a *Array[T]) Bytes() int {
	if a.depth == 0 {
		return 0
	}
	total := slotSize(cap(a.top)*ptrSize, true)
	pageBytes := slotSize(a.per*int(a.esize), a.ptrs)
	nodeBytes := slotSize(fan*ptrSize, true)
	var walk func(ptrs []unsafe.Pointer, level uint8)
	walk = func(ptrs []unsafe.Pointer, level uint8) {
		for _, ptr := range ptrs {
			switch {
			case ptr == nil:
			case level == 0:
				total += pageBytes
			default:
				total += nodeBytes
				walk((*node)(ptr)[:], level-1)
			}
		}
	}
	walk(a.top, a.depth-1)
	return total
}
