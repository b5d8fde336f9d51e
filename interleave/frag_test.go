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

// walkRun is what fragList.completeRun stands for, by walking: whether the
// list from f (with the B bit) holds a whole message, fragments with
// consecutive TSNs up to one with the E bit, and the last fragment of the
// run.
func walkRun(f *Frag) (*Frag, bool) {
	for {
		if f.Flags&chunk.FlagEnd != 0 {
			return f, true
		}
		n := f.next
		if n == nil || n.TSN != f.TSN+1 || n.Flags&chunk.FlagBeginning != 0 {
			return f, false
		}
		f = n
	}
}

// checkRuns checks the run links of a DATA reassembly list (see fragList)
// by walking it: the first and the last fragment of each run name each
// other, and completeRun agrees with walkRun.
func checkRuns(t *testing.T, l *fragList) {
	t.Helper()
	for f := l.head; f != nil; {
		last := f
		for last.next != nil && joined(last, last.next) {
			last = last.next
		}
		if f.FirstTSN != last.TSN || last.FirstTSN != f.TSN {
			t.Fatalf("run %d..%d: its first names %d, its last %d", f.TSN, last.TSN, f.FirstTSN, last.FirstTSN)
		}
		if f.Flags&chunk.FlagBeginning != 0 {
			wl, wok := walkRun(f)
			if gl, gok := l.completeRun(f); gl != wl || gok != wok {
				t.Fatalf("run from %d: completeRun says %d %v, walking %d %v", f.TSN, gl.TSN, gok, wl.TSN, wok)
			}
		}
		f = last.next
	}
}

// FuzzFragList checks the DATA reassembly list (a sorted list with a
// treap index, see fragList) against a sorted slice under any sequence of
// inserts, pops, tail removals and removals in the middle, with TSNs
// around the serial number wrap.
//
// An input of odd length drives the list as the DATA reassembler does,
// keeping its runs (insertRun, popRun, removeTailRun, unlinkFirst, whole
// runs leaving through unlinkAfter) with B and E bits from the op bytes,
// and also checks the runs' links and completeRun against a walk
// (checkRuns).
func FuzzFragList(f *testing.F) {
	f.Add([]byte{0, 5, 0, 3, 0, 4, 1, 0, 2, 0, 3, 1})
	f.Add([]byte{0, 1, 0, 2, 0, 3, 0, 4, 2, 0, 2, 0, 1, 0})
	f.Add([]byte{0, 200, 0, 100, 0, 150, 0, 120, 3, 1, 2, 0, 0, 130, 3, 0})
	f.Add([]byte{10, 1, 0, 2, 0, 4, 0, 3, 15, 5, 1, 0, 0, 9, 5, 8, 0, 7, 3, 2, 0, 6, 2, 0, 8, 1, 1})
	f.Add([]byte{10, 1, 0, 2, 0, 3, 5, 4, 10, 6, 0, 7, 15, 8, 8, 3, 13, 1, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		runs := len(ops)%2 == 1
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
				fr := &Frag{TSN: tsn, Flags: ops[i] / 5 & (chunk.FlagBeginning | chunk.FlagEnd)}
				_, dup := slices.BinarySearchFunc(want, tsn, cmp)
				var ok bool
				if runs {
					var first, last *Frag
					_, first, last, ok = l.insertRun(fr)
					if ok {
						checkRuns(t, &l)
						if first.FirstTSN != last.TSN || last.FirstTSN != first.TSN || tsn.LT(first.TSN) || last.TSN.LT(tsn) {
							t.Fatalf("insertRun %d returned the run %d..%d", tsn, first.TSN, last.TSN)
						}
					}
				} else {
					_, ok = l.insert(fr)
				}
				if ok == dup {
					t.Fatalf("insert %d reported %v, duplicate %v", tsn, ok, dup)
				}
				if !dup {
					at, _ := slices.BinarySearchFunc(want, tsn, cmp)
					want = slices.Insert(want, at, tsn)
				}
			case 1: // pop
				var fr *Frag
				if runs {
					fr = l.popRun()
				} else {
					fr = l.pop()
				}
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
				var fr *Frag
				if runs {
					fr = l.removeTailRun()
				} else {
					fr = l.removeTail()
				}
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
				var prev, before *Frag
				fr := l.head
				for range k {
					prev, fr = fr, fr.next
				}
				if !runs {
					l.unlinkAfter(prev, fr)
					want = slices.Delete(want, k, k+1)
					break
				}
				// The first fragment of the k-th's run, or the whole run.
				start := 0
				for x := l.head; x != nil; x = x.next {
					if x == l.head || !joined(before, x) {
						start = 0
					}
					if x == fr {
						break
					}
					before, start = x, start+1
				}
				k -= start
				prev, fr = nil, l.head
				for range k {
					prev, fr = fr, fr.next
				}
				if arg%2 == 0 {
					l.unlinkFirst(prev, fr)
					want = slices.Delete(want, k, k+1)
					break
				}
				n := 1
				for x := fr; x.next != nil && joined(x, x.next); x = x.next {
					n++
				}
				for range n {
					next := fr.next
					l.unlinkAfter(prev, fr)
					fr = next
				}
				want = slices.Delete(want, k, k+n)
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
			if runs {
				checkRuns(t, &l)
			}
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
			if _, ok := l.insert(&Frag{TSN: tsn(i)}); !ok {
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
