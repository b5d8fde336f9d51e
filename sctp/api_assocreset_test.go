package sctp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimAssocReset resets the whole association (RFC 6525 SSN/TSN Reset
// Request) between rounds of messages flowing both ways over a lossy,
// duplicating and reordering link, the client and the server taking turns
// to ask: every message arrives once, in order on its stream, each round numbered from
// SSN 0 on both streams. The other side's data in flight makes the
// receiver of a request answer "In progress" until it is acknowledged;
// with 10% loss requests and answers are lost too (the retransmitted
// request gets the same answer, next TSNs included).
//
// With I-DATA (idata) the resets restart the MIDs: the SSN checks do not
// apply, but a message after a reset is only delivered when both sides
// restarted its stream's MID, so the payload order checks the resets.
func TestSimAssocReset(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.1, Dup: 0.02, Reorder: 0.05}
	t.Run("data", func(t *testing.T) {
		simPair(t, link, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
			simAssocReset(t, c, s, true)
		})
	})
	t.Run("idata", func(t *testing.T) {
		simPairCfg(t, link, func(cfg *Config) { cfg.Extensions.Interleaving = true }, func(t *testing.T, c, s *Association) {
			simAssocReset(t, c, s, false)
		})
	})
}

func simAssocReset(t *testing.T, c, s *Association, checkSSN bool) {
	{
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		const rounds, per = 6, 40
		// Each side writes rounds of per messages on streams 1 and 2;
		// after round r, the client (r even) or the server (r odd) resets
		// the association. The side that does not ask waits for the
		// EventAssocReset before writing its next round, so every round
		// starts from SSN 0 both ways.
		run := func(a *Association, asks func(r int) bool) error {
			for r := range rounds {
				for i := range per {
					m := []byte(fmt.Sprintf("%d.%d", r, i))
					if _, err := a.WriteMsg(m, SendInfo{Stream: uint16(1 + i%2)}); err != nil {
						return err
					}
				}
				if r == rounds-1 {
					return nil
				}
				if asks(r) {
					if r >= 2 {
						time.Sleep(30 * time.Second) // "Only one SSN/TSN Reset Request SHOULD be sent within 30 seconds"
					}
					// The peer may answer "Error - Request already in
					// progress" (RFC 6525 section 5.2.7) when its own
					// request of the round before is still outstanding
					// (its answer lost on this lossy link): ask again, 30
					// s later as the rule above wants.
					err := a.ResetAssociation(ctx)
					for try := 0; err != nil && errors.Is(err, ErrReconfigFailed) && try < 5; try++ {
						time.Sleep(30 * time.Second)
						err = a.ResetAssociation(ctx)
					}
					if err != nil {
						return fmt.Errorf("round %d: %w", r, err)
					}
				}
				ev := waitEvent(t, a, EventAssocReset)
				for asks(r) && errors.Is(ev.Err, ErrReconfigFailed) {
					ev = waitEvent(t, a, EventAssocReset) // a refused attempt, asked again
				}
				if ev.Err != nil || ev.Direction != DirBoth {
					return fmt.Errorf("round %d: event %+v", r, ev)
				}
			}
			return nil
		}
		errc := make(chan error, 4)
		go func() { errc <- run(c, func(r int) bool { return r%2 == 0 }) }()
		go func() { errc <- run(s, func(r int) bool { return r%2 == 1 }) }()
		read := func(a *Association) error {
			buf := make([]byte, 100)
			for r := range rounds {
				next := [3]int{0, 0, 1} // per stream, the next message index of the round
				for range per {
					k, info, err := a.ReadMsg(buf)
					if err != nil {
						return err
					}
					if info.Stream != 1 && info.Stream != 2 {
						return fmt.Errorf("stream %d", info.Stream)
					}
					i := next[info.Stream]
					next[info.Stream] += 2
					if want := fmt.Sprintf("%d.%d", r, i); string(buf[:k]) != want || checkSSN && info.SSN != uint16(i/2) {
						return fmt.Errorf("got %q stream %d SSN %d, want %q SSN %d", buf[:k], info.Stream, info.SSN, want, i/2)
					}
				}
			}
			return nil
		}
		// The first error ends the test at once (a writer that failed
		// would leave the readers waiting for ever).
		go func() { errc <- read(c) }()
		go func() { errc <- read(s) }()
		for range 4 {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		cr, sr := c.Stats().Reconf, s.Stats().Reconf
		t.Logf("client %+v", cr)
		t.Logf("server %+v", sr)
		if cr.AssocResetsOut+sr.AssocResetsOut != rounds-1 || cr.AssocResetsIn+sr.AssocResetsIn != rounds-1 {
			t.Fatalf("resets: client %+v, server %+v", cr, sr)
		}
		if err := c.ResetAssociation(ctx); !errors.Is(err, ErrAssocResetTooSoon) {
			t.Fatalf("reset within 30 s: %v", err)
		}
	}
}
