package sctp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// ResetStreams with more streams than one request may list fails at once
// with an error saying so; nothing waits, and a reset of as many as may
// be listed is performed.
func TestSimResetStreamsTooMany(t *testing.T) {
	adj := func(c *Config) { c.OutStreams, c.InStreams = 1000, 1000 }
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sids := make([]uint16, 65)
		for i := range sids {
			sids[i] = uint16(i)
		}
		err := c.ResetStreams(ctx, DirOutgoing, sids...)
		if err == nil || !strings.Contains(err.Error(), "at most 64") {
			t.Fatalf("ResetStreams(65 streams) = %v, want an error saying at most 64", err)
		}
		if ctx.Err() != nil {
			t.Fatal("ResetStreams waited")
		}
		if err := c.ResetStreams(ctx, DirBoth, sids[:64]...); err != nil {
			t.Fatalf("ResetStreams(64 streams both ways) = %v", err)
		}
	})
}
