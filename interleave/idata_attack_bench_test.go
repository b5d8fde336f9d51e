package interleave

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// BenchmarkIDataResetFlood measures a stream reset (RFC 6525, which makes
// the stream's next expected MID 0 again, followed by Recheck) on an
// I-DATA stream holding n fragments (its cost must not grow with them). The stream holds ordered messages 2^30 + 1 .. (one first
// fragment each, accepted while the next expected MID was 2^30 - 1, so
// the list was started at 0 and 0 is its base) and, ahead of MID 2^31 past
// 0, k more per op that each reset must drop ("drop": one each op, sent
// before the reset; "none": nothing to drop). The time is per op.
func BenchmarkIDataResetFlood(b *testing.B) {
	for _, mode := range []string{"none", "drop"} {
		for _, held := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 15} {
			b.Run(fmt.Sprintf("%s/held=%d", mode, held), func(b *testing.B) {
				tab := stream.NewTable[struct{}, InSide](1, 1)
				d := NewIDataReassembler(tab, FSNRFC)
				tsn := chunk.TSN(1)
				add := func(mid stream.MID) {
					f := d.Pool().Get([]byte{1})
					f.TSN, f.MID, f.Flags = tsn, mid, chunk.FlagBeginning
					tsn++
					if !d.Add(f) {
						b.Fatalf("MID %d refused", mid)
					}
				}
				add(1<<30 + 1)
				in := tab.In(0)
				in.MID = 1<<30 - 1
				for i := 1; i < held; i++ {
					add(stream.MID(1<<30 + 1 + i))
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if mode == "drop" {
						b.StopTimer()
						in.MID = 1<<30 - 1
						b.StartTimer()
						add(1<<31 + 7) // 2^31 + 8 past 2^30 - 1: accepted
					}
					in.ResetSequence()
					d.Recheck(0)
				}
				b.StopTimer()
				if n := tab.InSide(0).ordered.n; n != held {
					b.Fatalf("%d held, want %d", n, held)
				}
			})
		}
	}
}
