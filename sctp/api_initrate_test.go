package sctp

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// A dialer can tell that a server limits its INITs: the INITs the server
// dropped show in InitsUnanswered, on each association once it is up and
// on the dialing endpoint. A server answering 1 INIT a second per source
// (bursts of 2, a reserve of 10) gets 30 dials at once from one endpoint:
// 12 are answered, the others wait for their retransmissions and count
// them; every dial still succeeds.
func TestInitsUnansweredWhenRateLimited(t *testing.T) {
	bubble(t, func(t *testing.T) {
		const dials = 30
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Delay: time.Millisecond}, Overhead: 28})
		sc, err := n.Listen(netip.MustParseAddrPort("10.0.0.2:9899"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := listenOn("10.0.0.2:5000", &Config{Limits: Limits{InitRate: 1}}, sc)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		cc, err := n.Listen(netip.MustParseAddrPort("10.0.0.1:9899"))
		if err != nil {
			t.Fatal(err)
		}
		ce, err := newEndpointOn(netip.MustParseAddr("10.0.0.1"), nil, cc)
		if err != nil {
			t.Fatal(err)
		}
		defer ce.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		go func() {
			for range dials {
				as, err := l.AcceptContext(ctx)
				if err != nil {
					return
				}
				defer as.Close()
			}
			<-ctx.Done()
		}()
		var wg sync.WaitGroup
		counts := make([]uint64, dials)
		for i := range dials {
			wg.Add(1)
			go func() {
				defer wg.Done()
				as, err := ce.Dial(ctx, "10.0.0.2:5000")
				if err != nil {
					t.Errorf("dial %d: %v", i, err)
					return
				}
				defer as.Close()
				counts[i] = as.Stats().InitsUnanswered
			}()
		}
		wg.Wait()
		waited, sum := 0, uint64(0)
		for _, c := range counts {
			sum += c
			if c > 0 {
				waited++
			}
		}
		limited := l.Stats().RateLimited
		t.Logf("InitsUnanswered per dial %v; server RateLimited %d", counts, limited)
		if waited != dials-12 || sum < dials-12 || sum != limited {
			t.Errorf("%d dials saw INITs unanswered, %d INITs in all, server limited %d; want %d dials, as many INITs as limited",
				waited, sum, limited, dials-12)
		}
		if got := ce.Stats().InitsUnanswered; got != sum {
			t.Errorf("dialing endpoint's InitsUnanswered %d, its associations' %d", got, sum)
		}
	})
}
