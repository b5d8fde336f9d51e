package simnet

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// drain pops everything, advancing the clock, and returns the packets'
// first bytes and delivery offsets.
func drain(n *Network) (ids []byte, at []time.Duration) {
	for {
		next, ok := n.Next()
		if !ok {
			return
		}
		p := n.Pop(next)
		ids = append(ids, p.Data[0])
		at = append(at, p.At.Sub(t0))
		n.Free(p)
	}
}

func TestDelayAndFIFO(t *testing.T) {
	n := New(1)
	l := n.AddLink(LinkConfig{Delay: 10 * time.Millisecond, Jitter: 5 * time.Millisecond})
	for i := range 100 {
		n.Send(t0.Add(time.Duration(i)*100*time.Microsecond), l, []byte{byte(i)})
	}
	ids, at := drain(n)
	if len(ids) != 100 {
		t.Fatalf("%d delivered", len(ids))
	}
	for i := range ids {
		if ids[i] != byte(i) {
			t.Fatalf("jitter reordered: position %d holds %d", i, ids[i])
		}
		min := 10*time.Millisecond + time.Duration(i)*100*time.Microsecond
		if at[i] < min || at[i] > min+15*time.Millisecond {
			t.Fatalf("packet %d at %v, want in [%v, %v]", i, at[i], min, min+15*time.Millisecond)
		}
	}
	if p := n.Pop(t0.Add(time.Hour)); p != nil {
		t.Fatal("packet left after draining")
	}
}

func TestLossDupReorderRates(t *testing.T) {
	n := New(7)
	l := n.AddLink(LinkConfig{Delay: time.Millisecond, Loss: 0.1, Dup: 0.05, Reorder: 0.05})
	const N = 20000
	for i := range N {
		n.Send(t0.Add(time.Duration(i)*time.Microsecond), l, []byte{byte(i)})
	}
	st := n.Link(l).Stats
	check := func(name string, got uint64, p float64) {
		want := p * N
		if math.Abs(float64(got)-want) > 5*math.Sqrt(want) {
			t.Errorf("%s: %d, want about %.0f", name, got, want)
		}
	}
	check("lost", st.Lost, 0.1)
	check("duplicated", st.Duplicated, 0.05*0.9)
	ids, _ := drain(n)
	if uint64(len(ids)) != st.Sent-st.Lost+st.Duplicated {
		t.Fatalf("delivered %d, want sent-lost+dup %d", len(ids), st.Sent-st.Lost+st.Duplicated)
	}
	inversions := 0
	for i := 1; i < len(ids); i++ {
		if ids[i] < ids[i-1] && ids[i-1]-ids[i] < 128 {
			inversions++
		}
	}
	if inversions == 0 {
		t.Error("no reordering")
	}
}

func TestMTUAndRate(t *testing.T) {
	n := New(3)
	l := n.AddLink(LinkConfig{Delay: time.Millisecond, MTU: 100, Rate: 1000 * 1000, QueueBytes: 250})
	n.Send(t0, l, make([]byte, 101))
	if n.Link(l).Stats.TooBig != 1 || n.InFlight() != 0 {
		t.Fatal("oversized packet not dropped")
	}
	for range 5 {
		n.Send(t0, l, make([]byte, 100)) // 100 µs each at 1 MB/s
	}
	st := n.Link(l).Stats
	if st.QueueDrops != 2 { // 0, 100 and 200 bytes ahead fit under 250
		t.Fatalf("queue drops %d, want 2 (queue of 250 bytes)", st.QueueDrops)
	}
	_, at := drain(n)
	for i, a := range at {
		if want := time.Millisecond + time.Duration(i+1)*100*time.Microsecond; a != want {
			t.Fatalf("packet %d at %v, want %v", i, a, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	run := func() []time.Duration {
		n := New(42)
		l := n.AddLink(LinkConfig{Delay: 5 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.2, Dup: 0.1, Reorder: 0.1})
		for i := range 1000 {
			n.Send(t0.Add(time.Duration(i)*time.Millisecond), l, []byte{byte(i)})
		}
		_, at := drain(n)
		return at
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatal("runs differ in length")
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at %d", i)
		}
	}
}

func TestNoAllocsSteadyState(t *testing.T) {
	n := New(1)
	l := n.AddLink(LinkConfig{Delay: time.Millisecond})
	pkt := make([]byte, 1200)
	now := t0
	for range 100 {
		n.Send(now, l, pkt)
	}
	drain(n)
	allocs := testing.AllocsPerRun(1000, func() {
		n.Send(now, l, pkt)
		next, _ := n.Next()
		n.Free(n.Pop(next))
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per packet", allocs)
	}
}
