package assoc

import (
	"reflect"
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
)

// TestAddStatsAddsEveryCounter fills every counter of a Stats with a value
// of its own and checks that addStats, the endpoint's total, adds each: a
// counter added to api.Counters and not to the sums fails here. The path
// and queue values, the shell's counters and the memory budget are not
// sums.
func TestAddStatsAddsEveryCounter(t *testing.T) {
	notSummed := map[string]bool{"SRTT": true, "RTO": true, "Cwnd": true, "PLPMTU": true,
		"Unacked": true, "SendBuffered": true, "RecvBuffered": true, "RecvMemory": true, "PeerRwnd": true, "EventsDropped": true,
		"MemoryInUse": true, "MemoryBudget": true, "UnboundAddrDropped": true}
	var in api.Stats
	n := uint64(0)
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				if !notSummed[v.Type().Field(i).Name] {
					fill(v.Field(i))
				}
			}
		case reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i))
			}
		case reflect.Uint64:
			n++
			v.SetUint(n)
		default:
			t.Fatalf("counter of kind %v: extend the test", v.Kind())
		}
	}
	fill(reflect.ValueOf(&in).Elem())
	var out api.Stats
	addStats(&out, &in)
	if !reflect.DeepEqual(in, out) {
		var compare func(path string, a, b reflect.Value)
		compare = func(path string, a, b reflect.Value) {
			switch a.Kind() {
			case reflect.Struct:
				for i := range a.NumField() {
					compare(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
				}
			case reflect.Array:
				for i := range a.Len() {
					compare(path, a.Index(i), b.Index(i))
				}
			default:
				if a.Interface() != b.Interface() {
					t.Errorf("%s: %v, want %v", path, b, a)
				}
			}
		}
		compare("Stats", reflect.ValueOf(in), reflect.ValueOf(out))
	}
	if n < 300 {
		t.Fatalf("only %d numbers filled", n)
	}
}
