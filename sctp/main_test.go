package sctp

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestMain fails the run when a test leaves endpoint goroutines behind.
// The test binary run with serveEnv set is a server process instead
// (serveChild).
func TestMain(m *testing.M) {
	serveChild()
	mountBPFFS()
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

// bubbleBound is the real time a test in a synctest bubble may run. The
// bubble's clock runs as fast as the test works, so a bug that keeps an
// association busy (a timer re-armed at once, data sent in circles) would
// spin on through hours of virtual time until the package timeout; the
// simulated-network tests take well under a second each.
const bubbleBound = 30 * time.Second

// bubble runs f in a synctest bubble (synctest.Test) and ends the test
// binary, with the stacks of every goroutine, when it is still running
// after bubbleBound of real time.
func bubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	name := t.Name()
	watchdog := time.AfterFunc(bubbleBound, func() {
		panic(fmt.Sprintf("%s: still running after %v of real time: no progress", name, bubbleBound))
	})
	defer watchdog.Stop()
	synctest.Test(t, f)
}
