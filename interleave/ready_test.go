package interleave

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// Frag fills its Go size class (80 bytes) exactly.
func TestFragSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit layout")
	}
	if n := unsafe.Sizeof(Frag{}); n != 80 {
		t.Fatalf("Frag is %d bytes, want 80 (a size class)", n)
	}
}

// The delivery queue against a model: whole messages and messages in
// parts on random streams, taken at random from the head in arrival order
// or from a stream's head. Both views stay consistent: Pop returns the
// oldest fragment left, PopStream the oldest of its stream, and Ready and
// Held count what is queued.
func TestDeliveryQueueModel(t *testing.T) {
	const streams = 5
	d, _ := newData(streams)
	rng := rand.New(rand.NewPCG(1, 2))
	var model []*Frag // queued fragments in arrival order
	tsn := chunk.TSN(1)
	ssn := make([]stream.SSN, streams)
	bytes := 0
	for step := range 20000 {
		switch op := rng.IntN(4); {
		case op < 2: // a whole message of 1 to 3 fragments
			sid := uint16(rng.IntN(streams))
			n := 1 + rng.IntN(3)
			for i := range n {
				flags := uint8(0)
				if i == 0 {
					flags |= chunk.FlagBeginning
				}
				if i == n-1 {
					flags |= chunk.FlagEnd
				}
				f := d.Pool().Get(make([]byte, 1+rng.IntN(9)))
				f.TSN, f.SID, f.SSN, f.Flags = tsn, sid, ssn[sid], flags
				tsn++
				if !d.Add(f) {
					t.Fatalf("step %d: Add refused", step)
				}
				bytes += len(f.Data)
				model = append(model, f)
			}
			ssn[sid]++
		case op == 2: // Pop
			f := d.Pop()
			if len(model) == 0 {
				if f != nil {
					t.Fatalf("step %d: Pop from an empty queue", step)
				}
				continue
			}
			if f != model[0] {
				t.Fatalf("step %d: Pop returned TSN %d, want %d", step, f.TSN, model[0].TSN)
			}
			model = model[1:]
			bytes -= len(f.Data)
			d.Pool().Put(f)
		default: // PopStream
			sid := uint16(rng.IntN(streams))
			f := d.PopStream(sid)
			i := 0
			for i < len(model) && model[i].SID != sid {
				i++
			}
			if i == len(model) {
				if f != nil {
					t.Fatalf("step %d: PopStream(%d) returned TSN %d from an empty stream", step, sid, f.TSN)
				}
				continue
			}
			if f != model[i] {
				t.Fatalf("step %d: PopStream(%d) returned %v, want TSN %d", step, sid, f, model[i].TSN)
			}
			if f.FirstTSN > f.TSN || f.TSN-f.FirstTSN > 2 {
				t.Fatalf("step %d: TSN %d names first TSN %d", step, f.TSN, f.FirstTSN)
			}
			model = append(model[:i], model[i+1:]...)
			bytes -= len(f.Data)
			d.Pool().Put(f)
		}
		if d.Ready() != bytes || d.Held() != bytes {
			t.Fatalf("step %d: ready %d held %d, want %d", step, d.Ready(), d.Held(), bytes)
		}
		if h := d.Peek(); (h == nil) != (len(model) == 0) || h != nil && h != model[0] {
			t.Fatalf("step %d: Peek disagrees with the model", step)
		}
	}
}

// ResetAll looks only at the streams whose In record was used since the
// last reset: after every stream in use delivered a message and one reset,
// a reset costs nothing more until a stream is used again, then looks at
// that stream alone, and every record reads as reset each time (the
// heaps: FuzzPartialCandidates).
func TestResetAllLooksAtStreamsUsedSince(t *testing.T) {
	const streams = 1000
	d, tab := newData(streams)
	h := harness{t: t, d: d}
	tsn := chunk.TSN(1)
	send := func(sid uint16, ssn stream.SSN) {
		if !h.add(tsn, sid, ssn, BE, "m") {
			t.Fatalf("message on stream %d, SSN %d, not taken", sid, ssn)
		}
		tsn++
	}
	allReset := func() {
		t.Helper()
		for sid := range uint16(streams) {
			if in := tab.In(sid); in.MID != 0 || in.PD || in.PDUO {
				t.Fatalf("stream %d after ResetAll: %+v", sid, *in)
			}
		}
	}
	for sid := range uint16(streams) {
		send(sid, 0)
		send(sid, 1)
	}
	if n := len(d.numbered); n != streams {
		t.Fatalf("%d streams listed as used, want %d", n, streams)
	}
	d.ResetAll()
	allReset()
	for range 3 {
		if n := len(d.numbered); n != 0 {
			t.Fatalf("%d streams listed as used after a reset, want 0", n)
		}
		d.ResetAll()
	}
	send(7, 0) // the new numbering
	send(7, 1)
	send(9, 0)
	if n := len(d.numbered); n != 2 {
		t.Fatalf("%d streams listed as used, want 2", n)
	}
	d.ResetAll()
	allReset()
	send(7, 0)
	if got := len(h.messages()); got != 2*streams+4 {
		t.Fatalf("%d messages delivered, want %d", got, 2*streams+4)
	}
}
