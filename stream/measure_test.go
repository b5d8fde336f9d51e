package stream

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/usctp/usctp/flexarray"
	"github.com/usctp/usctp/internal/testsupport"
)

var (
	sinkOuts []Out
	sinkIns  []In
	sinkOut  *Out
	sinkIn   *In
)

// TestStreamMemory compares, for an association with 65535 streams
// negotiated each way, the largest single allocation and the total bytes of
// stream state for (a) dense slices of records, (b) usctp's tables with 10
// streams in use, and (c) with all in use, measured with the memory
// profile. Run with -v for the table.
func TestStreamMemory(t *testing.T) {
	const n = 65535
	type row struct {
		name  string
		s     testsupport.AllocStats
		bytes int // Table.Bytes, -1 for no table
	}
	var rows []row
	const match = "stream.TestStreamMemory.func"

	var outs []Out
	var ins []In
	s := testsupport.MeasureAllocs(t, match, func() {
		outs = make([]Out, n)
		ins = make([]In, n)
	})
	sinkOuts, sinkIns = outs, ins
	rows = append(rows, row{"(a) dense []Out + []In", s, -1})
	sinkOuts, sinkIns = nil, nil

	use := func(tb *Table[sendSide, recvSide], sid uint16) {
		tb.Out(sid).TakeSSN()
		tb.OutSide(sid).queued++
		tb.In(sid).MID++
	}
	var tb *Table[sendSide, recvSide]
	s = testsupport.MeasureAllocs(t, match, func() { tb = NewTable[sendSide, recvSide](n, n) })
	rows = append(rows, row{"(0) usctp Table, none in use", s, tb.Bytes()})

	s = testsupport.MeasureAllocs(t, match, func() {
		tb = NewTable[sendSide, recvSide](n, n)
		for sid := range uint16(10) {
			use(tb, sid)
		}
	})
	rows = append(rows, row{"(b) usctp Table, streams 0-9 in use", s, tb.Bytes()})
	small := s

	s = testsupport.MeasureAllocs(t, match, func() {
		tb = NewTable[sendSide, recvSide](n, n)
		for k := range uint16(10) {
			use(tb, k*6553)
		}
	})
	rows = append(rows, row{"(b') usctp Table, 10 scattered streams in use", s, tb.Bytes()})

	s = testsupport.MeasureAllocs(t, match, func() {
		tb = NewTable[sendSide, recvSide](n, n)
		for sid := range uint16(n) {
			tb.Out(sid).TakeSSN()
			tb.In(sid).MID++
		}
	})
	rows = append(rows, row{"(c) usctp Table, all in use, no side objects", s, tb.Bytes()})

	s = testsupport.MeasureAllocs(t, match, func() {
		tb = NewTable[sendSide, recvSide](n, n)
		for sid := range uint16(n) {
			use(tb, sid)
		}
	})
	rows = append(rows, row{"(c') usctp Table, all in use, 64 B side objects", s, tb.Bytes()})
	runtime.KeepAlive(tb)

	var b strings.Builder
	fmt.Fprintf(&b, "65535 streams negotiated each way; records Out %d B, In %d B, side object %d B (slot %d B)\n",
		unsafe.Sizeof(Out{}), unsafe.Sizeof(In{}), unsafe.Sizeof(sendSide{}), unsafe.Sizeof(slot[sendSide]{}))
	fmt.Fprintf(&b, "%-46s %12s %12s %8s %12s\n", "case", "largest B", "total B", "allocs", "Bytes()")
	for _, r := range rows {
		bs := "-"
		if r.bytes >= 0 {
			bs = fmt.Sprint(r.bytes)
		}
		fmt.Fprintf(&b, "%-46s %12d %12d %8d %12s\n", r.name, r.s.Largest, r.s.Live, r.s.Count, bs)
		if r.bytes >= 0 && r.bytes != r.s.Live {
			t.Errorf("%s: Bytes() %d, measured live %d", r.name, r.bytes, r.s.Live)
		}
		if r.bytes >= 0 && r.s.Largest > flexarray.PageSize {
			t.Errorf("%s: largest allocation %d > %d", r.name, r.s.Largest, flexarray.PageSize)
		}
	}
	t.Log("\n" + b.String())
	if small.Live >= 16<<10 {
		t.Errorf("65535 streams each way with 10 in use hold %d bytes, want under 16 KiB", small.Live)
	}
}

func allocOut() { sinkOut = new(Out) }
func allocIn()  { sinkIn = new(In) }

// TestRecordSizeClasses checks the records against Go's size classes: each record, allocated alone, fills its size-class
// slot, and a page of records or side objects wastes under 2% of its slot.
// Sizes are measured with the memory profile, not taken from a table.
func TestRecordSizeClasses(t *testing.T) {
	check := func(name string, size int, alloc func()) {
		s := testsupport.MeasureAllocs(t, "stream.alloc", alloc)
		waste := float64(s.Largest-size) / float64(s.Largest) * 100
		t.Logf("%-8s %3d B in a %3d B slot: %.1f%% waste", name, size, s.Largest, waste)
		if s.Count != 1 || waste > 3 {
			t.Errorf("%s: %d bytes in a %d-byte slot (%d allocations): %.1f%% waste, want at most 3%%",
				name, size, s.Largest, s.Count, waste)
		}
	}
	check("Out", int(unsafe.Sizeof(Out{})), allocOut)
	check("In", int(unsafe.Sizeof(In{})), allocIn)
	if unsafe.Sizeof(Out{}) != 16 || unsafe.Sizeof(In{}) != 24 {
		t.Errorf("records are %d and %d bytes, want 16 and 24", unsafe.Sizeof(Out{}), unsafe.Sizeof(In{}))
	}
	pages := func(name string, per, size, pageBytes int, ptrs bool) {
		slot := flexarray.AllocSize(per*size, ptrs)
		waste := float64(slot-per*size) / float64(slot) * 100
		t.Logf("%-18s page: %3d x %3d B in a %4d B slot: %.1f%% waste", name, per, size, slot, waste)
		if waste > 2 || slot > pageBytes {
			t.Errorf("%s page wastes %.1f%% of its %d-byte slot", name, waste, slot)
		}
	}
	tb := NewTable[sendSide, recvSide](1, 1)
	pages("Out", tb.out.PerPage(), int(unsafe.Sizeof(Out{})), flexarray.PageSize, false)
	pages("In", tb.in.PerPage(), int(unsafe.Sizeof(In{})), flexarray.PageSize, false)
	pages("side slot[sendSide]", tb.outSides.slots.PerPage(), int(unsafe.Sizeof(slot[sendSide]{})), sidePageBytes, true)
	pages("side slot[recvSide]", tb.inSides.slots.PerPage(), int(unsafe.Sizeof(slot[recvSide]{})), sidePageBytes, true)
}
