package perf

import (
	"fmt"
	"testing"
)

// BenchmarkMemcpy is the yardstick of the cost budget (perf/bench/budget.sh,
// docs/PERFORMANCE.md "Cost budget"): one copy of a 1452-byte packet's
// payload and of a 64 KiB message, in cache as a stack's copies mostly are.
func BenchmarkMemcpy(b *testing.B) {
	for _, n := range []int{1452, 64 << 10} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}
