package testsupport

import "testing"

var sink *[100]byte

//go:noinline
func allocHundred() { sink = new([100]byte) }

// TestMeasureAllocs checks one allocation of 100 bytes is seen in its
// 112-byte size-class slot, live while the sink holds it and not after.
func TestMeasureAllocs(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector changes allocations")
	}
	s := MeasureAllocs(t, "testsupport.allocHundred", allocHundred)
	if s.Count != 1 || s.Largest != 112 || s.Total != 112 || s.Live != 112 {
		t.Errorf("MeasureAllocs = %+v, want one live 112-byte allocation", s)
	}
	s = MeasureAllocs(t, "testsupport.allocHundred", func() { allocHundred(); sink = nil })
	if s.Count != 1 || s.Live != 0 {
		t.Errorf("MeasureAllocs of a dropped allocation = %+v, want one, not live", s)
	}
	if s := MeasureAllocs(t, "testsupport.nothing", allocHundred); s != (AllocStats{}) {
		t.Errorf("MeasureAllocs with no matching function = %+v, want zero", s)
	}
}
