package kernelvm

import (
	"strconv"
	"strings"
)

// Line is one line kpeer printed: a verb and key=value fields, for example
// "MSG id=srv conn=1 sid=3 ppid=103 len=100 unordered=0 crc=1c291ca3".
type Line struct {
	Raw    string
	Verb   string
	fields map[string]string
}

func parseLine(raw string) Line {
	l := Line{Raw: raw, fields: map[string]string{}}
	words := strings.Fields(raw)
	if len(words) == 0 {
		return l
	}
	l.Verb = words[0]
	for _, w := range words[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			l.fields[k] = strings.Trim(v, `"`)
		}
	}
	return l
}

// Get returns the value of field k, or "" when the line has none.
func (l Line) Get(k string) string { return l.fields[k] }

// Int returns field k as an integer, or -1 when it is absent or not a number.
func (l Line) Int(k string) int {
	n, err := strconv.Atoi(l.fields[k])
	if err != nil {
		return -1
	}
	return n
}

// String returns the raw line.
func (l Line) String() string { return l.Raw }
