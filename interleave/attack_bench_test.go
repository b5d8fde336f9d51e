package interleave

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// BenchmarkPartialEndAttack measures the DATA reassembler when partial
// deliveries end one after the other on a stream that holds many
// unordered fragments that never complete (1-byte middle fragments at
// every other TSN: as many runs as fragments). Each op is a partial
// delivery of a two-fragment ordered message of that stream: its first
// fragment, Partial, its last fragment (which ends the partial delivery
// and releases what it held back), and the reads. The end of a partial
// delivery looks only at the messages that became complete meanwhile, so
// the cost must not grow with the fragments held.
func BenchmarkPartialEndAttack(b *testing.B) {
	for _, held := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 15} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			d, _ := newData(1)
			h := harness{t: b, d: d}
			for i := range held {
				h.add(chunk.TSN(2+2*i), 0, 0, chunk.FlagUnordered, "x")
			}
			tsn := chunk.TSN(2*held + 2)
			var ssn stream.SSN
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.add(tsn, 0, ssn, chunk.FlagBeginning, "a")
				if !d.Partial() {
					b.Fatal("no partial delivery started")
				}
				h.add(tsn+1, 0, ssn, chunk.FlagEnd, "b")
				for f := d.Pop(); f != nil; f = d.Pop() {
					d.Pool().Put(f)
				}
				tsn += 2
				ssn++
			}
			b.StopTimer()
			if d.InPartial(0) || d.Held() != held {
				b.Fatalf("after the attack: in partial delivery %v, %d bytes held, want %d", d.InPartial(0), d.Held(), held)
			}
		})
	}
}
