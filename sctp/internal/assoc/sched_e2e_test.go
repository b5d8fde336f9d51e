package assoc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
	"github.com/usctp/usctp/stream"

	"github.com/usctp/usctp/internal/testsupport"
)

// schedLink is the bottleneck of the share tests: 2 MB/s, 5 ms each way,
// with a queue deep enough for the 64 KiB receive window, so nothing is
// lost and the link, not the window, sets the pace.
var schedLink = simnet.LinkConfig{Delay: 5 * time.Millisecond, Rate: 2_000_000, QueueBytes: 256 << 10}

// sd scales the virtual durations of the tests in this file: a run under
// the race detector or -short is shorter.
func sd(d time.Duration) time.Duration {
	if testsupport.RaceEnabled || testing.Short() {
		return d * 2 / 5
	}
	return d
}

// newConfigPair is newPair with a receive window of 64 KiB and the config
// changed by mod on both sides.
func newConfigPair(t testing.TB, link simnet.LinkConfig, mod func(*Config)) *pair {
	p := newPair(t, 1, link)
	for i := range 2 {
		cfg := Config{Rand: newTestRand(byte(7 + i)), MTU: 1452, OutStreams: 16, InStreams: 16, Buffers: api.Buffers{RecvBuffer: 64 << 10}}
		if mod != nil {
			mod(&cfg)
		}
		p.eps[i] = NewEndpoint(cfg, p.now)
	}
	return p
}

// shareRun keeps some streams of side 0 saturated and records, per stream,
// the bytes side 1 reads in a window of virtual time.
type shareRun struct {
	t        testing.TB
	p        *pair
	sizes    []int // message size per stream
	fed      []bool
	queued   []uint32 // messages queued per stream
	got      []uint32 // messages read per stream
	from, to time.Duration
	bytes    []int64 // bytes read per stream with from <= time < to
	after    []int64 // bytes read per stream at or after to
	buf      []byte
	rbuf     []byte
	part     []byte // a message delivered in parts so far
	// at runs once per step, just before it, with the time since the start.
	at func(since time.Duration)
}

func newShareRun(t testing.TB, p *pair, sizes []int, from, to time.Duration) *shareRun {
	n := len(sizes)
	r := &shareRun{t: t, p: p, sizes: sizes, fed: make([]bool, n), queued: make([]uint32, n), got: make([]uint32, n),
		from: from, to: to, bytes: make([]int64, n), after: make([]int64, n),
		buf: make([]byte, 0, 8192), rbuf: make([]byte, 64<<10)}
	for i := range r.fed {
		r.fed[i] = true
	}
	return r
}

// backlog is how many messages a fed stream keeps outstanding (queued and
// not yet read): beyond the 64 KiB window, so at least 16 of them wait in
// the send queue at any time and the stream never runs dry.
func (r *shareRun) backlog(sid int) uint32 { return uint32(64<<10/r.sizes[sid] + 16) }

func (r *shareRun) feed() {
	a := r.p.as[0]
	for sid := range r.sizes {
		for r.fed[sid] && r.queued[sid]-r.got[sid] < r.backlog(sid) {
			msg := r.buf[:0]
			msg = binary.BigEndian.AppendUint16(msg, uint16(sid))
			msg = binary.BigEndian.AppendUint32(msg, r.queued[sid])
			for len(msg) < r.sizes[sid] {
				msg = append(msg, byte(sid+len(msg)))
			}
			err := a.send(r.p.now, uint16(sid), 0, false, msg)
			if errors.Is(err, api.ErrWouldBlock) {
				return
			}
			if err != nil {
				r.t.Fatal(err)
			}
			r.queued[sid]++
		}
	}
}

func (r *shareRun) read(since time.Duration) {
	b := r.p.as[1]
	for b.data.eng != nil && b.data.eng.Readable() {
		n, info, err := b.read(r.rbuf)
		if err != nil {
			r.t.Fatalf("read: %v", err)
		}
		r.part = append(r.part, r.rbuf[:n]...)
		if !info.EOR {
			continue // partial delivery: the rest follows
		}
		msg := r.part
		r.part = r.part[:0]
		n = len(msg)
		sid, seq := binary.BigEndian.Uint16(msg), binary.BigEndian.Uint32(msg[2:])
		if sid != info.SID || int(sid) >= len(r.sizes) || n != r.sizes[sid] || seq != r.got[sid] {
			r.t.Fatalf("stream %d: read message %d of stream %d (%d bytes), want message %d of %d bytes",
				info.SID, seq, sid, n, r.got[info.SID], r.sizes[info.SID])
		}
		r.got[sid]++
		switch {
		case since >= r.to:
			r.after[sid] += int64(n)
		case since >= r.from:
			r.bytes[sid] += int64(n)
		}
	}
}

// run drives the pair until end (virtual time since the start).
func (r *shareRun) run(end time.Duration) {
	start := r.p.now
	for {
		since := r.p.now.Sub(start)
		if since >= end {
			return
		}
		r.feed()
		r.read(since)
		if r.at != nil {
			r.at(since)
		}
		if !r.p.step() {
			r.t.Fatal("network idle")
		}
	}
}

// shares returns each stream's part of the window's bytes.
func (r *shareRun) shares() []float64 {
	var total int64
	for _, b := range r.bytes {
		total += b
	}
	out := make([]float64, len(r.bytes))
	for i, b := range r.bytes {
		out[i] = float64(b) / float64(total)
	}
	return out
}

// checkShares fails unless every stream's share of the window is within
// tol (relative) of its weight's part of the total weight.
func (r *shareRun) checkShares(weights []float64, tol float64) {
	r.t.Helper()
	var wsum float64
	for _, w := range weights {
		wsum += w
	}
	sh := r.shares()
	r.t.Logf("bytes in the window: %v; shares %s", r.bytes, fmtShares(sh))
	for i, w := range weights {
		want := w / wsum
		if math.Abs(sh[i]/want-1) > tol {
			r.t.Errorf("stream %d: share %.4f, want %.4f ± %.0f%%", i, sh[i], want, 100*tol)
		}
	}
}

func fmtShares(s []float64) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%.4f", v)
	}
	return out
}

// TestSchedWFQSharesEndToEnd: two full associations over a 2 MB/s
// simulated link, clean or with 1% loss; the sender starts with the
// endpoint default (round robin), switches to WFQ after a second with data
// queued, and gives four saturated streams weights 1:2:3:4. Over a window
// in the middle of the run the delivered bytes are within 5% of 1:2:3:4,
// and every message arrives once, intact, in order within its stream.
func TestSchedWFQSharesEndToEnd(t *testing.T) {
	lossy := schedLink
	lossy.Loss, lossy.Jitter = 0.01, time.Millisecond
	for _, tt := range []struct {
		name string
		link simnet.LinkConfig
	}{{"clean", schedLink}, {"loss1", lossy}} {
		link := tt.link
		t.Run(tt.name, func(t *testing.T) {
			sd := sd
			if link.Loss > 0 {
				// One T3-rtx stall (RTO.Min is 1 s) would be most of a
				// shortened window and leave too few bytes to measure
				// shares by (about one seed in six has one): a lossy
				// run keeps its full length under -short and -race.
				sd = func(d time.Duration) time.Duration { return d }
			}
			p := newConfigPair(t, link, func(c *Config) { c.Scheduler = sched.RoundRobin })
			p.connect()
			if k := p.as[0].Scheduler(); k != sched.RoundRobin {
				t.Fatalf("endpoint default scheduler: %v", k)
			}
			r := newShareRun(t, p, []int{1000, 1000, 1000, 1000}, 2*sd(time.Second), 5*sd(time.Second))
			switched := false
			r.at = func(since time.Duration) {
				if !switched && since >= sd(time.Second) {
					switched = true
					if err := p.as[0].SetScheduler(sched.WFQ); err != nil {
						t.Fatal(err)
					}
					for sid := range uint16(4) {
						if err := p.as[0].SetStreamValue(sid, sid+1); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			r.run(sd(6 * time.Second))
			r.checkShares([]float64{1, 2, 3, 4}, 0.05)
			for sid := range uint16(4) {
				if v, err := p.as[0].StreamValue(sid); err != nil || v != sid+1 {
					t.Errorf("stream %d weight %d, %v", sid, v, err)
				}
			}
		})
	}
}

// TestSchedRoundRobinEndToEnd: round robin shares the link equally among
// four saturated streams with equal messages.
func TestSchedRoundRobinEndToEnd(t *testing.T) {
	for _, k := range []sched.Kind{sched.RoundRobin, sched.RoundRobinPacket} {
		t.Run(k.String(), func(t *testing.T) {
			p := newConfigPair(t, schedLink, func(c *Config) { c.Scheduler = k })
			p.connect()
			r := newShareRun(t, p, []int{1000, 1000, 1000, 1000}, 2*sd(time.Second), 5*sd(time.Second))
			r.run(sd(5 * time.Second))
			r.checkShares([]float64{1, 1, 1, 1}, 0.05)
		})
	}
}

// TestSchedFairCapacityEndToEnd: fair capacity gives four saturated
// streams equal bytes although their messages differ in size (200 to 3000
// bytes, the largest in three fragments).
func TestSchedFairCapacityEndToEnd(t *testing.T) {
	p := newConfigPair(t, schedLink, nil)
	p.connect()
	if err := p.as[0].SetScheduler(sched.FairCapacity); err != nil {
		t.Fatal(err)
	}
	r := newShareRun(t, p, []int{200, 700, 1300, 3000}, 2*sd(time.Second), 5*sd(time.Second))
	r.run(sd(5 * time.Second))
	r.checkShares([]float64{1, 1, 1, 1}, 0.05)
}

// TestSchedPriorityEndToEnd: strict priority starves the lower priority
// stream completely while the higher ones have data, shares equally among
// streams of the same priority, and serves the lower one as soon as the
// higher ones run dry.
func TestSchedPriorityEndToEnd(t *testing.T) {
	p := newConfigPair(t, schedLink, func(c *Config) { c.Scheduler = sched.Priority })
	p.connect()
	a := p.as[0]
	for sid, prio := range []uint16{2, 1, 1} { // stream 0 has the lower priority
		if err := a.SetStreamValue(uint16(sid), prio); err != nil {
			t.Fatal(err)
		}
	}
	r := newShareRun(t, p, []int{1000, 1000, 1000}, sd(time.Second), 4*sd(time.Second))
	r.at = func(since time.Duration) {
		if since >= 4*sd(time.Second) {
			r.fed[1], r.fed[2] = false, false
		}
	}
	r.run(sd(6 * time.Second))
	t.Logf("window: %v bytes; after streams 1 and 2 stopped: %v", r.bytes, r.after)
	if r.bytes[0] != 0 || r.bytes[1] == 0 {
		t.Errorf("while streams 1 and 2 (priority 1) had data, stream 0 (priority 2) got %d bytes", r.bytes[0])
	}
	if d := float64(r.bytes[1]-r.bytes[2]) / float64(r.bytes[1]+r.bytes[2]); math.Abs(d) > 0.025 {
		t.Errorf("streams of equal priority: %d and %d bytes", r.bytes[1], r.bytes[2])
	}
	if r.after[0] < 1<<20 {
		t.Errorf("after the others ran dry, stream 0 got only %d bytes", r.after[0])
	}
}

// TestSchedBlockedStreamEndToEnd: a stream that cannot send (here an
// outgoing reset pending) keeps its messages and does not hold up the
// others; reopened, it delivers them in order.
func TestSchedBlockedStreamEndToEnd(t *testing.T) {
	p := newConfigPair(t, schedLink, nil)
	p.connect()
	a := p.as[0]
	r := newShareRun(t, p, []int{1000, 1000, 1000}, sd(time.Second), 3*sd(time.Second))
	r.at = func(since time.Duration) {
		switch {
		case since >= 3*sd(time.Second) && r.fed[1]:
			r.fed[1] = false // stop feeding: what is queued must come out after the reopen
			if err := a.setStreamState(1, stream.Open); err != nil {
				t.Fatal(err)
			}
		case since >= sd(time.Second/2) && since < 3*sd(time.Second):
			if st, _ := a.data.eng.StreamState(1); st == stream.Open {
				if err := a.setStreamState(1, stream.ResetPending); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	r.run(sd(5 * time.Second))
	t.Logf("window bytes %v, after %v", r.bytes, r.after)
	if r.bytes[1] != 0 || r.bytes[0] == 0 || r.bytes[2] == 0 {
		t.Errorf("blocked stream 1 delivered %d bytes in the window, the others %d and %d", r.bytes[1], r.bytes[0], r.bytes[2])
	}
	if r.got[1] != r.queued[1] {
		t.Errorf("stream 1: %d of %d messages after the reopen", r.got[1], r.queued[1])
	}
	if err := a.setStreamState(16, stream.Closed); !errors.Is(err, api.ErrStreamID) {
		t.Errorf("stream 16 of 16: %v", err)
	}
}

// TestSchedFragmentsContiguousEndToEnd sends large messages (up to 12
// fragments) on six streams under every scheduler over a lossy link with
// reordering and duplication, and checks every DATA chunk side 0 puts on
// the wire: without I-DATA the fragments of one message are contiguous in
// TSN, so no other stream's data ever splits a message (RFC 9260 section
// 6.9), also across packets, retransmissions and scheduler switches.
func TestSchedFragmentsContiguousEndToEnd(t *testing.T) {
	link := schedLink
	link.Loss, link.Dup, link.Reorder = 0.01, 0.01, 0.01
	for _, k := range []sched.Kind{sched.FCFS, sched.Priority, sched.RoundRobin, sched.FairCapacity, sched.WFQ, sched.RoundRobinPacket} {
		t.Run(k.String(), func(t *testing.T) {
			p := newConfigPair(t, link, func(c *Config) { c.Scheduler = k })
			p.connect()
			for sid := range uint16(6) {
				p.as[0].SetStreamValue(sid, 1+sid%3)
			}
			type frag struct {
				sid, ssn uint16
				flags    uint8
			}
			wire := map[uint32]frag{}
			r := newShareRun(t, p, []int{1400, 3000, 5000, 9000, 12000, 16000}, time.Hour, time.Hour)
			r.at = func(since time.Duration) {
				// Tap side 0's packets before the pair sends them.
				for {
					po, ok := p.eps[0].Poll(p.now, p.buf[:0])
					b := po.Data
					if !ok {
						break
					}
					for c := b[12:]; len(c) >= 4; {
						l := int(binary.BigEndian.Uint16(c[2:]))
						if l < 4 || l > len(c) {
							t.Fatalf("bad chunk length %d", l)
						}
						if c[0] == 0 && l >= 16 {
							tsn := binary.BigEndian.Uint32(c[4:])
							f := frag{binary.BigEndian.Uint16(c[8:]), binary.BigEndian.Uint16(c[10:]), c[1] & 3}
							if old, ok := wire[tsn]; ok && old != f {
								t.Fatalf("TSN %d sent as %+v and as %+v", tsn, old, f)
							}
							wire[tsn] = f
						}
						c = c[min(len(c), (l+3)&^3):]
					}
					p.net.Send(p.now, p.links[0], b)
				}
				if since > sd(time.Second/2) && since < sd(time.Second) && p.as[0].Scheduler() == k {
					p.as[0].SetScheduler(allSchedKinds[(int(k)+1)%len(allSchedKinds)])
				}
			}
			r.run(sd(1500 * time.Millisecond))
			if len(wire) < 300 {
				t.Fatalf("only %d DATA chunks", len(wire))
			}
			lo := uint32(math.MaxUint32)
			for tsn := range wire {
				lo = min(lo, tsn) // a wrap inside the run leaves chunks out of the run: checked below
			}
			var open *frag
			multi := 0
			for tsn := lo; ; tsn++ {
				f, ok := wire[tsn]
				if !ok {
					break
				}
				begin, end := f.flags&2 != 0, f.flags&1 != 0
				if open != nil && (begin || f.sid != open.sid || f.ssn != open.ssn) {
					t.Fatalf("TSN %d (stream %d SSN %d) splits the message of stream %d SSN %d", tsn, f.sid, f.ssn, open.sid, open.ssn)
				}
				if open == nil && !begin {
					t.Fatalf("TSN %d continues no message", tsn)
				}
				if !end {
					multi++
					open = &f
				} else {
					open = nil
				}
				delete(wire, tsn)
			}
			if len(wire) > 0 {
				t.Fatalf("%d DATA chunks not in one TSN run", len(wire))
			}
			if multi == 0 {
				t.Fatal("no multi-fragment message")
			}
		})
	}
}

var allSchedKinds = []sched.Kind{sched.FCFS, sched.Priority, sched.RoundRobin, sched.FairCapacity, sched.WFQ, sched.RoundRobinPacket}

// TestSchedCoreCalls covers the core's scheduler entry points outside a
// transfer: before the engine exists, with bad input, and after close.
func TestSchedCoreCalls(t *testing.T) {
	p := newConfigPair(t, schedLink, func(c *Config) { c.Scheduler = sched.Kind(99) })
	a, err := p.eps[0].connect(p.now, p.addrs[1], 5000, 5001)
	if err != nil {
		t.Fatal(err)
	}
	if k := a.Scheduler(); k != sched.FCFS {
		t.Errorf("an invalid default kind gives %v, want fcfs", k)
	}
	if err := a.SetScheduler(sched.WFQ); !errors.Is(err, errNotReady) {
		t.Errorf("setScheduler in COOKIE-WAIT: %v", err)
	}
	if _, err := a.StreamValue(0); !errors.Is(err, errNotReady) {
		t.Errorf("streamValue in COOKIE-WAIT: %v", err)
	}
	p.as[0] = a
	for p.as[1] == nil || a.state != stateEstablished {
		if !p.step() {
			t.Fatal("handshake stalled")
		}
		for _, e := range p.events[1] {
			if e.Kind == api.EventUp {
				p.as[1] = e.Assoc
			}
		}
	}
	if err := a.SetScheduler(sched.Kind(6)); !errors.Is(err, sched.ErrKind) {
		t.Errorf("kind 6: %v", err)
	}
	if err := a.SetScheduler(sched.WFQ); err != nil {
		t.Fatal(err)
	}
	if err := a.SetStreamValue(16, 2); !errors.Is(err, api.ErrStreamID) {
		t.Errorf("stream 16 of 16: %v", err)
	}
	if err := a.SetStreamValue(3, 0); !errors.Is(err, sched.ErrValue) {
		t.Errorf("weight 0: %v", err)
	}
	if err := a.SetStreamValue(3, 9); err != nil {
		t.Fatal(err)
	}
	if v, err := a.StreamValue(3); v != 9 || err != nil {
		t.Errorf("weight %d, %v", v, err)
	}
	a.Abort(p.now, nil)
	if err := a.SetScheduler(sched.FCFS); !errors.Is(err, ErrClosed) {
		t.Errorf("setScheduler after abort: %v", err)
	}
}

// TestSchedIdleStreamNoCreditEndToEnd: under fair capacity and WFQ a
// stream that was idle for two seconds comes back level with the others,
// not with a credit for the time it did not send (Linux's FC and WFQ count
// bytes over all time, so a returning stream monopolises the link until
// its count catches up): right after it returns, the shares are already
// fair.
func TestSchedIdleStreamNoCreditEndToEnd(t *testing.T) {
	for _, k := range []sched.Kind{sched.FairCapacity, sched.WFQ} {
		t.Run(k.String(), func(t *testing.T) {
			p := newConfigPair(t, schedLink, func(c *Config) { c.Scheduler = k })
			p.connect()
			r := newShareRun(t, p, []int{1000, 1000, 1000}, 2*sd(time.Second)+100*time.Millisecond, 2*sd(time.Second)+600*time.Millisecond)
			r.fed[0] = false
			r.at = func(since time.Duration) {
				if since >= 2*sd(time.Second) {
					r.fed[0] = true
				}
			}
			r.run(2*sd(time.Second) + 700*time.Millisecond)
			r.checkShares([]float64{1, 1, 1}, 0.05)
		})
	}
}
