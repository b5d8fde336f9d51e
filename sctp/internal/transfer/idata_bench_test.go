package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/internal/testsupport"
)

// BenchmarkIDataMessages is BenchmarkMessages with I-DATA: messages on ten
// streams, their chunks interleaved by the scheduler.
func BenchmarkIDataMessages(b *testing.B) {
	for _, size := range []int{1452, 1024, 64, 16 << 10} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchMessages(b, newIMemPair(b), size) })
	}
}

// TestIDataNoAllocsPerMessage: steady-state I-DATA transfer, with
// fragments of messages on ten streams interleaved, allocates nothing per
// message.
func TestIDataNoAllocsPerMessage(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	m := newIMemPair(t)
	msg := make([]byte, 3000)
	for i := range 2000 {
		m.a.send.enqueue(uint16(i%10), 0, i%5 == 0, msg)
		if i%4 == 3 {
			m.step(t)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(2000, func() {
		m.a.send.enqueue(uint16(i%10), 7, i%5 == 0, msg)
		if i%4 == 3 {
			m.step(t)
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message, want 0", allocs)
	}
}
