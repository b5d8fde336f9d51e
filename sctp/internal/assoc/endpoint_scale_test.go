package assoc

import (
	"fmt"
	"testing"
)

// addIdle sets up n more associations between the pair's endpoints (from
// local ports 6000 and up of side 0), completes their handshakes and
// leaves them idle.
func (p *corePair) addIdle(tb testing.TB, n int) {
	tb.Helper()
	for i := range n {
		if _, err := p.eps[0].connect(p.now, p.addrs[1], uint16(6000+i), 5001); err != nil {
			tb.Fatal(err)
		}
		if i%8 == 7 { // within the endpoint's ring of stateless replies
			p.pump()
			p.pump()
		}
	}
	for range 10 {
		p.pump()
	}
	for _, ep := range p.eps {
		for {
			if ep.NextEvent() == nil {
				break
			}
		}
	}
	if got := len(p.eps[1].assocs); got != n+1 {
		tb.Fatalf("side 1 holds %d associations, want %d", got, n+1)
	}
	for _, a := range p.eps[0].assocs {
		if a.state != stateEstablished {
			tb.Fatalf("association %v: state %v", a.key, a.state)
		}
	}
}

// BenchmarkCorePairAmongIdle is BenchmarkCorePair1452 on endpoints that
// also hold 0, 1,000 or 10,000 idle associations: demultiplexing (hash
// maps by addresses and by verification tag), the timer heap and the
// ready list must keep the cost per message flat. The idle associations'
// heartbeats (one per 30 s of the virtual clock each) are part of it.
func BenchmarkCorePairAmongIdle(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("idle=%d", n), func(b *testing.B) {
			p := newCorePair(b)
			p.addIdle(b, n)
			benchCorePair(b, p)
		})
	}
}

// TestIdleAssociationsCostNoTimerWork: 10,000 established, idle
// associations on one endpoint leave nothing due until their heartbeats:
// the endpoint's next deadline is the earliest association's, and no
// association is visited for a tick in between (timers are a heap, not a
// walk over all associations).
func TestIdleAssociationsCostNoTimerWork(t *testing.T) {
	p := newCorePair(t)
	p.addIdle(t, 10000)
	for _, ep := range p.eps {
		if ep.timerq.h.Len() > len(ep.assocs) {
			t.Fatalf("timer heap holds %d entries for %d associations", ep.timerq.h.Len(), len(ep.assocs))
		}
		d := ep.Deadline()
		if d.IsZero() {
			continue
		}
		// Every entry's deadline is at or after the head's.
		for i := range ep.timerq.h.Len() {
			if a := ep.timerq.h.At(i).Val; a.heapAt.Before(d) {
				t.Fatalf("association due at %v before the endpoint's deadline %v", a.heapAt, d)
			}
		}
	}
}

// TestExpiredListsOnlyDueAssociations: Changed lists the associations
// whose timers Expire ran, so that the shell wakes only their goroutines;
// at the earliest deadline of 101 associations that is not all of them.
func TestExpiredListsOnlyDueAssociations(t *testing.T) {
	p := newCorePair(t)
	p.addIdle(t, 100)
	ep := p.eps[0]
	d := ep.Deadline()
	if d.IsZero() {
		t.Fatal("no deadline with 101 associations")
	}
	var due []*Assoc
	for _, a := range ep.assocs {
		if a.heapIdx >= 0 && !a.heapAt.After(d) {
			due = append(due, a)
		}
	}
	ep.Changed() // what setting them up reached
	ep.Expire(d)
	got := ep.Changed()
	if len(got) != len(due) || len(got) == 0 || len(got) == len(ep.assocs) {
		t.Fatalf("Changed lists %d associations, %d were due, of %d", len(got), len(due), len(ep.assocs))
	}
	for _, a := range due {
		found := false
		for _, b := range got {
			found = found || a == b
		}
		if !found {
			t.Fatalf("due association %v not listed", a.key)
		}
	}
}
