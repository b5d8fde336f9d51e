package transfer

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// testHoleMin is the smallest payload the tests leave as a hole.
const testHoleMin = 512

// holePair runs two identical memPairs side by side: flat builds its
// packets with AppendData, gath with AppendDataHoles into a buffer of
// stale bytes. The packets, holes filled, must be the same bytes.
type holePair struct {
	flat, gath *memPair
	buf        []byte
	holes      []chunk.Hole
	stale      []byte
}

func newHolePair(tb testing.TB, interleaved bool) *holePair {
	mk := newMemPair
	if interleaved {
		mk = newIMemPair
	}
	h := &holePair{flat: mk(tb), gath: mk(tb), buf: make([]byte, 0, 1<<17), holes: make([]chunk.Hole, 0, 8),
		stale: make([]byte, 1<<17)}
	h.flat.pkt = make([]byte, 0, 1<<17)
	h.flat.rbuf, h.gath.rbuf = make([]byte, 1<<18), make([]byte, 1<<18)
	for i := range h.stale {
		h.stale[i] = byte(i*7 + 1)
	}
	return h
}

// queue queues the same message on both senders.
func (h *holePair) queue(tb testing.TB, sid uint16, msg []byte) {
	e1 := h.flat.a.Queue(h.flat.now, sid, 0, false, msg, PR{})
	e2 := h.gath.a.Queue(h.gath.now, sid, 0, false, msg, PR{})
	if (e1 == nil) != (e2 == nil) {
		tb.Fatalf("Queue: %v flat, %v with holes", e1, e2)
	}
}

// packet builds the next packet of both senders within room and checks
// they are the same; it returns the packet (nil when none) and the holes.
func (h *holePair) packet(tb testing.TB, room int) ([]byte, []chunk.Hole) {
	want, n1 := h.flat.a.AppendData(h.flat.now, h.flat.pkt[:0], room)
	b := append(h.buf[:0], h.stale[:cap(h.buf)]...)[:0]
	got, n2, holes := h.gath.a.AppendDataHoles(h.gath.now, b, room, h.holes[:0], testHoleMin, testHoleMin)
	if n1 != n2 || len(got) != len(want) {
		tb.Fatalf("%d chunks of %d bytes flat, %d of %d with holes", n1, len(want), n2, len(got))
	}
	if n1 == 0 {
		return nil, nil
	}
	for _, hl := range holes {
		if len(hl.Data) < testHoleMin {
			tb.Fatalf("a hole of %d bytes, below the minimum", len(hl.Data))
		}
	}
	return got, holes
}

// check fills the holes of got and compares it with the flat packet.
func (h *holePair) check(tb testing.TB, got []byte, holes []chunk.Hole) {
	chunk.FillHoles(got, holes)
	if want := h.flat.pkt[:len(got)]; !bytes.Equal(got, want) {
		tb.Fatalf("packet with holes filled differs from the flat one (%d bytes, %d holes)", len(got), len(holes))
	}
}

// TestHolesMatchCopies sends random messages over random packet sizes,
// DATA and I-DATA, with losses (so retransmissions carry holes too), and
// checks every packet built with holes against the one built by copying.
func TestHolesMatchCopies(t *testing.T) {
	for _, interleaved := range []bool{false, true} {
		r := rand.New(rand.NewPCG(35, 2))
		h := newHolePair(t, interleaved)
		packets, holes := 0, 0
		for round := range 3000 {
			for range r.IntN(4) {
				msg := make([]byte, 1+r.IntN(1<<r.IntN(17)))
				for i := range msg {
					msg[i] = byte(r.Uint32())
				}
				h.queue(t, uint16(r.IntN(10)), msg)
			}
			room := []int{508, 1452 - 12, 9000 - 40, 65535 - 48}[r.IntN(4)]
			for {
				got, hs := h.packet(t, room)
				if got == nil {
					break
				}
				h.check(t, got, hs)
				packets++
				holes += len(hs)
				h.flat.a.ReleaseHeld()
				h.gath.a.ReleaseHeld()
				if r.IntN(20) == 0 {
					continue // lost
				}
				h.flat.deliver(t, h.flat.pkt[:len(got)])
				h.gath.deliver(t, got)
			}
			for _, m := range []*memPair{h.flat, h.gath} {
				for {
					if _, _, err := m.b.Read(m.rbuf); err != nil {
						break
					}
				}
				m.ack(t)
				m.now = m.now.Add(time.Duration(1+round%7) * 50 * time.Millisecond)
				if d := m.a.Deadline(); !d.IsZero() && !m.now.Before(d) {
					m.a.OnTimeout(m.now)
				}
			}
		}
		t.Logf("interleaved %v: %d packets, %d holes", interleaved, packets, holes)
		if packets < 1000 || holes < 1000 {
			t.Fatalf("interleaved %v: %d packets, %d holes: too few to tell", interleaved, packets, holes)
		}
	}
}

// TestHeldMessageNotReused acknowledges the chunks of a packet with holes
// before the packet is written and queues new messages meanwhile: their
// bytes must not reach the packet, so the acknowledged messages are
// reused only after ReleaseHeld.
func TestHeldMessageNotReused(t *testing.T) {
	h := newHolePair(t, false)
	one := bytes.Repeat([]byte{1}, 1000)
	for range 50 {
		h.queue(t, 1, one)
		for got, hs := h.packet(t, 1452-12); got != nil; got, hs = h.packet(t, 1452-12) {
			h.check(t, got, hs)
			h.flat.a.ReleaseHeld()
			h.gath.a.ReleaseHeld()
			h.flat.deliver(t, got)
			h.gath.deliver(t, got)
		}
		h.flat.ack(t)
		h.gath.ack(t)
	}
	// The free lists hold messages now. One more packet, acknowledged
	// before it is written.
	h.queue(t, 1, one)
	h.queue(t, 2, one)
	got, hs := h.packet(t, 1452-12)
	if len(hs) == 0 {
		t.Fatal("no holes")
	}
	h.flat.deliver(t, h.flat.pkt[:len(got)])
	h.gath.deliver(t, h.flat.pkt[:len(got)])
	h.flat.ack(t)
	h.gath.ack(t)
	two := bytes.Repeat([]byte{2}, 1000)
	for range 4 {
		h.queue(t, 3, two) // would take the acknowledged messages' buffers
	}
	h.check(t, got, hs)
	// The same steps after ReleaseHeld reuse a buffer of the packet: the
	// check above fails without the deferral.
	h.gath.a.ReleaseHeld()
	h.queue(t, 4, two)
	chunk.FillHoles(got, hs)
	if bytes.Equal(got, h.flat.pkt[:len(got)]) {
		t.Fatal("no message reused after ReleaseHeld: the test shows nothing")
	}
}
