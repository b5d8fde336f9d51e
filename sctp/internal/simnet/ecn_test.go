package simnet

import (
	"testing"
	"time"
)

// TestECNMarking: a link marks packets sent ECN-capable CE, at random
// (CE) or when the bottleneck queue ahead exceeds MarkQueueBytes, and
// never marks a Not-ECT packet.
func TestECNMarking(t *testing.T) {
	t0 := time.Unix(0, 0)
	n := New(1)
	random := n.AddLink(LinkConfig{Delay: time.Millisecond, CE: 0.5})
	queue := n.AddLink(LinkConfig{Delay: time.Millisecond, Rate: 1000, MarkQueueBytes: 250})
	pkt := make([]byte, 100)
	for range 100 {
		n.SendECN(t0, random, pkt, 2)
		n.SendECN(t0, random, pkt, 0)
	}
	for range 10 {
		n.SendECN(t0, queue, pkt, 2) // 100 ms each at 1000 B/s
	}
	ce := map[int][2]int{} // link -> marked ECT, marked Not-ECT
	for p := n.Pop(t0.Add(time.Hour)); p != nil; p = n.Pop(t0.Add(time.Hour)) {
		c := ce[p.Link]
		if p.ECN == 3 {
			c[0]++
		}
		if p.ECN == 0 {
			c[1]++
		}
		ce[p.Link] = c
		n.Free(p)
	}
	if r := ce[random]; r[0] < 30 || r[0] > 70 || r[1] != 100 {
		t.Errorf("random link: %d of 100 ECT packets marked, %d of 100 Not-ECT unmarked", r[0], r[1])
	}
	// The first three find at most 200 bytes ahead; the other seven more.
	if q := ce[queue]; q[0] != 7 {
		t.Errorf("queue link: %d marked, want 7", q[0])
	}
	if m := n.Link(random).Stats.Marked + n.Link(queue).Stats.Marked; m != uint64(ce[random][0]+ce[queue][0]) {
		t.Errorf("Stats.Marked %d", m)
	}
}
