package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// BenchmarkLongMessageAttack measures the receiver when a peer sends a
// message as long as the window allows in 1-byte fragments, in TSN order
// and never its last one (the work per chunk must not grow with the
// length of a message). Each op is the message's next fragment. An
// ordered message (the stream's next) makes the receiver ask, for every
// fragment, whether the message at the head of the stream is complete; an
// unordered one makes it look for the first fragment of the message the
// new fragment continues. Both once walked the message; the runs of the
// reassembly lists (interleave's fragList) answer with a look-up. The
// message holds held fragments when the clock starts and twice held when
// the receiver is rebuilt off the clock.
func BenchmarkLongMessageAttack(b *testing.B) {
	for _, order := range []string{"ordered", "unordered"} {
		for _, held := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 15} {
			b.Run(fmt.Sprintf("%s/held=%d", order, held), func(b *testing.B) {
				benchLongMessage(b, held, order == "unordered")
			})
		}
	}
}

// longSetup makes the receiver of BenchmarkLongMessageAttack holding the
// first held fragments of the message.
func (a *attacker) longSetup(held int, unordered bool) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: 1, Buffers: api.Buffers{RecvBuffer: attackBuffer}})
	if err != nil {
		panic(err)
	}
	a.r, a.n, a.tsn = &e.recv, 1, 1
	for i := range held {
		a.longChunk(i == 0, unordered)
	}
}

// longChunk sends the message's next fragment, its first if first.
func (a *attacker) longChunk(first, unordered bool) {
	var flags uint8
	if first {
		flags |= chunk.FlagBeginning
	}
	if unordered {
		flags |= chunk.FlagUnordered
	}
	a.resetSend(0, 0, flags, reorderPayload[:])
}

func benchLongMessage(b *testing.B, held int, unordered bool) {
	a := &attacker{}
	a.longSetup(held, unordered)
	b.ReportAllocs()
	b.ResetTimer()
	for i, sent := 0, 0; i < b.N; i, sent = i+1, sent+1 {
		if sent == held {
			b.StopTimer()
			a.longSetup(held, unordered)
			sent = 0
			b.StartTimer()
		}
		a.longChunk(false, unordered)
	}
	b.StopTimer()
	if a.r.stats.PartialDeliveries != 0 {
		b.Fatal("the receiver started a partial delivery: the benchmark measures something else")
	}
}
