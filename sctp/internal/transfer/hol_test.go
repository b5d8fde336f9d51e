package transfer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// holResult is the latency of the small messages in one head-of-line run.
type holResult struct {
	n                   int
	mean, p50, p95, max time.Duration
	bulkBytes           int64
	elapsed             time.Duration
}

func (r holResult) String() string {
	return fmt.Sprintf("%d small msgs: mean %v p50 %v p95 %v max %v (bulk %.1f MB in %v)",
		r.n, r.mean.Round(time.Millisecond), r.p50.Round(time.Millisecond), r.p95.Round(time.Millisecond),
		r.max.Round(time.Millisecond), float64(r.bulkBytes)/1e6, r.elapsed.Round(time.Millisecond))
}

// holRun measures, in simulated time, the one-way latency (queueing at the
// sender included) of small messages sent every interval on stream 0
// while stream 1 keeps 1 MB messages queued, over a link of the given
// rate and delay, scheduled by kind: without I-DATA the scheduler is
// pinned to a message until its last fragment, with I-DATA it may switch
// streams after every chunk.
func holRun(t testing.TB, kind sched.Kind, interleaved bool, link simnet.LinkConfig, small int, interval time.Duration, count int) holResult {
	const bulkMsg = 1 << 20
	mk := func() Config {
		s, err := sched.New(kind, sched.Options{Interleaved: interleaved, Streams: 2})
		if err != nil {
			t.Fatal(err)
		}
		return Config{OutStreams: 2, InStreams: 2, Buffers: api.Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20},
			Interleaved: interleaved, Scheduler: s}
	}
	p := newPair(t, 1, link, mk(), mk())
	a, b := p.a, p.b
	bulk := make([]byte, bulkMsg)
	msg := make([]byte, small)
	var lat []time.Duration
	var bulkBytes int64
	sent := 0
	nextSmall := p.now.Add(interval)
	start := p.now
	parts := map[msgKey]int{}
	for len(lat) < count {
		// Keep stream 1 busy: a new 1 MB message as soon as less than
		// one is buffered (queued or unacknowledged).
		for a.e.send.queue.buffered < bulkMsg {
			if err := a.e.send.enqueue(1, 1, false, bulk); err != nil {
				t.Fatal(err)
			}
		}
		if sent < count && !p.now.Before(nextSmall) {
			binary.BigEndian.PutUint64(msg, uint64(p.now.Sub(epoch)))
			if err := a.e.send.enqueue(0, 2, false, msg); err != nil {
				t.Fatal(err)
			}
			sent++
			nextSmall = nextSmall.Add(interval)
		}
		for _, s := range []*side{a, b} {
			if d := s.e.Deadline(); !d.IsZero() && !d.After(p.now) {
				s.e.OnTimeout(p.now)
			}
		}
		for pk := p.n.Pop(p.now); pk != nil; pk = p.n.Pop(p.now) {
			if pk.Link == 0 {
				b.input(p.now, pk.Data)
			} else {
				a.input(p.now, pk.Data)
			}
			p.n.Free(pk)
		}
		// B reads everything; a small message's latency ends when its
		// last byte is read.
		for {
			n, info, err := b.e.Read(b.rbuf)
			if errors.Is(err, ErrWouldBlock) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			k := msgKey{info.SID, info.Unordered, info.MID}
			if info.SID == 0 && parts[k] == 0 && n >= 8 {
				ts := epoch.Add(time.Duration(binary.BigEndian.Uint64(b.rbuf)))
				if info.EOR {
					lat = append(lat, p.now.Sub(ts))
				}
			}
			parts[k] += n
			if info.EOR {
				if info.SID == 1 {
					bulkBytes += int64(parts[k])
				}
				delete(parts, k)
			}
		}
		a.flush(p.now, p.n)
		b.flush(p.now, p.n)
		if a.err != nil || b.err != nil {
			t.Fatal(a.err, b.err)
		}
		next, ok := p.n.Next()
		for _, s := range []*side{a, b} {
			if d := s.e.Deadline(); !d.IsZero() && (!ok || d.Before(next)) {
				next, ok = d, true
			}
		}
		if sent < count && (!ok || nextSmall.Before(next)) {
			next, ok = nextSmall, true
		}
		if !ok {
			t.Fatalf("stalled: A %s; B %s", a.state(), b.state())
		}
		if next.After(p.now) {
			p.now = next
		}
		if p.now.Sub(start) > 10*time.Minute {
			t.Fatalf("not done: %d of %d small messages", len(lat), count)
		}
	}
	r := holResult{n: len(lat), bulkBytes: bulkBytes, elapsed: p.now.Sub(start)}
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	slices.Sort(lat)
	r.mean = sum / time.Duration(len(lat))
	r.p50 = lat[len(lat)/2]
	r.p95 = lat[len(lat)*95/100]
	r.max = lat[len(lat)-1]
	return r
}

// The head-of-line blocking that motivates RFC 8260, measured: small
// messages on stream 0 wait behind a 1 MB message of stream 1 without
// I-DATA, and pass it with I-DATA.
func TestHeadOfLineLatency(t *testing.T) {
	cases := []struct {
		name string
		link simnet.LinkConfig
	}{
		{"10 Mbit/s, 20 ms", simnet.LinkConfig{Delay: 20 * time.Millisecond, Rate: 10e6 / 8, QueueBytes: 64 << 10}},
		{"100 Mbit/s, 5 ms", simnet.LinkConfig{Delay: 5 * time.Millisecond, Rate: 100e6 / 8, QueueBytes: 256 << 10}},
	}
	if testsupport.RaceEnabled {
		cases = cases[:1] // the race detector makes the faster link slow to simulate
	}
	for _, c := range cases {
		fcfs := holRun(t, sched.FCFS, false, c.link, 200, 50*time.Millisecond, 100)
		rr := holRun(t, sched.RoundRobin, false, c.link, 200, 50*time.Millisecond, 100)
		idata := holRun(t, sched.RoundRobin, true, c.link, 200, 50*time.Millisecond, 100)
		t.Logf("%s, DATA, FCFS:  %v", c.name, fcfs)
		t.Logf("%s, DATA, RR:    %v", c.name, rr)
		t.Logf("%s, I-DATA, RR:  %v", c.name, idata)
		t.Logf("%s: mean latency %.1fx lower with I-DATA than DATA with FCFS", c.name, float64(fcfs.mean)/float64(idata.mean))
		if idata.mean*2 > fcfs.mean || idata.mean*2 > rr.mean {
			t.Errorf("%s: I-DATA mean %v not well below DATA's %v/%v", c.name, idata.mean, fcfs.mean, rr.mean)
		}
	}
}
