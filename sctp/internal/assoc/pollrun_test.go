package assoc

import (
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// pollWith polls ep into buf with PollNext when next is set, else with
// Poll, and counts the packets PollNext built in a run.
func (p *pair) pollWith(ep *Endpoint, next bool, buf []byte) (Packet, bool) {
	if !next {
		return ep.Poll(p.now, buf)
	}
	run := ep.run.a
	pk, ok := ep.PollNext(p.now, buf)
	if ok && run != nil && ep.run.a == run {
		p.runs++
	}
	return pk, ok
}

// pairOutcome is what a run of a pair leaves to compare: the hash of its
// result, of every packet sent and of every event, and the counters.
type pairOutcome struct {
	Result, Wire, Trace uint64
	Stats               [2]api.Stats
}

func (p *pair) outcome(result uint64) pairOutcome {
	return pairOutcome{Result: result, Wire: p.wire, Trace: p.trace, Stats: [2]api.Stats{p.eps[0].Stats(), p.eps[1].Stats()}}
}

// TestPollNextEndToEnd runs TestEndToEnd's transfer (messages of many
// sizes on 64 streams both ways, so SACKs bundle with DATA, over lossy
// links, so retransmissions wait) polling with Poll alone, and polling
// with Poll then PollNext as the shell does: the two runs must send the
// same packets, byte for byte, and end with the same counters and events.
// It covers DATA and I-DATA, the schedulers (switched at run time for
// some), Max.Burst, a small receive window, and packets with holes.
func TestPollNextEndToEnd(t *testing.T) {
	loss1 := simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01, Dup: 0.01, Reorder: 0.01}
	loss10 := simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.10, Dup: 0.02, Reorder: 0.05}
	fast := simnet.LinkConfig{Delay: 2 * time.Millisecond, Rate: 50 << 20, QueueBytes: 1 << 20}
	type variant struct {
		name   string
		link   simnet.LinkConfig
		idata  bool
		sched  api.Scheduler
		swap   api.Scheduler // switched to halfway (0: none)
		burst  int
		rwnd   int
		gather bool
	}
	vs := []variant{
		{name: "data-fcfs-loss1", link: loss1},
		{name: "data-fcfs-loss10", link: loss10},
		{name: "data-fcfs-fast", link: fast},
		{name: "idata-rr-loss1", link: loss1, idata: true, sched: api.SchedulerRoundRobin},
		{name: "idata-prio-fast", link: fast, idata: true, sched: api.SchedulerPriority},
		{name: "data-rr-swap-prio", link: loss1, sched: api.SchedulerRoundRobin, swap: api.SchedulerPriority},
		{name: "idata-wfq-swap-rrp", link: fast, idata: true, sched: api.SchedulerWFQ, swap: api.SchedulerRoundRobinPacket},
		{name: "data-fc-swap-fcfs", link: loss1, sched: api.SchedulerFairCapacity, swap: api.SchedulerFCFS},
		{name: "data-burst1-fast", link: fast, burst: 1},
		{name: "data-rwnd-fast", link: fast, rwnd: 24 << 10},
		{name: "data-gather-loss1", link: loss1, gather: true},
		{name: "idata-gather-rwnd", link: fast, idata: true, gather: true, rwnd: 24 << 10},
	}
	msgs := 400
	if testing.Short() {
		msgs = 150
	}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			var out [2]pairOutcome
			runs := 0
			for i, next := range []bool{false, true} {
				var p *pair
				r := runEndToEndWith(t, 3, v.link, msgs, func(q *pair) {
					p = q
					p.next, p.gather = next, v.gather
					for _, ep := range p.eps {
						ep.cfg.Interleaving = v.idata
						if v.sched != 0 {
							ep.cfg.Scheduler = v.sched
						}
						if v.burst > 0 {
							ep.cfg.MaxBurst = v.burst
						}
						if v.rwnd > 0 {
							ep.cfg.RecvBuffer = v.rwnd
						}
					}
					p.connect()
					for sid := range uint16(64) {
						// Priorities and weights by stream, for the
						// schedulers that use them.
						p.as[0].SetStreamValue(sid, 1+sid%5)
					}
					if v.swap != 0 {
						p.onStep = func(p *pair) {
							if p.steps == 200 {
								for _, a := range p.as {
									if err := a.SetScheduler(v.swap); err != nil {
										t.Fatal(err)
									}
								}
							}
						}
					}
				})
				out[i] = p.outcome(r)
				runs = p.runs
			}
			if !reflect.DeepEqual(out[0], out[1]) {
				t.Fatalf("Poll and PollNext differ:\n%+v\n%+v", out[0], out[1])
			}
			if runs < 50 {
				t.Fatalf("%d packets built in runs: too few to tell", runs)
			}
			t.Logf("%d packets built in runs", runs)
		})
	}
}

// TestPollNextPartialReliability runs TestEndToEndPartialReliability's
// transfer (messages given up by lifetime and by retransmission count,
// FORWARD TSNs over a lossy link) with Poll and with PollNext: the same
// packets, counters and events.
func TestPollNextPartialReliability(t *testing.T) {
	link := simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.08, Dup: 0.01,
		Reorder: 0.02, Rate: 2 << 20, QueueBytes: 64 << 10}
	for _, il := range []bool{false, true} {
		t.Run(fmt.Sprint("interleave=", il), func(t *testing.T) {
			a := runPRWith(t, link, il, false)
			b := runPRWith(t, link, il, true)
			if !reflect.DeepEqual(a.outcome(0), b.outcome(0)) {
				t.Fatalf("Poll and PollNext differ:\n%+v\n%+v", a.outcome(0), b.outcome(0))
			}
			if b.runs < 50 {
				t.Fatalf("%d packets built in runs: too few to tell", b.runs)
			}
		})
	}
}

// twinBulk is a corePair whose packets are recorded: bulk 64 KiB messages
// on two associations between the same endpoints, both ways, with
// packets dropped as drop says.
type twinBulk struct {
	p     *corePair
	extra [2]*Assoc // the second association, from side 0 and at side 1
	next  bool
	drop  func(side, n int) bool
	h     [2]uint64 // hash of the packets each side sent
	runs  int
	sent  [2]int
	msg   []byte
}

func newTwinBulk(t *testing.T, next bool, adj func(*Config)) *twinBulk {
	p := newCorePairAt(t, t0, adj)
	w := &twinBulk{p: p, next: next, msg: make([]byte, 64<<10)}
	a, err := p.eps[0].connect(p.now, p.addrs[1], 6000, 6001)
	if err != nil {
		t.Fatal(err)
	}
	w.extra[0] = a
	for range 10 {
		w.pump()
	}
	for _, b := range p.eps[1].assocs {
		if b != p.as[1] {
			w.extra[1] = b
		}
	}
	if w.extra[1] == nil || a.state != stateEstablished {
		t.Fatal("no second association")
	}
	for i := range w.msg {
		w.msg[i] = byte(i * 7)
	}
	return w
}

// pump is corePair.pump with every packet hashed and some dropped.
func (w *twinBulk) pump() {
	p := w.p
	for i := range 2 {
		p.eps[1-i].BeginBatch()
		for n := 0; n < 64; n++ {
			var po Packet
			var ok bool
			if n == 0 || !w.next {
				po, ok = p.eps[i].Poll(p.now, p.buf[:0])
			} else {
				run := p.eps[i].run.a
				po, ok = p.eps[i].PollNext(p.now, p.buf[:0])
				if ok && run != nil && p.eps[i].run.a == run {
					w.runs++
				}
			}
			if !ok {
				break
			}
			h := fnv.New64a()
			fmt.Fprint(h, po.To, po.ECN, po.MayFragment)
			h.Write(po.Data)
			w.h[i] = w.h[i]*31 + h.Sum64()
			w.sent[i]++
			if w.drop != nil && w.drop(i, w.sent[i]) {
				continue
			}
			p.eps[1-i].receive(p.now, p.addrs[i], po.Data)
		}
		p.eps[1-i].EndBatch()
	}
	for _, a := range []*Assoc{p.as[1], w.extra[1], p.as[0], w.extra[0]} {
		for a != nil && a.data.eng != nil && a.data.eng.Readable() {
			if _, _, err := a.read(p.rbuf); err != nil {
				panic(err)
			}
		}
	}
	p.now = p.now.Add(2 * time.Millisecond)
	for _, ep := range p.eps {
		if d := ep.Deadline(); !d.IsZero() && !d.After(p.now) {
			ep.Expire(p.now)
		}
		for ep.NextEvent() != nil {
		}
	}
}

// TestPollNextBulk moves 64 KiB messages on two associations of the same
// endpoints (side 1 sending some back, so SACKs bundle), dropping some
// packets (retransmissions wait, fast and after T3-rtx) under windows
// that end runs midway (cwnd, a small receive window, Max.Burst), and
// with Poll alone and with PollNext: the same packets and counters.
func TestPollNextBulk(t *testing.T) {
	for _, tt := range []struct {
		name string
		adj  func(*Config)
		drop func(side, n int) bool
	}{
		{name: "clean"},
		{name: "loss", drop: func(side, n int) bool { return side == 0 && n%37 == 5 || side == 1 && n%11 == 3 }},
		{name: "burst-loss", adj: func(c *Config) { c.MaxBurst = 2 }, drop: func(side, n int) bool { return n%53 == 7 }},
		{name: "rwnd", adj: func(c *Config) { c.RecvBuffer = 20 << 10 }},
		{name: "idata-rr-loss", adj: func(c *Config) { c.Interleaving = true; c.Scheduler = api.SchedulerRoundRobin },
			drop: func(side, n int) bool { return n%29 == 1 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ws [2]*twinBulk
			for i, next := range []bool{false, true} {
				w := newTwinBulk(t, next, tt.adj)
				w.drop = tt.drop
				p := w.p
				for round := range 400 {
					for k, a := range []*Assoc{p.as[0], w.extra[0], p.as[1]} {
						if k == 2 && round%3 != 0 {
							continue // side 1 sends less
						}
						sid := uint16(round % 3)
						if err := a.send(p.now, sid, 0, false, w.msg[:len(w.msg)-k*1000]); err != nil && !errors.Is(err, api.ErrWouldBlock) {
							t.Fatal(err)
						}
					}
					w.pump()
				}
				ws[i] = w
			}
			a, b := ws[0], ws[1]
			if a.h != b.h || a.sent != b.sent {
				t.Fatalf("Poll and PollNext differ: packets %v %x vs %v %x", a.sent, a.h, b.sent, b.h)
			}
			for s := range 2 {
				if sa, sb := a.p.eps[s].Stats(), b.p.eps[s].Stats(); !reflect.DeepEqual(sa, sb) {
					t.Fatalf("side %d counters differ:\n%+v\n%+v", s, sa, sb)
				}
			}
			for _, x := range []*Assoc{a.p.as[0], a.extra[0]} {
				if x.Stats().Retransmits == 0 && tt.drop != nil {
					t.Fatalf("no retransmission")
				}
			}
			if b.runs < 500 {
				t.Fatalf("%d packets built in runs: too few to tell", b.runs)
			}
			t.Logf("%v packets, %d built in runs", b.sent, b.runs)
		})
	}
}

// TestPollNextMultihome runs TestMultihomeCoreFailover's transfer (the
// primary cut, retransmissions moved to the alternate path) with Poll and
// with PollNext: the same packets to the same addresses, the same
// counters. (An association of several paths builds no run: PollNext
// falls back to Poll for each of its packets.)
func TestPollNextMultihome(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	var wire [2]uint64
	var stats [2]api.Stats
	for i, next := range []bool{false, true} {
		n := newMHNet(t, 2, links, nil)
		n.next = next
		n.connect()
		n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
		n.toSend = 3000
		n.run(time.Minute, func() bool { return n.recv > 1000 })
		n.cut(0, 1)
		n.run(5*time.Minute, func() bool { return n.recv == n.toSend })
		wire[i], stats[i] = n.wire, n.cli.Stats()
		if n.ca.data.eng.Stats().RetransmitsMoved == 0 {
			t.Fatal("no retransmission moved to the alternate path")
		}
	}
	if wire[0] != wire[1] || !reflect.DeepEqual(stats[0], stats[1]) {
		t.Fatalf("Poll and PollNext differ: %x vs %x\n%+v\n%+v", wire[0], wire[1], stats[0], stats[1])
	}
}
