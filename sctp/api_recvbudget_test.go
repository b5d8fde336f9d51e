package sctp

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// recvBudgetLink is each peer's 4 MB/s link to the server, with a 2 ms
// round trip (an 8 KB bandwidth-delay product, less than a 16 KiB share)
// and a deep queue: without a bound the peers' windows fill the queues.
var recvBudgetLink = simnet.LinkConfig{Delay: time.Millisecond, Rate: 4e6, QueueBytes: 4 << 20}

// recvBudgetResult is what recvBudgetRun measured.
type recvBudgetResult struct {
	maxFlight int   // largest sum of the DATA in flight to the server seen after the second second
	bytes     []int // bytes each association delivered in the measured span
}

// recvBudgetRun dials n associations, each from its own endpoint (no send
// budget binds them together), to one server endpoint whose
// Config.Limits.RecvBudget is budget; runs a greedy writer of 1000-byte
// messages on each for 4 simulated seconds over recvBudgetLink with a
// reader on each accepted end; and measures the DATA in flight to the
// server (the clients' unacknowledged chunks of 1000 bytes, sampled every
// 5 ms) and the bytes each association delivered between the second and
// the fourth second.
func recvBudgetRun(t *testing.T, n, budget int) recvBudgetResult {
	var res recvBudgetResult
	bubble(t, func(t *testing.T) {
		net := simconn.New(1, simconn.Config{Link: recvBudgetLink, Overhead: 28})
		cb := simSocket(t, net, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", &Config{Limits: Limits{Backlog: n, RecvBudget: budget}}, cb)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs := make([]*Association, n)
		ss := make([]*Association, n)
		for i := range cs {
			ca, err := net.Listen(netip.MustParseAddrPort(fmt.Sprintf("10.0.1.%d:9899", i+1)))
			if err != nil {
				t.Fatal(err)
			}
			e, err := newEndpointOn(netip.Addr{}, &Config{}, ca)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if cs[i], err = e.Dial(ctx, "10.0.0.2:5000"); err != nil {
				t.Fatal(err)
			}
			if ss[i], err = l.AcceptContext(ctx); err != nil {
				t.Fatal(err)
			}
		}
		g := startGreedy(t, cs, ss)
		flight := func() int {
			sum := 0
			for _, c := range cs {
				sum += c.Stats().Unacked * 1000
			}
			return sum
		}
		time.Sleep(2 * time.Second)
		a := g.snap()
		for range 400 { // 2 s
			time.Sleep(5 * time.Millisecond)
			res.maxFlight = max(res.maxFlight, flight())
		}
		b := g.snap()
		g.stop()
		for i := range b {
			res.bytes = append(res.bytes, b[i]-a[i])
		}
	})
	return res
}

// TestRecvBudgetBoundsEndpoint: 8 greedy peers sending to one endpoint
// have together about its Config.Limits.RecvBudget in flight, not 8
// windows (each one's own endpoint and send buffer leave them free to
// send all their window allows), while their links, whose
// bandwidth-delay product is below a share, stay as busy; the same run
// without a receive budget has several times more in flight, queued in
// the links. (Over loopback the endpoint's socket queue is the
// bottleneck: without the budget it overflows and drops DATA.)
func TestRecvBudgetBoundsEndpoint(t *testing.T) {
	const n, budget = 8, 128 << 10
	with := recvBudgetRun(t, n, budget)
	t.Logf("receive budget %d: at most %d bytes in flight; bytes per association %v", budget, with.maxFlight, with.bytes)
	// Each share is 16 KiB; a peer may have one more packet in flight
	// than its window when it had none outstanding.
	if with.maxFlight > budget+n*1500 {
		t.Errorf("%d bytes in flight to the endpoint, receive budget %d", with.maxFlight, budget)
	}
	total := 0
	for i, x := range with.bytes {
		if x == 0 {
			t.Errorf("association %d delivered nothing in 2 s", i)
		}
		total += x
	}
	without := recvBudgetRun(t, n, -1)
	t.Logf("no receive budget: at most %d bytes in flight; bytes per association %v", without.maxFlight, without.bytes)
	if without.maxFlight < 4*budget {
		t.Errorf("without a receive budget only %d bytes were in flight: the run does not test the bound", without.maxFlight)
	}
	totalWithout := 0
	for _, x := range without.bytes {
		totalWithout += x
	}
	if 10*total < 9*totalWithout {
		t.Errorf("%d bytes delivered with the receive budget, %d without: the bound slowed the link", total, totalWithout)
	}
}
