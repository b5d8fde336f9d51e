package sctp

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when a test leaves endpoint goroutines behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// leakedGoroutines returns the stacks of goroutines still running code of
// this package, after giving exiting ones a moment.
func leakedGoroutines() string {
	var s string
	for range 100 {
		s = ""
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "usctp/sctp.(*Endpoint)") || strings.Contains(g, "usctp/sctp.(*Association)") {
				s += g + "\n\n"
			}
		}
		if s == "" {
			return ""
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s
}
