package interleave

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

func newData(n uint16) (*DataReassembler, *stream.Table[struct{}, InSide]) {
	t := stream.NewTable[struct{}, InSide](n, n)
	return NewDataReassembler(t), t
}

type harness struct {
	t testing.TB
	d *DataReassembler
}

func (h harness) add(tsn chunk.TSN, sid uint16, ssn stream.SSN, flags uint8, data string) bool {
	f := h.d.Pool().Get([]byte(data))
	f.TSN, f.SID, f.SSN, f.Flags = tsn, sid, ssn, flags
	return h.d.Add(f)
}

// messages pops everything ready and returns the messages as strings
// ("+" joins fragments of one message; a missing end shows as "…").
func (h harness) messages() []string {
	var out []string
	cur := ""
	for f := h.d.Pop(); f != nil; f = h.d.Pop() {
		cur += string(f.Data)
		end := f.Flags&chunk.FlagEnd != 0
		h.d.Pool().Put(f)
		if end {
			out = append(out, cur)
			cur = ""
		}
	}
	if cur != "" {
		out = append(out, cur+"…")
	}
	return out
}

func must(d *DataReassembler, _ *stream.Table[struct{}, InSide]) *DataReassembler { return d }

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const BE = chunk.FlagBeginning | chunk.FlagEnd

func TestOrderedPerStream(t *testing.T) {
	h := harness{t, must(newData(4))}
	h.add(3, 1, 2, BE, "c")
	h.add(2, 1, 1, BE, "b")
	h.add(10, 2, 0, BE, "x") // another stream is independent
	if got := h.messages(); !eq(got, []string{"x"}) {
		t.Fatalf("got %v, want [x]", got)
	}
	h.add(1, 1, 0, BE, "a")
	if got := h.messages(); !eq(got, []string{"a", "b", "c"}) {
		t.Fatalf("got %v, want [a b c]", got)
	}
	if h.d.Held() != 0 {
		t.Fatalf("held %d", h.d.Held())
	}
}

func TestSSNWrap(t *testing.T) {
	d, tab := newData(1)
	h := harness{t, d}
	tab.In(0).MID = 65535
	h.add(2, 0, 0, BE, "after")
	h.add(1, 0, 65535, BE, "before")
	if got := h.messages(); !eq(got, []string{"before", "after"}) {
		t.Fatalf("got %v", got)
	}
}

func TestUnorderedComplete(t *testing.T) {
	h := harness{t, must(newData(1))}
	h.add(5, 0, 0, chunk.FlagUnordered|chunk.FlagEnd, "2")
	h.add(1, 0, 0, chunk.FlagUnordered|chunk.FlagBeginning, "x")
	h.add(4, 0, 0, chunk.FlagUnordered|chunk.FlagBeginning, "1")
	if got := h.messages(); !eq(got, []string{"12"}) {
		t.Fatalf("got %v, want [12]", got)
	}
	h.add(2, 0, 0, chunk.FlagUnordered|chunk.FlagEnd, "y")
	if got := h.messages(); !eq(got, []string{"xy"}) {
		t.Fatalf("got %v, want [xy]", got)
	}
}

func TestDuplicateAndStale(t *testing.T) {
	h := harness{t, must(newData(1))}
	h.add(2, 0, 0, chunk.FlagBeginning, "a")
	if h.add(2, 0, 0, chunk.FlagBeginning, "a") {
		t.Fatal("duplicate fragment accepted")
	}
	h.add(3, 0, 0, chunk.FlagEnd, "b")
	h.messages()
	if h.add(9, 0, 0, BE, "old") {
		t.Fatal("fragment of a delivered SSN accepted")
	}
	if h.add(1, 5, 0, BE, "bad sid") {
		t.Fatal("fragment of a stream outside the table accepted")
	}
	if h.d.Held() != 0 {
		t.Fatalf("held %d after rejects", h.d.Held())
	}
}

// Partial delivery: the first fragments of a large message are released
// before its end; its own stream queues nothing else until that end (so a
// stream's queue never interleaves messages), while the other streams'
// messages are delivered at once.
func TestPartialDeliveryHoldsOnlyItsStream(t *testing.T) {
	h := harness{t, must(newData(2))}
	h.add(1, 0, 0, chunk.FlagBeginning, "a")
	h.add(2, 0, 0, 0, "b")
	if h.d.Partial() != true {
		t.Fatal("partial delivery did not start")
	}
	if !h.d.InPartial(0) || h.d.InPartial(1) {
		t.Fatal("InPartial does not name stream 0 only")
	}
	if got := h.messages(); !eq(got, []string{"ab…"}) {
		t.Fatalf("got %v", got)
	}
	h.add(5, 1, 0, BE, "other")                  // another stream: delivered
	h.add(6, 0, 9, BE|chunk.FlagUnordered, "uo") // its own stream: waits
	if f := h.d.PeekStream(0); f != nil {
		t.Fatalf("stream 0 queued %q behind its partial delivery", f.Data)
	}
	if f := h.d.PeekStream(1); f == nil || string(f.Data) != "other" {
		t.Fatal("stream 1's message waits for stream 0's partial delivery")
	}
	if got := h.messages(); !eq(got, []string{"other"}) {
		t.Fatalf("got %v, want [other]", got)
	}
	h.add(4, 0, 0, chunk.FlagEnd, "d")
	if got := h.messages(); len(got) != 0 {
		t.Fatalf("out-of-sequence fragment released: %v", got)
	}
	h.add(3, 0, 0, 0, "c")
	if got := h.messages(); !eq(got, []string{"cd", "uo"}) {
		t.Fatalf("got %v, want [cd uo]", got)
	}
	if h.d.InPartial(0) || h.d.Held() != 0 || h.d.Ready() != 0 {
		t.Fatalf("after the end: partial %v held %d ready %d", h.d.InPartial(0), h.d.Held(), h.d.Ready())
	}
}

// FORWARD-TSN: incomplete fragments up to the new cumulative TSN are
// dropped and skipped streams move past their SSN.
func TestForwardTSN(t *testing.T) {
	h := harness{t, must(newData(2))}
	h.add(2, 0, 0, chunk.FlagBeginning, "lost-start") // its end was abandoned
	h.add(5, 0, 1, BE, "next")
	h.add(6, 1, 3, BE, "s1")
	h.d.ForwardTSN(4, []Skip{{SID: 0, SSN: 0}, {SID: 1, SSN: 2}})
	if got := h.messages(); !eq(got, []string{"next", "s1"}) {
		t.Fatalf("got %v, want [next s1]", got)
	}
	if h.d.Held() != 0 {
		t.Fatalf("held %d", h.d.Held())
	}
}

func TestPoolReuse(t *testing.T) {
	var p Pool
	buf := make([]byte, 1000)
	p.Put(p.Get(buf))
	allocs := testing.AllocsPerRun(100, func() {
		p.Put(p.Get(buf[:500]))
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

func TestDropHighest(t *testing.T) {
	h := harness{t, must(newData(2))}
	h.add(5, 0, 1, BE, "a")                     // held: SSN 0 missing
	h.add(9, 1, 0, chunk.FlagBeginning, "b")    // held: incomplete
	h.add(7, 1, 5, BE|chunk.FlagUnordered, "u") // delivered at once: not droppable
	if tsn, n, ok := h.d.DropHighest(6); !ok || tsn != 9 || n != 1 {
		t.Fatalf("dropped %d (%d bytes) %v, want TSN 9", tsn, n, ok)
	}
	if _, _, ok := h.d.DropHighest(6); ok {
		t.Fatal("dropped a fragment at or below the limit, or one queued for delivery")
	}
	if tsn, _, ok := h.d.DropHighest(4); !ok || tsn != 5 {
		t.Fatalf("dropped %d %v, want TSN 5", tsn, ok)
	}
	if h.d.Held() != 1 { // only the unordered message, ready
		t.Fatalf("held %d", h.d.Held())
	}
}
