package api

import (
	"fmt"
	"testing"
	"time"
)

// TestStatsString: a printed Stats is one short line of what is not zero,
// not two 256-entry arrays of chunk counts and every zero counter.
func TestStatsString(t *testing.T) {
	var s Stats
	if got := fmt.Sprint(s); got != "{}" {
		t.Errorf("zero Stats prints %q, want {}", got)
	}
	s.PacketsIn, s.PacketsOut = 12, 9
	s.ChunksIn[0], s.ChunksIn[3] = 5, 4
	s.SRTT = 3 * time.Millisecond
	s.Auth.Verified = 2
	want := "{PacketsIn:12 PacketsOut:9 Auth{Verified:2} ChunksIn:[DATA:5 SACK:4] SRTT:3ms}"
	for _, f := range []string{"%v", "%+v"} {
		if got := fmt.Sprintf(f, s); got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
	s.ChunksOut[1] = 1
	s.PRAbandoned[1] = 1
	if got := fmt.Sprint(s); len(got) > 200 {
		t.Errorf("a Stats with a few counters prints %d bytes: %s", len(got), got)
	}
}
