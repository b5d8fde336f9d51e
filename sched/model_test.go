package sched

import (
	"math/rand/v2"
	"testing"
)

var allKinds = []Kind{FCFS, Priority, RoundRobin, FairCapacity, WFQ, RoundRobinPacket}

// TestModel mixes every operation at random, including resizing and
// switching scheduler with data queued, and checks after each one that the
// scheduler's invariants hold and that it agrees with a reference model:
// every active stream has data, every stream with data is active or
// blocked, Next never returns a blocked, empty or out-of-range stream, and
// nothing survives Forget or Resize.
func TestModel(t *testing.T) {
	ops := 1500
	if testing.Short() {
		ops = 500
	}
	for _, k := range allKinds {
		for _, il := range []bool{false, true} {
			t.Run(k.String()+map[bool]string{false: "/data", true: "/idata"}[il], func(t *testing.T) {
				for seed := range uint64(6) {
					r := rand.New(rand.NewPCG(seed, uint64(k)))
					h := newHarness(t, k, Options{Interleaved: il, Streams: 1 + r.IntN(40)}, 300+r.IntN(1700))
					h.noBlock = seed%2 == 1 // so that FCFS order is checked exactly
					for range ops {
						h.op(byte(r.UintN(256)), byte(r.UintN(256)), byte(r.UintN(256)))
					}
					// Drain: everything queued and unblocked is sent.
					for sid := range h.q {
						h.unblock(uint16(sid))
					}
					for h.step() {
					}
					h.verify()
					for sid, q := range h.q {
						if len(q) > 0 {
							t.Fatalf("stream %d not drained", sid)
						}
					}
				}
			})
		}
	}
}

// FuzzScheduler drives a scheduler with operations decoded from the input
// (three bytes each; the first byte picks the scheduler, I-DATA and the
// stream count) and checks the same invariants as TestModel.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 1, 4, 5, 9})
	f.Add([]byte{0x13, 0, 1, 200, 0, 2, 100, 3, 0, 1, 8, 0, 0, 3, 1, 3, 9, 0, 0})
	f.Add([]byte{0x24, 14, 0, 3, 0, 5, 4, 3, 1, 3, 13, 0, 2, 12, 1, 0, 12, 2, 7})
	f.Add([]byte{0x35, 0, 0, 1, 0, 1, 1, 10, 0, 0, 11, 1, 0, 3, 0, 3, 7, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		k := Kind(in[0] % numKinds)
		opt := Options{Interleaved: in[0]&0x80 != 0, Streams: int(in[0]>>3) % 16}
		h := newHarness(t, k, opt, 1+int(in[0]>>4)*100)
		in = in[1:]
		for len(in) >= 3 {
			h.op(in[0], in[1], in[2])
			in = in[3:]
		}
	})
}
