package transfer

import (
	"errors"
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
)

// fillSender queues size-byte messages on stream 0 until the sender
// refuses one, and returns how many it took. A refusal must say
// ErrWouldBlock and leave Room below the message.
func fillSender(t *testing.T, x *tx, size int) int {
	t.Helper()
	msg := make([]byte, size)
	for n := 0; ; n++ {
		err := x.e.send.enqueue(0, 0, false, msg)
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrWouldBlock) {
			t.Fatalf("Queue: %v, want ErrWouldBlock", err)
		}
		if r := x.e.send.queue.room(); r >= size {
			t.Fatalf("Queue refused a %d-byte message with Room %d", size, r)
		}
		return n
	}
}

// ackAll sends everything x holds and acknowledges it.
func ackAll(t *testing.T, x *tx) {
	t.Helper()
	for x.e.send.queue.buffered > 0 {
		tsns := x.flush()
		if len(tsns) == 0 {
			t.Fatalf("%d bytes held and nothing to send", x.e.send.queue.buffered)
		}
		x.mustSACK(tsns[len(tsns)-1], api.DefaultBuffer)
	}
}

// checkBudget checks that the budget counts what the senders hold.
func checkBudget(t *testing.T, b *SendBudget, xs []*tx) {
	t.Helper()
	used, active := 0, 0
	for _, x := range xs {
		if n := x.e.send.queue.buffered; n > 0 {
			used += n
			active++
		}
	}
	if b.Used() != used || b.Active() != active {
		t.Fatalf("budget used %d by %d senders; they hold %d, %d of them", b.Used(), b.Active(), used, active)
	}
}

// TestSendBudgetShared: senders sharing an endpoint SendBudget hold
// together about the limit; a lone sender may use all of it, a newcomer
// gets its fair share while the one that filled the budget first waits,
// acknowledgements give the bytes back, and leaveBudget returns what an
// ended association held.
func TestSendBudgetShared(t *testing.T) {
	const limit, size = 64 << 10, 1000
	b := NewSendBudget(limit)
	var xs []*tx
	for range 3 {
		xs = append(xs, newTx(t, Config{SendBudget: b}))
	}
	// A lone sender takes the whole budget, not more.
	n0 := fillSender(t, xs[0], size)
	if got := xs[0].e.send.queue.buffered; got > limit || got <= limit-size {
		t.Fatalf("a lone sender holds %d bytes (%d messages) of a %d-byte budget", got, n0, limit)
	}
	checkBudget(t, b, xs)
	// A newcomer is under its fair share (half): it fills up to it, past
	// the limit, while the first one is refused.
	n1 := fillSender(t, xs[1], size)
	if got := xs[1].e.send.queue.buffered; got > limit/2 || got <= limit/2-size {
		t.Fatalf("the second sender holds %d bytes (%d messages); its fair share is %d", got, n1, limit/2)
	}
	if err := xs[0].e.send.enqueue(0, 0, false, make([]byte, size)); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("the sender above its share queued past the budget: %v", err)
	}
	checkBudget(t, b, xs)
	// A third: its share is a third.
	n2 := fillSender(t, xs[2], size)
	if got := xs[2].e.send.queue.buffered; got > limit/3 || got <= limit/3-size {
		t.Fatalf("the third sender holds %d bytes (%d messages); its fair share is %d", got, n2, limit/3)
	}
	if b.Used() > 2*limit {
		t.Fatalf("the senders hold %d bytes together, budget %d", b.Used(), limit)
	}
	checkBudget(t, b, xs)
	// The first sender's data is sent and acknowledged: its bytes come
	// back, and it queues again up to its share only (the others hold
	// more than the limit leaves).
	ackAll(t, xs[0])
	if xs[0].e.send.queue.buffered != 0 {
		t.Fatalf("%d bytes held after everything was acknowledged", xs[0].e.send.queue.buffered)
	}
	checkBudget(t, b, xs)
	fillSender(t, xs[0], size)
	if got := xs[0].e.send.queue.buffered; got > limit/3 || got <= limit/3-size {
		t.Fatalf("the first sender refilled to %d bytes; its fair share is %d", got, limit/3)
	}
	checkBudget(t, b, xs)
	// An ended association gives back what it held.
	held := xs[1].e.send.queue.buffered
	used := b.Used()
	xs[1].e.send.queue.leaveBudget()
	if b.Used() != used-held || b.Active() != 2 {
		t.Fatalf("after leaveBudget: used %d (was %d, the sender held %d), %d active", b.Used(), used, held, b.Active())
	}
	xs[1].e.Drain(nil) // releases nothing twice
	if b.Used() != used-held {
		t.Fatalf("Drain after leaveBudget changed the budget: used %d", b.Used())
	}
	xs[2].e.Drain(nil)
	xs[0].e.Drain(nil)
	if b.Used() != 0 || b.Active() != 0 {
		t.Fatalf("budget used %d by %d senders after every sender drained", b.Used(), b.Active())
	}
}

// TestSendBudgetLoneSenderUnchanged: with a budget at least its send
// buffer, one association is bound by its send buffer exactly as without
// a budget (the single-association fast path keeps its buffer).
func TestSendBudgetLoneSenderUnchanged(t *testing.T) {
	const buf, size = 100 << 10, 1452
	a := newTx(t, Config{Buffers: api.Buffers{SendBuffer: buf}})
	b := newTx(t, Config{Buffers: api.Buffers{SendBuffer: buf}, SendBudget: NewSendBudget(2 * buf)})
	na, nb := fillSender(t, a, size), fillSender(t, b, size)
	if na != nb || a.e.send.queue.room() != b.e.send.queue.room() || a.e.send.queue.capacity() != b.e.send.queue.capacity() {
		t.Fatalf("without budget %d messages, room %d, capacity %d; with one %d, %d, %d",
			na, a.e.send.queue.room(), a.e.send.queue.capacity(), nb, b.e.send.queue.room(), b.e.send.queue.capacity())
	}
}

// TestSendBudgetNoAllocs: queueing and releasing under a budget
// allocates nothing once warm.
func TestSendBudgetNoAllocs(t *testing.T) {
	bud := NewSendBudget(1 << 20)
	x := newTx(t, Config{SendBudget: bud})
	y := newTx(t, Config{SendBudget: bud})
	y.queue(1, 100) // a second active sender: the fair-share branch
	msg := make([]byte, 1000)
	sack := &SACK{ARwnd: api.DefaultBuffer}
	step := func() {
		if err := x.e.send.enqueue(0, 0, false, msg); err != nil {
			t.Fatal(err)
		}
		if _, n := x.e.AppendData(x.now, x.pkt[:0], x.e.path.MTU()-12); n != 1 {
			t.Fatalf("%d chunks sent", n)
		}
		sack.CumTSNAck = x.e.NextTSN() - 1
		if _, err := x.e.HandleSACK(x.now, sack); err != nil {
			t.Fatal(err)
		}
		if bud.Used() != 100 {
			t.Fatalf("budget used %d", bud.Used())
		}
	}
	step()
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
}

// TestSendBudgetBusyAmongIdle: one busy sender among several that hold a
// small message each (a server's chatty associations) gets about half the
// budget, not a fair share of it.
func TestSendBudgetBusyAmongIdle(t *testing.T) {
	const limit, size = 256 << 10, 1000
	b := NewSendBudget(limit)
	var xs []*tx
	for range 8 {
		xs = append(xs, newTx(t, Config{SendBudget: b}))
	}
	for _, x := range xs[1:] {
		x.queue(1, 100)
	}
	fillSender(t, xs[0], size)
	checkBudget(t, b, xs)
	if got := xs[0].e.send.queue.buffered; got < limit/2-size || got > limit {
		t.Fatalf("the busy sender holds %d bytes of a %d-byte budget, the 7 others 700", got, limit)
	}
}
