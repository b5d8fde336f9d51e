package stream

import (
	"errors"
	"strconv"
	"testing"
)

// sendSide stands for the data-transfer engine's per-stream send state: a
// queue head and tail and counters.
type sendSide struct {
	head, tail *[]byte
	queued     int64
	sent       uint64
	abandoned  uint64
	buf        []byte // kept across reuse by Reset
}

// Reset clears the logical state and keeps the buffer's capacity.
func (s *sendSide) Reset() {
	*s = sendSide{buf: s.buf[:0]}
}

// recvSide has no Reset method: released objects are zeroed.
type recvSide struct {
	pending int
	first   *int
}

func TestBoundsChecked(t *testing.T) {
	tb := NewTable[sendSide, recvSide](10, 20)
	if tb.OutCount() != 10 || tb.InCount() != 20 {
		t.Fatalf("counts %d/%d", tb.OutCount(), tb.InCount())
	}
	for _, sid := range []uint16{10, 11, 1000, 65535} {
		if tb.Out(sid) != nil || tb.OutSide(sid) != nil || tb.PeekOutSide(sid) != nil || !tb.OutHandle(sid).IsZero() {
			t.Errorf("outbound %d accepted", sid)
		}
		o, err := tb.LookupOut(sid)
		var re *RangeError
		if o != nil || !errors.Is(err, ErrInvalidStream) || !errors.As(err, &re) || re.SID != sid || re.Count != 10 || re.Inbound {
			t.Errorf("LookupOut(%d) = %v, %v", sid, o, err)
		}
		tb.FreeOutSide(sid) // no panic
	}
	for _, sid := range []uint16{20, 65535} {
		if tb.In(sid) != nil || tb.InSide(sid) != nil || tb.PeekInSide(sid) != nil || !tb.InHandle(sid).IsZero() {
			t.Errorf("inbound %d accepted", sid)
		}
		if _, err := tb.LookupIn(sid); !errors.Is(err, ErrInvalidStream) ||
			err.Error() != "stream: invalid inbound stream "+strconv.Itoa(int(sid))+" (20 negotiated)" {
			t.Errorf("LookupIn(%d): %v", sid, err)
		}
		tb.FreeInSide(sid)
	}
	if o, err := tb.LookupOut(9); o == nil || err != nil {
		t.Error("LookupOut(9) on 10 streams")
	}
	if in, err := tb.LookupIn(19); in == nil || err != nil {
		t.Error("LookupIn(19) on 20 streams")
	}
	empty := NewTable[sendSide, recvSide](0, 0)
	if empty.Out(0) != nil || empty.In(0) != nil {
		t.Error("table without streams accepted stream 0")
	}
	full := NewTable[sendSide, recvSide](65535, 65535)
	if full.Out(65534) == nil || full.In(65534) == nil || full.Out(65535) != nil || full.In(65535) != nil {
		t.Error("65535 streams: bounds wrong at the top")
	}
}

func TestFreshRecords(t *testing.T) {
	tb := NewTable[sendSide, recvSide](300, 300)
	o := tb.Out(299)
	if o.State != Open || o.MID != 0 || o.MIDUO != 0 || o.HasSide() {
		t.Errorf("fresh out record %+v", *o)
	}
	if in := tb.In(299); *in != (In{}) {
		t.Errorf("fresh in record %+v", *in)
	}
	// The neighbours created with the page are initialised too.
	for sid, o := range tb.Outs() {
		if o.State != Open {
			t.Fatalf("neighbour %d is %v", sid, o.State)
		}
	}
	if tb.Out(0).State != Open {
		t.Error("stream 0")
	}
}

func TestTakeNumbers(t *testing.T) {
	var o Out
	o.MID = 65535
	if o.TakeSSN() != 65535 || o.TakeSSN() != 0 || o.MID != 1 {
		t.Errorf("TakeSSN does not wrap at 16 bits: MID %d", o.MID)
	}
	o.MID, o.MIDUO = 1<<32-1, 7
	if o.TakeMID(false) != 1<<32-1 || o.MID != 0 || o.TakeMID(true) != 7 || o.MIDUO != 8 {
		t.Error("TakeMID")
	}
	o.ResetSequence()
	if o.MID != 0 || o.MIDUO != 0 {
		t.Error("Out.ResetSequence")
	}
	in := In{MID: 5, MIDUO: 6, FSN: 7, FSNUO: 8, PD: true, PDUO: true}
	if in.NextSSN() != 5 {
		t.Error("NextSSN")
	}
	in.ResetSequence()
	if in != (In{}) {
		t.Error("In.ResetSequence")
	}
	if Open.String() != "Open" || ResetPending.String() != "ResetPending" || State(9).String() != "State(9)" {
		t.Error("State.String")
	}
}

func TestGrowNeverMoves(t *testing.T) {
	tb := NewTable[sendSide, recvSide](10, 10)
	o, in := tb.Out(5), tb.In(5)
	o.MID, in.MID = 42, 43
	side := tb.OutSide(5)
	side.queued = 9
	h := tb.OutHandle(5)
	tb.ResizeOut(65535)
	tb.ResizeIn(65535)
	tb.Out(65534).MID = 1
	tb.In(65534).MID = 1
	for sid := uint16(0); sid < 65535; sid += 97 {
		tb.Out(sid)
		tb.In(sid)
	}
	if tb.Out(5) != o || tb.In(5) != in || o.MID != 42 || in.MID != 43 {
		t.Fatal("records moved or changed on growth")
	}
	if tb.OutSide(5) != side || tb.OutSideOf(h) != side || side.queued != 9 {
		t.Fatal("side object moved or changed on growth")
	}
	if tb.Out(60000).State != Open {
		t.Error("stream added by ResizeOut is not Open")
	}
}

func TestShrinkReleases(t *testing.T) {
	tb := NewTable[sendSide, recvSide](300, 300)
	for sid := uint16(0); sid < 300; sid++ {
		tb.Out(sid).MID = MID(sid) + 1
		tb.Out(sid).State = ResetPending
		tb.In(sid).MID = MID(sid) + 1
		tb.OutSide(sid).queued = int64(sid)
		tb.InSide(sid).pending = int(sid)
	}
	h, hin := tb.OutHandle(250), tb.InHandle(250)
	tb.ResizeOut(100)
	tb.ResizeIn(100)
	if tb.OutSideOf(h) != nil || tb.InSideOf(hin) != nil {
		t.Fatal("handle to a removed stream's side object still resolves")
	}
	if tb.OutSideCount() != 100 || tb.InSideCount() != 100 {
		t.Fatalf("side objects in use %d/%d, want 100/100", tb.OutSideCount(), tb.InSideCount())
	}
	tb.ResizeOut(300)
	tb.ResizeIn(300)
	for sid := uint16(100); sid < 300; sid++ {
		o, in := tb.Out(sid), tb.In(sid)
		if o.State != Open || o.MID != 0 || o.HasSide() || *in != (In{}) {
			t.Fatalf("stream %d after shrink and regrow: out %+v in %+v", sid, *o, *in)
		}
		if tb.PeekOutSide(sid) != nil || tb.PeekInSide(sid) != nil {
			t.Fatalf("stream %d has a side object after shrink and regrow", sid)
		}
	}
	for sid := uint16(0); sid < 100; sid++ {
		if tb.Out(sid).MID != MID(sid)+1 || tb.OutSide(sid).queued != int64(sid) || tb.InSide(sid).pending != int(sid) {
			t.Fatalf("stream %d lost state in the shrink", sid)
		}
	}
}

func TestSideObjectLifecycle(t *testing.T) {
	tb := NewTable[sendSide, recvSide](100, 100)
	if tb.PeekOutSide(3) != nil || tb.OutSideCount() != 0 {
		t.Fatal("side object before use")
	}
	s := tb.OutSide(3)
	if s == nil || tb.OutSide(3) != s || tb.PeekOutSide(3) != s || !tb.Out(3).HasSide() {
		t.Fatal("OutSide does not return the same object")
	}
	s.queued, s.buf = 5, make([]byte, 10, 4096)
	h := tb.OutHandle(3)
	if h.IsZero() || h.SID() != 3 || h.Inbound() || tb.OutSideOf(h) != s || tb.InSideOf(h) != nil {
		t.Fatal("handle")
	}
	tb.FreeOutSide(3)
	if tb.OutSideOf(h) != nil || tb.PeekOutSide(3) != nil || tb.Out(3).HasSide() {
		t.Fatal("released side object still reachable")
	}
	// The slot is reused, reset by its Reset method (buffer kept), and the
	// old handle stays stale although the slot is live again.
	s2 := tb.OutSide(7)
	if s2 != s {
		t.Fatal("free list not reused")
	}
	if s2.queued != 0 || len(s2.buf) != 0 || cap(s2.buf) != 4096 {
		t.Fatalf("reused object not reset or buffer not kept: %+v", *s2)
	}
	if tb.OutSideOf(h) != nil {
		t.Fatal("stale handle resolves to the reused slot")
	}
	h7 := tb.OutHandle(7)
	if tb.OutSideOf(h7) != s2 || h7 == h {
		t.Fatal("new handle")
	}
	// Types without Reset are zeroed.
	r := tb.InSide(1)
	x := 1
	r.pending, r.first = 3, &x
	hin := tb.InHandle(1)
	if !hin.Inbound() || tb.InSideOf(hin) != r || tb.OutSideOf(hin) != nil {
		t.Fatal("inbound handle")
	}
	tb.FreeInSide(1)
	if r2 := tb.InSide(2); r2 != r || *r2 != (recvSide{}) {
		t.Fatal("inbound object not reused or not zeroed")
	}
	if tb.OutSideOf(Handle{}) != nil || tb.InSideOf(Handle{}) != nil {
		t.Fatal("zero handle resolves")
	}
}

func TestSideIteration(t *testing.T) {
	tb := NewTable[sendSide, recvSide](65535, 65535)
	want := []uint16{60000, 3, 700, 64999, 0}
	for _, sid := range want {
		tb.OutSide(sid).queued = int64(sid)
		tb.InSide(sid).pending = int(sid)
	}
	tb.Out(100) // touched, no side object
	var got []uint16
	for sid, s := range tb.OutSides() {
		if s.queued != int64(sid) {
			t.Fatal("wrong object for stream")
		}
		got = append(got, sid)
	}
	var gotIn []uint16
	for sid, s := range tb.InSides() {
		if s.pending != int(sid) {
			t.Fatal("wrong inbound object for stream")
		}
		gotIn = append(gotIn, sid)
	}
	sorted := []uint16{0, 3, 700, 60000, 64999}
	if len(got) != 5 || len(gotIn) != 5 {
		t.Fatalf("iterated %v / %v", got, gotIn)
	}
	for i := range sorted {
		if got[i] != sorted[i] || gotIn[i] != sorted[i] {
			t.Fatalf("iteration order %v / %v, want %v", got, gotIn, sorted)
		}
	}
	for range tb.OutSides() {
		break
	}
}

func TestAddStreams(t *testing.T) {
	tb := NewTable[sendSide, recvSide](10, 10)
	tb.Out(9).MID = 5
	first, err := tb.AddOut(1000)
	if err != nil || first != 10 || tb.OutCount() != 1010 {
		t.Fatalf("AddOut: %d, %v, count %d", first, err, tb.OutCount())
	}
	if f, pending := tb.AddOutPending(); !pending || f != 10 {
		t.Fatal("AddOutPending")
	}
	// Records on the page shared with old streams and on new pages alike
	// are AddPending; old streams keep their state.
	if tb.Out(10).State != AddPending || tb.Out(1009).State != AddPending || tb.Out(9).State != Open {
		t.Fatalf("states %v %v %v", tb.Out(10).State, tb.Out(1009).State, tb.Out(9).State)
	}
	if _, err := tb.AddOut(1); !errors.Is(err, ErrAddPending) {
		t.Errorf("second AddOut: %v", err)
	}
	tb.Out(500).MID = 3 // a user queued (numbering is the caller's business)
	tb.FinishAddOut(true)
	if _, pending := tb.AddOutPending(); pending {
		t.Fatal("still pending")
	}
	if o := tb.Out(500); o.State != Open || o.MID != 0 || tb.Out(1000).State != Open || tb.Out(9).MID != 5 {
		t.Fatal("FinishAddOut(true)")
	}

	// A refused request removes the streams and their side objects.
	first, err = tb.AddOut(100)
	if err != nil || first != 1010 {
		t.Fatal("AddOut after finish")
	}
	h := tb.OutHandle(1050)
	tb.OutSide(1050).queued = 1
	if tb.OutSideOf(tb.OutHandle(1050)) == nil || !h.IsZero() {
		t.Fatal("side object on a pending stream")
	}
	h = tb.OutHandle(1050)
	tb.FinishAddOut(false)
	if tb.OutCount() != 1010 || tb.Out(1050) != nil || tb.OutSideOf(h) != nil || tb.OutSideCount() != 0 {
		t.Fatal("FinishAddOut(false)")
	}
	// Growing with ResizeOut while a request is pending adds pending
	// streams; shrinking below the pending range ends it.
	tb.AddOut(10)
	tb.ResizeOut(1030)
	if tb.Out(1025).State != AddPending {
		t.Error("stream added by ResizeOut during a pending add is not AddPending")
	}
	tb.ResizeOut(1000)
	if _, pending := tb.AddOutPending(); pending || tb.Out(999).State != Open {
		t.Error("shrink below the pending range")
	}
	if _, err := tb.AddOut(65535 - 1000 + 1); !errors.Is(err, ErrTooManyStreams) || tb.OutCount() != 1000 {
		t.Errorf("AddOut over 65535: %v", err)
	}
	if _, err := tb.AddOut(65535 - 1000); err != nil || tb.OutCount() != 65535 {
		t.Errorf("AddOut to 65535: %v", err)
	}
}

func TestResetSequences(t *testing.T) {
	tb := NewTable[sendSide, recvSide](1000, 1000)
	for sid := uint16(0); sid < 1000; sid += 99 {
		tb.Out(sid).MID, tb.Out(sid).MIDUO = 4, 5
		tb.In(sid).MID, tb.In(sid).PD = 6, true
		tb.OutSide(sid).queued = 1
	}
	tb.Out(0).State = ResetPending
	tb.ResetSequences()
	for sid := uint16(0); sid < 1000; sid += 99 {
		if o, in := tb.Out(sid), tb.In(sid); o.MID != 0 || o.MIDUO != 0 || in.MID != 0 || in.PD || tb.OutSide(sid).queued != 1 {
			t.Fatalf("stream %d not reset or side object lost", sid)
		}
	}
	if tb.Out(0).State != ResetPending {
		t.Error("ResetSequences changed a state")
	}
}

func TestNoAllocs(t *testing.T) {
	tb := NewTable[sendSide, recvSide](65535, 65535)
	tb.OutSide(700)
	tb.InSide(700)
	h := tb.OutHandle(700)
	tb.OutSide(5)
	for name, f := range map[string]func(){
		"Out":          func() { _ = tb.Out(700) },
		"In":           func() { _ = tb.In(700) },
		"OutInvalid":   func() { _ = tb.Out(65535) },
		"OutSide":      func() { _ = tb.OutSide(700) },
		"InSide":       func() { _ = tb.InSide(700) },
		"OutSideOf":    func() { _ = tb.OutSideOf(h) },
		"PeekOutSide":  func() { _ = tb.PeekOutSide(701) },
		"FreeAndReuse": func() { tb.FreeOutSide(5); tb.OutSide(5) },
		"TakeSSN":      func() { tb.Out(700).TakeSSN() },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

var sinkO *Out

// BenchmarkOut compares the Out accessor with a map of stream pointers (the
// approach Pion's SCTP takes) and with a plain slice, for 65535 streams.
func BenchmarkOut(b *testing.B) {
	const n = 65535
	tb := NewTable[sendSide, recvSide](n, n)
	m := make(map[uint16]*Out, n)
	plain := make([]Out, n)
	for sid := range uint16(n) {
		m[sid] = tb.Out(sid)
	}
	idx := make([]uint16, 4096)
	for k := range idx {
		idx[k] = uint16((k * 7919) % n)
	}
	b.Run("Table.Out", func(b *testing.B) {
		for k := 0; b.Loop(); k++ {
			sinkO = tb.Out(idx[k&4095])
		}
	})
	b.Run("map", func(b *testing.B) {
		for k := 0; b.Loop(); k++ {
			sinkO = m[idx[k&4095]]
		}
	})
	b.Run("slice", func(b *testing.B) {
		for k := 0; b.Loop(); k++ {
			if i := idx[k&4095]; int(i) < len(plain) {
				sinkO = &plain[i]
			}
		}
	})
	b.Run("Table.OutSide", func(b *testing.B) {
		for sid := range uint16(n) {
			tb.OutSide(sid)
		}
		b.ResetTimer()
		var s *sendSide
		for k := 0; b.Loop(); k++ {
			s = tb.OutSide(idx[k&4095])
		}
		_ = s
	})
}
