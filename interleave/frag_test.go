package interleave

import (
	"slices"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// checkFragList checks l against want (the TSNs it must hold, in order):
// the list order, head, tail and count, and that its tree holds exactly
// the same fragments in search order with heap-ordered priorities.
func checkFragList(t *testing.T, l *fragList, want []chunk.TSN) {
	t.Helper()
	var got []chunk.TSN
	var last *Frag
	for f := l.head; f != nil; f = f.next {
		got = append(got, f.TSN)
		last = f
		if len(got) > len(want)+1 {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("list holds %v, want %v", got, want)
	}
	if l.tail != last || l.n != len(want) {
		t.Fatalf("tail %p (last %p), n %d, want %d", l.tail, last, l.n, len(want))
	}
	if !l.tree {
		if l.root != nil {
			t.Fatal("a list without a tree has a root")
		}
		return
	}
	var inorder []chunk.TSN
	var walk func(x *Frag, depth int)
	walk = func(x *Frag, depth int) {
		if x == nil {
			return
		}
		if depth > len(want) {
			t.Fatal("tree deeper than the list is long (a cycle)")
		}
		for _, c := range [...]*Frag{x.gprev, x.gnext} {
			if c != nil && prio(c.TSN) > prio(x.TSN) {
				t.Fatalf("child %d has a higher priority than its parent %d", c.TSN, x.TSN)
			}
		}
		walk(x.gprev, depth+1)
		inorder = append(inorder, x.TSN)
		walk(x.gnext, depth+1)
	}
	walk(l.root, 0)
	if len(want) == 0 {
		t.Fatal("empty list with a tree")
	}
	if !slices.Equal(inorder, want) {
		t.Fatalf("tree holds %v in order, want %v", inorder, want)
	}
}

// FuzzFragList checks the DATA reassembly list (a sorted list with a
// treap index, see fragList) against a sorted slice under any sequence of
// inserts, pops, tail removals and removals in the middle, with TSNs
// around the serial number wrap.
func FuzzFragList(f *testing.F) {
	f.Add([]byte{0, 5, 0, 3, 0, 4, 1, 0, 2, 0, 3, 1})
	f.Add([]byte{0, 1, 0, 2, 0, 3, 0, 4, 2, 0, 2, 0, 1, 0})
	f.Add([]byte{0, 200, 0, 100, 0, 150, 0, 120, 3, 1, 2, 0, 0, 130, 3, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		base := chunk.TSN(0xffffff80) // lists straddle the wrap
		var l fragList
		var want []chunk.TSN
		cmp := func(a, b chunk.TSN) int {
			switch {
			case a.LT(b):
				return -1
			case b.LT(a):
				return 1
			}
			return 0
		}
		for i := 0; i+1 < len(ops); i += 2 {
			arg := ops[i+1]
			switch ops[i] % 5 {
			case 0: // insert
				tsn := base + chunk.TSN(arg)
				fr := &Frag{TSN: tsn}
				_, dup := slices.BinarySearchFunc(want, tsn, cmp)
				if ok := l.insert(fr); ok == dup {
					t.Fatalf("insert %d reported %v, duplicate %v", tsn, ok, dup)
				}
				if !dup {
					at, _ := slices.BinarySearchFunc(want, tsn, cmp)
					want = slices.Insert(want, at, tsn)
				}
			case 1: // pop
				fr := l.pop()
				if len(want) == 0 {
					if fr != nil {
						t.Fatal("pop of an empty list returned a fragment")
					}
					continue
				}
				if fr == nil || fr.TSN != want[0] {
					t.Fatalf("pop returned %v, want %d", fr, want[0])
				}
				want = want[1:]
			case 2: // removeTail
				fr := l.removeTail()
				if len(want) == 0 {
					if fr != nil {
						t.Fatal("removeTail of an empty list returned a fragment")
					}
					continue
				}
				if fr == nil || fr.TSN != want[len(want)-1] {
					t.Fatalf("removeTail returned %v, want %d", fr, want[len(want)-1])
				}
				want = want[:len(want)-1]
			case 3: // remove the arg-th fragment (mod length)
				if len(want) == 0 {
					continue
				}
				k := int(arg) % len(want)
				var prev *Frag
				fr := l.head
				for range k {
					prev, fr = fr, fr.next
				}
				l.unlinkAfter(prev, fr)
				want = slices.Delete(want, k, k+1)
			case 4: // floor
				tsn := base + chunk.TSN(arg)
				var wantF *Frag
				at, found := slices.BinarySearchFunc(want, tsn, cmp)
				if found {
					at++
				}
				got := l.floor(tsn)
				if at > 0 {
					wantF = l.head
					for range at - 1 {
						wantF = wantF.next
					}
				}
				if got != wantF {
					t.Fatalf("floor(%d) = %v, want %v", tsn, got, wantF)
				}
			}
			checkFragList(t, &l, want)
		}
	})
}

// TestFragListDepth checks that the tree stays shallow whatever order the
// fragments come in: ascending, descending or interleaved from both ends.
func TestFragListDepth(t *testing.T) {
	const n = 1 << 14
	orders := map[string]func(i int) chunk.TSN{
		"ascending":  func(i int) chunk.TSN { return chunk.TSN(i) },
		"descending": func(i int) chunk.TSN { return chunk.TSN(n - i) },
		"zigzag": func(i int) chunk.TSN {
			if i%2 == 0 {
				return chunk.TSN(i / 2)
			}
			return chunk.TSN(n - i/2)
		},
	}
	for name, tsn := range orders {
		var l fragList
		for i := range n {
			if !l.insert(&Frag{TSN: tsn(i)}) {
				t.Fatalf("%s: insert %d failed", name, tsn(i))
			}
			if i == 1 {
				l.build() // in order, the list would build no tree
			}
		}
		var depth func(x *Frag) int
		depth = func(x *Frag) int {
			if x == nil {
				return 0
			}
			return 1 + max(depth(x.gprev), depth(x.gnext))
		}
		// A random binary search tree of 2^14 keys is about 2.99 ln n
		// (29) deep on average; 100 would be a broken balance.
		if d := depth(l.root); d > 100 || !l.tree {
			t.Errorf("%s: tree of %d fragments is %d deep", name, n, d)
		}
	}
}

// TestBufClass checks bufClass against the smallest class that holds n,
// found by a walk over the classes, for every size a chunk can carry and
// some it cannot.
func TestBufClass(t *testing.T) {
	walk := func(n int) int {
		for i, c := range bufClasses {
			if n <= c {
				return i
			}
		}
		return -1
	}
	for n := 0; n <= 70000; n++ {
		if got, want := bufClass(n), walk(n); got != want {
			t.Fatalf("bufClass(%d) = %d, want %d", n, got, want)
		}
	}
	for _, n := range []int{-1, 1 << 20, 1<<31 - 1} {
		if got := bufClass(n); got != -1 {
			t.Fatalf("bufClass(%d) = %d, want -1", n, got)
		}
	}
}
