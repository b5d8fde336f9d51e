package api

import (
	"fmt"
	"reflect"
	"strings"
)

// String returns the counters and values that are not zero, by name, on
// one line: "{PacketsIn:12 PacketsOut:9 ChunksIn:[DATA:5 SACK:4] ...}".
// Groups print as "Auth{...}" when any of their counters is not zero.
// Printing a Stats with %v or %+v shows this; the fields hold the whole.
func (s Stats) String() string {
	var b strings.Builder
	b.WriteByte('{')
	appendNonZero(&b, reflect.ValueOf(s))
	b.WriteByte('}')
	return b.String()
}

// appendNonZero writes the fields of struct v that are not zero as
// "Name:value", separated by spaces; an embedded struct's fields as its
// own, a nested struct as "Name{...}".
func appendNonZero(b *strings.Builder, v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		switch {
		case f.Anonymous && fv.Kind() == reflect.Struct:
			appendNonZero(b, fv)
			continue
		case fv.Kind() == reflect.Struct && !fv.Type().Implements(stringerType):
			sep(b)
			b.WriteString(f.Name)
			b.WriteByte('{')
			appendNonZero(b, fv)
			b.WriteByte('}')
			continue
		}
		sep(b)
		fmt.Fprintf(b, "%s:%v", f.Name, fv.Interface())
	}
}

// sep writes a space unless b ends a field list's opening brace.
func sep(b *strings.Builder) {
	if s := b.String(); len(s) > 0 && s[len(s)-1] != '{' {
		b.WriteByte(' ')
	}
}

var stringerType = reflect.TypeFor[fmt.Stringer]()
