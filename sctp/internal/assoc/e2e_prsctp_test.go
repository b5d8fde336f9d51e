package assoc

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
	"github.com/usctp/usctp/sctp/internal/transfer"

	"github.com/usctp/usctp/internal/testsupport"
)

// TestEndToEndPartialReliability: over a lossy link, side 0 sends ordered
// messages with a lifetime on stream 1, unordered messages sent at most
// once on stream 2, and reliable messages on stream 3, some of them larger
// than the peer's window (partial delivery). Every reliable message
// arrives, in order; the others arrive whole and in order (ordered stream)
// or not at all; every message missing was reported abandoned; FORWARD-TSN
// (I-FORWARD-TSN with interleaving) moved the receiver on, and the
// association shuts down cleanly.
func TestEndToEndPartialReliability(t *testing.T) {
	link := simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.08, Dup: 0.01,
		Reorder: 0.02, Rate: 2 << 20, QueueBytes: 64 << 10}
	for _, il := range []bool{false, true} {
		name := "data"
		if il {
			name = "idata"
		}
		t.Run(name, func(t *testing.T) { runPR(t, link, il) })
	}
}

func prMessage(sid uint16, seq uint32) []byte {
	r := rand.New(rand.NewPCG(uint64(sid)<<32|uint64(seq), 3))
	n := 8 + r.IntN(1500)
	if r.IntN(10) == 0 {
		n = 8 + 20000 + r.IntN(20000) // over the window: partial delivery
	}
	b := make([]byte, n)
	b[0], b[1] = byte(sid>>8), byte(sid)
	b[2], b[3], b[4], b[5] = byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq)
	for i := 8; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func runPR(t testing.TB, link simnet.LinkConfig, interleave bool) {
	runPRWith(t, link, interleave, false)
}

// runPRWith is runPR polling with PollNext after each endpoint's first
// packet when next is set; it returns the pair.
func runPRWith(t testing.TB, link simnet.LinkConfig, interleave, next bool) *pair {
	p := newPair(t, 7, link)
	p.next = next
	for _, ep := range p.eps {
		ep.cfg.Interleaving = interleave
		ep.cfg.RecvBuffer = 24 << 10
		ep.cfg.SendBuffer = 96 << 10
	}
	p.connect()
	for i, a := range p.as {
		if !a.PartialReliability() || a.Interleaved() != interleave {
			t.Fatalf("side %d: PR-SCTP %v interleaving %v", i, a.PartialReliability(), a.Interleaved())
		}
	}
	perStream := 300
	if testsupport.RaceEnabled || testing.Short() {
		perStream = 100
	}
	pr := map[uint16]transfer.PR{1: {Policy: transfer.PRTTL, Value: 1000}, 2: {Policy: transfer.PRRtx, Value: 0}, 3: {}}
	var nextSend [4]uint32
	var lastGot [4]int64
	for i := range lastGot {
		lastGot[i] = -1
	}
	received := map[[2]uint32]bool{}
	abandoned := map[[2]uint32]bool{}
	parts := map[[2]uint32][]byte{}
	rng := rand.New(rand.NewPCG(7, 8))
	rbuf := make([]byte, 8<<10)
	a, b := p.as[0], p.as[1]
	aborted := 0
	shutdown := false
	for {
		for sent := 0; sent < 20; sent++ {
			sid := uint16(1 + rng.IntN(3))
			if int(nextSend[sid]) == perStream {
				continue
			}
			m := prMessage(sid, nextSend[sid])
			err := a.Send(p.now, &Message{Stream: sid, Unordered: sid == 2, PR: pr[sid], Payload: m})
			if errors.Is(err, api.ErrWouldBlock) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			nextSend[sid]++
		}
		// The messages given up come as EventSendFailed events, from
		// Send (a priority write) and from the endpoint's steps.
		a.ep.drainInto(&p.events[0])
		for _, e := range p.events[0] {
			if e.Quiet || e.Kind != api.EventSendFailed {
				continue
			}
			k := [2]uint32{uint32(e.Stream), uint32(e.Msg[2])<<24 | uint32(e.Msg[3])<<16 | uint32(e.Msg[4])<<8 | uint32(e.Msg[5])}
			if e.Stream == 3 || e.PR == api.PRNone {
				t.Fatalf("reliable message %v abandoned", k)
			}
			abandoned[k] = true
		}
		p.events[0] = p.events[0][:0]
		for b.data.eng != nil && b.data.eng.Readable() {
			n, info, err := b.read(rbuf)
			if err != nil {
				t.Fatal(err)
			}
			pk := [2]uint32{uint32(info.SID), uint32(info.TSN)}
			if info.Aborted {
				if info.SID == 3 {
					t.Fatal("reliable message aborted")
				}
				delete(parts, pk)
				aborted++
				continue
			}
			parts[pk] = append(parts[pk], rbuf[:n]...)
			if !info.EOR {
				continue
			}
			m := parts[pk]
			delete(parts, pk)
			sid := uint16(m[0])<<8 | uint16(m[1])
			seq := uint32(m[2])<<24 | uint32(m[3])<<16 | uint32(m[4])<<8 | uint32(m[5])
			if sid != info.SID || string(m) != string(prMessage(sid, seq)) {
				t.Fatalf("stream %d: corrupt message (seq %d, %d bytes)", info.SID, seq, len(m))
			}
			k := [2]uint32{uint32(sid), seq}
			if received[k] {
				t.Fatalf("message %v delivered twice", k)
			}
			received[k] = true
			switch sid {
			case 3:
				if int64(seq) != lastGot[3]+1 {
					t.Fatalf("reliable stream: message %d after %d", seq, lastGot[3])
				}
			case 1:
				if int64(seq) <= lastGot[1] {
					t.Fatalf("ordered PR stream: message %d after %d", seq, lastGot[1])
				}
			}
			lastGot[sid] = int64(seq)
		}
		done := int(nextSend[1]+nextSend[2]+nextSend[3]) == 3*perStream && a.data.eng != nil && a.data.eng.SendIdle()
		if done && !shutdown {
			shutdown = true
			a.Shutdown(p.now)
		}
		if shutdown && a.closed && b.closed {
			break
		}
		if !p.step() {
			t.Fatal("network idle before the end")
		}
		if p.now.Sub(t0) > time.Hour {
			ia, ib := a.data.eng.Info(), b.data.eng.Info()
			t.Fatalf("not done after an hour of virtual time: sent %v, reliable up to %d\nA %+v forward due %v\nB %+v readable %v", nextSend, lastGot[3],
				ia, a.data.eng.ForwardDue(), ib, b.data.eng.Readable())
		}
	}
	if lastGot[3] != int64(perStream-1) {
		t.Fatalf("reliable stream delivered up to %d of %d", lastGot[3], perStream)
	}
	for _, sid := range []uint16{1, 2} {
		for seq := range uint32(perStream) {
			k := [2]uint32{uint32(sid), seq}
			if !received[k] && !abandoned[k] {
				t.Fatalf("message %v neither delivered nor reported abandoned", k)
			}
		}
	}
	for side := range 2 {
		for _, e := range p.events[side] {
			if !e.Quiet && (e.Kind == api.EventDown || e.Kind == api.EventRestart) {
				t.Fatalf("side %d: event %v", side, e.Kind)
			}
		}
	}
	s0, s1 := p.eps[0].Stats(), p.eps[1].Stats()
	if s0.ForwardTSNsOut == 0 || s1.ForwardTSNsIn == 0 || s0.PRAbandoned[transfer.PRTTL]+s0.PRAbandoned[transfer.PRRtx] == 0 {
		t.Fatalf("no abandonment: %+v", s0.Counters)
	}
	t.Logf("%v virtual: abandoned ttl %d rtx %d (%d never sent), %d FORWARD-TSNs out, %d in, %d partial deliveries aborted, %d read as aborted; %d retransmits",
		p.now.Sub(t0).Round(time.Millisecond), s0.PRAbandoned[transfer.PRTTL], s0.PRAbandoned[transfer.PRRtx], s0.PRAbandonedUnsent,
		s0.ForwardTSNsOut, s1.ForwardTSNsIn, s1.PartialDeliveriesAborted, aborted, s0.Retransmits)
	return p
}
