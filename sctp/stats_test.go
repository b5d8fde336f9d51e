package sctp

import (
	"reflect"
	"testing"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// TestStatsOfCopiesEveryField fills every number of the core's Stats with
// a value of its own and checks that the public Stats has each under the
// same name: a counter added to the core and not to the conversion fails
// here.
func TestStatsOfCopiesEveryField(t *testing.T) {
	var in assoc.Stats
	n := uint64(0)
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i))
			}
		case reflect.Uint64, reflect.Uint32:
			n++
			v.SetUint(n)
		case reflect.Int64, reflect.Int:
			n++
			v.SetInt(int64(n))
		default:
			t.Fatalf("field of kind %v: extend the test", v.Kind())
		}
	}
	fill(reflect.ValueOf(&in).Elem())
	out := statsOf(&in)
	var compare func(path string, a, b reflect.Value)
	compare = func(path string, a, b reflect.Value) {
		switch a.Kind() {
		case reflect.Struct:
			for i := range a.NumField() {
				name := a.Type().Field(i).Name
				bf := b.FieldByName(name)
				if !bf.IsValid() {
					t.Errorf("%s.%s: not in the public Stats", path, name)
					continue
				}
				compare(path+"."+name, a.Field(i), bf)
			}
		case reflect.Array:
			for i := range a.Len() {
				compare(path, a.Index(i), b.Index(i))
			}
		default:
			if a.Interface() != b.Interface() && !(a.CanInt() && b.CanInt() && a.Int() == b.Int()) {
				t.Errorf("%s: %v, want %v", path, b, a)
			}
		}
	}
	compare("Stats", reflect.ValueOf(in), reflect.ValueOf(out))
	if n < 300 {
		t.Fatalf("only %d numbers filled", n)
	}
}
