package sched

import (
	"math/bits"

	"github.com/usctp/usctp/flexarray"
)

// levelSet is a set of 16-bit priority values with O(1) insert, delete and
// minimum: a bitmap of the 65536 values in 1024 words, a summary word per 64
// of those words, and a top word with a bit per summary word. The bitmap is a
// flexarray, so only the pages of values in use (4096 values a page) exist.
type levelSet struct {
	leaf *flexarray.Array[uint64] // bit v%64 of word v/64: v is in the set
	mid  [16]uint64               // bit w%64 of word w/64: leaf word w is non-zero
	top  uint16                   // bit m: mid[m] is non-zero
}

func newLevelSet() levelSet {
	return levelSet{leaf: flexarray.New[uint64](1 << 10)}
}

func (l *levelSet) empty() bool { return l.top == 0 }

func (l *levelSet) add(v uint16) {
	w := l.leaf.Ensure(int(v >> 6))
	if *w == 0 {
		l.mid[v>>12] |= 1 << (v >> 6 & 63)
		l.top |= 1 << (v >> 12)
	}
	*w |= 1 << (v & 63)
}

func (l *levelSet) remove(v uint16) {
	w := l.leaf.Get(int(v >> 6))
	if w == nil {
		return
	}
	*w &^= 1 << (v & 63)
	if *w == 0 {
		l.mid[v>>12] &^= 1 << (v >> 6 & 63)
		if l.mid[v>>12] == 0 {
			l.top &^= 1 << (v >> 12)
		}
	}
}

// min returns the smallest value in the set, which must not be empty.
func (l *levelSet) min() uint16 {
	m := bits.TrailingZeros16(l.top)
	w := m<<6 | bits.TrailingZeros64(l.mid[m])
	return uint16(w<<6 | bits.TrailingZeros64(*l.leaf.Get(w)))
}
