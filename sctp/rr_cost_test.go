package sctp

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// rrCost is what one side spent on a run of request/response
// transactions.
type rrCost struct {
	packets, data, sacks uint64 // sent
	writes, reads        uint64 // WriteBatch calls, ReadBatch calls with packets
	ownerWakes, handoffs uint64
}

func costOf(as *Association) rrCost {
	st := as.Stats()
	e := as.ep
	return rrCost{packets: st.PacketsOut, data: st.ChunksOut[chunk.TypeData], sacks: st.ChunksOut[chunk.TypeSack],
		writes: e.nWrites.Load(), reads: e.nReads.Load(), ownerWakes: e.nOwnerWakes.Load(), handoffs: e.nHandoffs.Load()}
}

func (c rrCost) sub(o rrCost) rrCost {
	return rrCost{c.packets - o.packets, c.data - o.data, c.sacks - o.sacks,
		c.writes - o.writes, c.reads - o.reads, c.ownerWakes - o.ownerWakes, c.handoffs - o.handoffs}
}

// TestRRCost pins the cost of request/response (sctpperf's SCTP_RR) without
// timing it: per transaction each side sends one packet, a DATA chunk with
// the SACK of the peer's last message bundled (RFC 9260 section 6: "Before
// an endpoint transmits a DATA chunk, if any received DATA chunks have not
// been acknowledged (e.g., due to delayed acknowledgement), the sender
// SHOULD create a SACK chunk and bundle it with the outbound DATA chunk"),
// with one WriteBatch and one ReadBatch, by the goroutine that wrote or
// wants it: the owner goroutine is not woken per message (only for its
// timers and its checks of the reader role, every readerCheck), and no
// ReadMsg caller waits for another goroutine to read its data.
func TestRRCost(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 20 * time.Microsecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		go func() {
			buf := make([]byte, 64)
			for {
				k, info, err := s.ReadMsg(buf)
				if err != nil {
					return
				}
				if _, err := s.WriteMsg(buf[:k], SendInfo{Stream: info.Stream}); err != nil {
					return
				}
			}
		}()
		req, resp := []byte{1}, make([]byte, 64)
		rr := func(n int) {
			for range n {
				if _, err := c.WriteMsg(req, SendInfo{}); err != nil {
					t.Fatal(err)
				}
				if k, _, err := c.ReadMsg(resp); err != nil || k != 1 {
					t.Fatalf("response: %d bytes, %v", k, err)
				}
			}
		}
		rr(10) // past the handshake's packets and the first RTT samples
		c0, s0 := costOf(c), costOf(s)
		const trans = 200
		start := time.Now()
		rr(trans)
		elapsed := time.Since(start)
		dc, ds := costOf(c).sub(c0), costOf(s).sub(s0)
		t.Logf("%v for %d transactions", elapsed, trans)
		t.Logf("client %+v", dc)
		t.Logf("server %+v", ds)
		for _, x := range []struct {
			side string
			c    rrCost
		}{{"client", dc}, {"server", ds}} {
			if x.c.data != trans || x.c.packets != trans || x.c.sacks != trans {
				t.Errorf("%s: %d packets, %d DATA, %d SACK chunks for %d transactions; want one packet with DATA and SACK each",
					x.side, x.c.packets, x.c.data, x.c.sacks, trans)
			}
			if x.c.writes > trans || x.c.reads > trans {
				t.Errorf("%s: %d WriteBatch and %d ReadBatch calls for %d transactions; want one each", x.side, x.c.writes, x.c.reads, trans)
			}
			if max := uint64(2 + 2*elapsed/readerCheck); x.c.ownerWakes > max {
				t.Errorf("%s: owner goroutine woken %d times in %v for %d transactions", x.side, x.c.ownerWakes, elapsed, trans)
			}
			if x.c.handoffs > 2 {
				t.Errorf("%s: %d ReadMsg callers woken by another reader for %d transactions; want them to read the socket themselves",
					x.side, x.c.handoffs, trans)
			}
		}
	})
}
