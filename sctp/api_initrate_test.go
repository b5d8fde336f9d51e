package sctp

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"

	"github.com/usctp/usctp/internal/testsupport"
)

// One host dials 1,000 associations at once, each from a socket of its
// own as Dial makes them, to a server with the default Config over a
// loopback-like simulated link: every one is up within a second of
// virtual time. The server answered every INIT (its rate limit let the
// burst through on its reserve) and queued every association for Accept
// (its backlog held them), and no dialer saw an INIT go unanswered.
func TestInitRateDialBurst(t *testing.T) {
	bubble(t, func(t *testing.T) {
		const dials = 1000
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Delay: 50 * time.Microsecond}, Overhead: 28})
		sc := simSocket(t, n, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", nil, sc)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		accepted := make(chan *Association, dials)
		go func() {
			for range dials {
				as, err := l.AcceptContext(ctx)
				if err != nil {
					return
				}
				accepted <- as
			}
		}()
		start := time.Now()
		var mu sync.Mutex
		var slowest time.Duration
		var unanswered uint64
		var wg sync.WaitGroup
		conns := make([]*Association, dials)
		for i := range dials {
			cc, err := n.Listen(netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(10000+i)))
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				as, err := dialNew(ctx, "10.0.0.2:5000", nil, cc)
				if err != nil {
					t.Errorf("dial %d: %v", i, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				conns[i] = as
				slowest = max(slowest, time.Since(start))
				unanswered += as.Stats().InitsUnanswered
			}()
		}
		wg.Wait()
		for _, c := range conns {
			if c != nil {
				defer c.Close()
			}
		}
		for range len(accepted) {
			defer (<-accepted).Close()
		}
		s := l.Stats()
		t.Logf("%d dials, the slowest up after %v; server: RateLimited %d, BacklogDropped %d", dials, slowest, s.RateLimited, s.BacklogDropped)
		if slowest >= time.Second {
			t.Errorf("the slowest of %d dials took %v, want under a second", dials, slowest)
		}
		if s.RateLimited != 0 || s.BacklogDropped != 0 || unanswered != 0 {
			t.Errorf("server RateLimited %d, BacklogDropped %d; dialers' InitsUnanswered %d; want none",
				s.RateLimited, s.BacklogDropped, unanswered)
		}
	})
}

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
		sc := simSocket(t, n, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", &Config{Limits: Limits{InitRate: 1}}, sc)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		cc := simSocket(t, n, "10.0.0.1:9899")
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

// Over real UDP on loopback, one client endpoint dials 1,000 associations
// at once (200 under the race detector) to a server with the default
// limits: none of its INITs is refused for rate and no COOKIE ECHO is
// dropped for the backlog. The time it took is logged, not asserted (a
// loaded machine makes it anything); TestInitRateDialBurst asserts it on
// virtual time.
func TestUDPInitBurst(t *testing.T) {
	dials := 1000
	if testsupport.RaceEnabled {
		dials = 200
	}
	l, dc := listenLoop(t, &Config{EphemeralUDPPort: true})
	// Each answer to an INIT sent again costs the server a token that no
	// COOKIE ECHO gives back, so on a machine too busy to answer 1,000
	// INITs within the first RTO the retransmissions, not the dials,
	// would exhaust the reserve: the dialer waits 10 s before sending an
	// INIT again, which this burst never needs unless a datagram is lost.
	dc.Timers.RTOInitial = 10 * time.Second
	ce, err := NewEndpoint(netip.MustParseAddr("127.0.0.1"), dc)
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
			defer as.Abort("done")
		}
		<-ctx.Done()
	}()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, dials)
	for i := range dials {
		wg.Add(1)
		go func() {
			defer wg.Done()
			as, err := ce.Dial(ctx, "127.0.0.1:5000")
			if err != nil {
				errs <- fmt.Errorf("dial %d: %w", i, err)
				return
			}
			as.Abort("done")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := l.Stats()
	t.Logf("%d dials in %v; server RateLimited %d, BacklogDropped %d; client InitsUnanswered %d",
		dials, time.Since(start), s.RateLimited, s.BacklogDropped, ce.Stats().InitsUnanswered)
	if s.RateLimited != 0 || s.BacklogDropped != 0 {
		t.Errorf("server RateLimited %d, BacklogDropped %d; want none", s.RateLimited, s.BacklogDropped)
	}
}
