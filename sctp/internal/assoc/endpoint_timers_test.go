package assoc

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestTimerHeapOrder moves the deadlines of up to five associations at
// random, takes some out and puts them back, and checks after each step
// that the heap's minimum is the earliest deadline of those in it: also
// while one association is alone in the heap with no key computed, and as
// a second one joins it.
func TestTimerHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Now()
	for round := range 200 {
		var q timerHeap
		as := make([]*Assoc, 1+round%5)
		for i := range as {
			as[i] = &Assoc{heapIdx: -1}
		}
		for step := range 50 {
			a := as[rng.IntN(len(as))]
			if a.heapIdx >= 0 && rng.IntN(4) == 0 {
				q.remove(a)
				a.heapAt = time.Time{}
			} else {
				a.heapAt = base.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
				q.update(a, a.heapAt)
			}
			var want *Assoc
			n := 0
			for _, b := range as {
				if b.heapIdx < 0 {
					continue
				}
				n++
				if want == nil || b.heapAt.Before(want.heapAt) {
					want = b
				}
			}
			if q.h.Len() != n {
				t.Fatalf("round %d step %d: %d in the heap, want %d", round, step, q.h.Len(), n)
			}
			if n > 0 && !q.h.Min().Val.heapAt.Equal(want.heapAt) {
				t.Fatalf("round %d step %d: minimum %v, want %v", round, step,
					q.h.Min().Val.heapAt.Sub(base), want.heapAt.Sub(base))
			}
		}
	}
}
