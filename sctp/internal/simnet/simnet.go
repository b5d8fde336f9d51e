// Package simnet is a deterministic simulated network for tests: a
// discrete-event model of one-way links with delay, jitter, loss,
// duplication, reordering, an MTU and optionally a bottleneck rate with a
// bounded queue, all driven by a seeded PRNG and a virtual clock.
//
// It holds no goroutine and no clock: a packet goes in with the current
// (virtual) time and comes out of Pop with its delivery time, so two
// sans-I/O cores can be joined in a simple event loop:
//
//	n := simnet.New(seed)
//	ab := n.AddLink(simnet.LinkConfig{Delay: 20 * time.Millisecond, Loss: 0.01})
//	n.Send(now, ab, pkt)
//	for p := n.Pop(now); p != nil; p = n.Pop(now) { ...; n.Free(p) }
//	next, ok := n.Next() // the next delivery time
//
// The same run with the same seed and inputs produces the same packets at
// the same times. For goroutine code (a whole association with its
// goroutines, under testing/synctest), package simconn joins packet
// connections through a Network.
package simnet

import (
	"container/heap"
	"math/rand/v2"
	"time"
)

// LinkConfig describes a one-way link.
type LinkConfig struct {
	// Delay is the base one-way propagation delay.
	Delay time.Duration
	// Jitter adds a uniformly distributed extra delay in [0, Jitter).
	// The link stays first-in first-out (a packet is never delivered
	// before one sent earlier) unless Reorder picks it.
	Jitter time.Duration
	// Loss is the probability that a packet is dropped.
	Loss float64
	// Dup is the probability that a packet is delivered twice (the copy
	// takes its own delay).
	Dup float64
	// Reorder is the probability that a packet is held back an extra
	// ReorderDelay (default 2*Delay+1ms), so later packets overtake it.
	Reorder      float64
	ReorderDelay time.Duration
	// MTU drops packets longer than it; 0 means no limit. A packet sent
	// with SendFragmentable passes whole instead (as if the IP layer had
	// fragmented it and the receiver reassembled it).
	MTU int
	// PTB sends a Packet Too Big notice back for each packet the MTU
	// drops: Pop returns it, after Delay, with TooBig set, the MTU in
	// PTBMTU (MTU when zero, so that a test can forge other values) and
	// the dropped packet's first QuoteLen bytes (all when zero) in Data.
	PTB      bool
	PTBMTU   int
	QuoteLen int
	// Rate is the bottleneck rate in bytes per second; 0 means infinite.
	// With a rate, packets queue behind each other (serialization delay)
	// and a packet finding more than QueueBytes ahead of it is dropped.
	Rate       int64
	QueueBytes int
	// ECN marking (RFC 3168) of packets sent ECN-capable (ECT(0) or
	// ECT(1), SendECN): CE is the probability that one is marked CE, and
	// with a Rate, MarkQueueBytes marks every one that finds more than
	// that many bytes queued ahead of it (a step threshold, as an AQM
	// that marks instead of dropping); 0 disables either. Packets sent
	// Not-ECT are never marked.
	CE             float64
	MarkQueueBytes int
}

// LinkStats counts what a link did.
type LinkStats struct {
	Sent, Delivered, Lost, Duplicated, Reordered, TooBig, QueueDrops uint64
	Bytes                                                            uint64
	Marked                                                           uint64 // packets marked CE
	// Fragmented counts packets over the MTU that SendFragmentable let
	// through; PTBs the Packet Too Big notices sent.
	Fragmented, PTBs uint64
}

// Link is one direction between two endpoints.
type Link struct {
	cfg   LinkConfig
	busy  time.Time // the bottleneck is busy until then
	last  time.Time // latest in-order delivery time so far
	Stats LinkStats
}

// Packet is a packet in flight or delivered.
type Packet struct {
	// At is the delivery time.
	At time.Time
	// Link is the link the packet travelled.
	Link int
	// Data is the packet's bytes, owned by the network until Free.
	Data []byte
	// ECN is the IP ECN field on delivery: what SendECN was given, or
	// CE (3) if the link marked the packet.
	ECN uint8
	// TooBig marks a Packet Too Big notice about a packet sent on Link
	// (LinkConfig.PTB): Data is the quote, MTU the reported MTU. It goes
	// back to the sender of the quoted packet.
	TooBig bool
	MTU    int
	seq    uint64
}

// Network is a set of links and the packets in flight on them.
type Network struct {
	rng   *rand.Rand
	links []*Link
	q     pq
	seq   uint64
	free  []*Packet
}

// New returns an empty network whose randomness comes from seed.
func New(seed uint64) *Network {
	return &Network{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// AddLink adds a one-way link and returns its id.
func (n *Network) AddLink(cfg LinkConfig) int {
	if cfg.ReorderDelay == 0 {
		cfg.ReorderDelay = 2*cfg.Delay + time.Millisecond
	}
	n.links = append(n.links, &Link{cfg: cfg})
	return len(n.links) - 1
}

// Link returns link id.
func (n *Network) Link(id int) *Link { return n.links[id] }

// SetConfig changes a link's behaviour for packets sent from now on.
func (l *Link) SetConfig(cfg LinkConfig) {
	if cfg.ReorderDelay == 0 {
		cfg.ReorderDelay = 2*cfg.Delay + time.Millisecond
	}
	l.cfg = cfg
}

// Send puts a copy of data on link id at time now, Not-ECT, with the
// Don't Fragment bit: a packet over the link's MTU is dropped.
func (n *Network) Send(now time.Time, id int, data []byte) { n.send(now, id, data, 0, false) }

// SendFragmentable is Send for a packet the IP layer may fragment: it
// passes a link's MTU (counted in LinkStats.Fragmented).
func (n *Network) SendFragmentable(now time.Time, id int, data []byte) {
	n.send(now, id, data, 0, true)
}

// ecnCE is the CE codepoint of the ECN field.
const ecnCE = 3

// SendECN is Send for a packet whose IP ECN field is ecn (0 Not-ECT, 1
// ECT(1), 2 ECT(0), 3 CE).
func (n *Network) SendECN(now time.Time, id int, data []byte, ecn uint8) {
	n.send(now, id, data, ecn, false)
}

// SendECNFragmentable is SendECN for a packet the IP layer may fragment.
func (n *Network) SendECNFragmentable(now time.Time, id int, data []byte, ecn uint8) {
	n.send(now, id, data, ecn, true)
}

func (n *Network) send(now time.Time, id int, data []byte, ecn uint8, frag bool) {
	ecn &= 3
	ect := ecn == 1 || ecn == 2
	l := n.links[id]
	c := &l.cfg
	l.Stats.Sent++
	if c.MTU > 0 && len(data) > c.MTU {
		if !frag {
			l.Stats.TooBig++
			if c.PTB {
				n.ptb(now, id, data)
			}
			return
		}
		l.Stats.Fragmented++
	}
	at := now
	if c.Rate > 0 {
		if l.busy.Before(now) {
			l.busy = now
		}
		ahead := int64(l.busy.Sub(now)) * c.Rate / int64(time.Second)
		if c.QueueBytes > 0 && ahead > int64(c.QueueBytes) {
			l.Stats.QueueDrops++
			return
		}
		if ect && c.MarkQueueBytes > 0 && ahead > int64(c.MarkQueueBytes) {
			ecn = ecnCE
		}
		l.busy = l.busy.Add(time.Duration(int64(len(data)) * int64(time.Second) / c.Rate))
		at = l.busy
	}
	if ect && ecn != ecnCE && c.CE > 0 && n.rng.Float64() < c.CE {
		ecn = ecnCE
	}
	if ect && ecn == ecnCE {
		l.Stats.Marked++
	}
	if c.Loss > 0 && n.rng.Float64() < c.Loss {
		l.Stats.Lost++
		return
	}
	copies := 1
	if c.Dup > 0 && n.rng.Float64() < c.Dup {
		copies = 2
		l.Stats.Duplicated++
	}
	for range copies {
		d := at.Add(c.Delay)
		if c.Jitter > 0 {
			d = d.Add(time.Duration(n.rng.Int64N(int64(c.Jitter))))
		}
		if d.Before(l.last) {
			d = l.last // first in, first out
		}
		if c.Reorder > 0 && n.rng.Float64() < c.Reorder {
			d = d.Add(c.ReorderDelay)
			l.Stats.Reordered++
		} else {
			l.last = d
		}
		p := n.get()
		p.At, p.Link, p.seq, p.ECN, p.TooBig, p.MTU = d, id, n.seq, ecn, false, 0
		p.Data = append(p.Data[:0], data...)
		n.seq++
		heap.Push(&n.q, p)
		l.Stats.Bytes += uint64(len(data))
	}
}

// ptb queues the Packet Too Big notice about data, dropped on link id.
func (n *Network) ptb(now time.Time, id int, data []byte) {
	l := n.links[id]
	c := &l.cfg
	l.Stats.PTBs++
	q := data
	if c.QuoteLen > 0 && len(q) > c.QuoteLen {
		q = q[:c.QuoteLen]
	}
	p := n.get()
	p.At, p.Link, p.seq, p.ECN, p.TooBig, p.MTU = now.Add(c.Delay), id, n.seq, 0, true, c.MTU
	if c.PTBMTU != 0 {
		p.MTU = c.PTBMTU
	}
	p.Data = append(p.Data[:0], q...)
	n.seq++
	heap.Push(&n.q, p)
}

func (n *Network) get() *Packet {
	if k := len(n.free); k > 0 {
		p := n.free[k-1]
		n.free = n.free[:k-1]
		return p
	}
	return &Packet{}
}

// Next returns the delivery time of the earliest packet in flight.
func (n *Network) Next() (time.Time, bool) {
	if len(n.q) == 0 {
		return time.Time{}, false
	}
	return n.q[0].At, true
}

// InFlight returns the number of packets in flight.
func (n *Network) InFlight() int { return len(n.q) }

// Pop removes and returns the earliest packet due at or before now, or nil.
// Packets due at the same time come out in the order they were sent.
// Return it with Free when done.
func (n *Network) Pop(now time.Time) *Packet {
	if len(n.q) == 0 || n.q[0].At.After(now) {
		return nil
	}
	p := heap.Pop(&n.q).(*Packet)
	if !p.TooBig {
		n.links[p.Link].Stats.Delivered++
	}
	return p
}

// Free recycles a packet returned by Pop.
func (n *Network) Free(p *Packet) { n.free = append(n.free, p) }

// pq is a min-heap of packets by delivery time, then sequence.
type pq []*Packet

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	if !q[i].At.Equal(q[j].At) {
		return q[i].At.Before(q[j].At)
	}
	return q[i].seq < q[j].seq
}
func (q pq) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)   { *q = append(*q, x.(*Packet)) }
func (q *pq) Pop() any {
	old := *q
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return p
}
