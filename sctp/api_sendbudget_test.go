package sctp

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// budgetLink is a 4 MB/s bottleneck with a 10 ms round trip (a 40 KB
// bandwidth-delay product) and a deep queue: without a bound the senders'
// windows fill the queue.
var budgetLink = simnet.LinkConfig{Delay: 5 * time.Millisecond, Rate: 4e6, QueueBytes: 4 << 20}

// budgetRun is what sendBudgetRun measured.
type budgetRun struct {
	maxUsed int     // largest sum of the associations' send buffers seen after the second second
	bytes   []int   // bytes each association delivered in the measured span
	spread  float64 // largest relative difference from the mean of bytes
}

// sendBudgetRun dials n associations from one endpoint whose
// Config.Limits.SendBudget is budget, runs a greedy writer of 1000-byte
// messages on each for 4 simulated seconds over budgetLink, and measures
// the sum
// of their send buffers (sampled every 5 ms) and the bytes each delivered
// between the second and the fourth second.
func sendBudgetRun(t *testing.T, n, budget int) budgetRun {
	var res budgetRun
	bubble(t, func(t *testing.T) {
		net := simconn.New(1, simconn.Config{Link: budgetLink, Overhead: 28})
		ca := simSocket(t, net, "10.0.0.1:9899")
		cb := simSocket(t, net, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", &Config{Limits: Limits{Backlog: n}}, cb)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		e, err := newEndpointOn(netip.Addr{}, &Config{Limits: Limits{SendBudget: budget}}, ca)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs := make([]*Association, n)
		ss := make([]*Association, n)
		for i := range cs {
			if cs[i], err = e.Dial(ctx, "10.0.0.2:5000"); err != nil {
				t.Fatal(err)
			}
			if ss[i], err = l.AcceptContext(ctx); err != nil {
				t.Fatal(err)
			}
		}
		g := startGreedy(t, cs, ss)
		used := func() int {
			e.mu.Lock()
			defer e.mu.Unlock()
			sum := 0
			for a := range e.assocs {
				sum += a.Stats().SendBuffered
			}
			return sum
		}
		time.Sleep(2 * time.Second) // the first association's head start drains
		a := g.snap()
		for range 400 { // 2 s
			time.Sleep(5 * time.Millisecond)
			res.maxUsed = max(res.maxUsed, used())
		}
		b := g.snap()
		g.stop()
		total := 0
		for i := range b {
			res.bytes = append(res.bytes, b[i]-a[i])
			total += b[i] - a[i]
		}
		if total == 0 {
			t.Fatal("nothing delivered")
		}
		mean := float64(total) / float64(n)
		for _, x := range res.bytes {
			res.spread = max(res.spread, abs(float64(x)-mean)/mean)
		}
	})
	return res
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestSendBudgetBoundsEndpoint: 8 greedy associations of one endpoint hold
// together about Config.Limits.SendBudget in their send buffers (plus a
// message each), not 8 send buffers, and share the bottleneck evenly; the
// same run without a budget holds several times more. (The data written
// and not acknowledged stays what one association holds, so it stays in
// the CPU's caches.)
func TestSendBudgetBoundsEndpoint(t *testing.T) {
	const n, budget = 8, 128 << 10
	with := sendBudgetRun(t, n, budget)
	t.Logf("budget %d: at most %d bytes held; bytes per association %v (spread %.1f%%)", budget, with.maxUsed, with.bytes, 100*with.spread)
	if with.maxUsed > budget+n*1000 {
		t.Errorf("the associations held %d bytes together, budget %d", with.maxUsed, budget)
	}
	if with.spread > 0.1 {
		t.Errorf("bytes per association %v: %.1f%% from the mean, want within 10%%", with.bytes, 100*with.spread)
	}
	without := sendBudgetRun(t, n, -1)
	t.Logf("no budget: at most %d bytes held; bytes per association %v (spread %.1f%%)", without.maxUsed, without.bytes, 100*without.spread)
	if without.maxUsed < 2*budget {
		t.Errorf("without a budget the associations held only %d bytes: the run does not test the bound", without.maxUsed)
	}
}
