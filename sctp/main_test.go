package sctp

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
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

// A test in a synctest bubble runs its simulated clock as fast as it
// works, so a bug that keeps an association busy would spin on until the
// package timeout: either without the clock moving (work sent in circles,
// a timer re-armed at once) or through hours of simulated time (a timer
// re-armed over and over with no end). bubble ends the test binary, with
// the stacks of every goroutine, in either case:
//
//   - bubbleStall: the real time the simulated clock may stand still while
//     the test runs. It bounds the real time of a step of simulated time,
//     not the test's length: a test that moves a lot of data (seconds of
//     real time per simulated second with -race on a loaded machine)
//     passes on a slow machine.
//   - bubbleSimBound: the simulated time a bubble may run; the longest
//     test needs a few minutes of it.
const (
	bubbleStall    = 30 * time.Second
	bubbleSimBound = time.Hour
	bubbleTick     = 100 * time.Millisecond // simulated; how often the clock is sampled
)

// bubble runs f in a synctest bubble (synctest.Test) and ends the test
// binary, with the stacks of every goroutine, when the bubble's clock
// stands still for bubbleStall of real time or runs past bubbleSimBound.
// A goroutine in the bubble samples the clock every bubbleTick: a bubble
// whose goroutines are all blocked forever then runs to bubbleSimBound
// instead of failing at once as synctest's deadlock.
func bubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	name := t.Name()
	var simElapsed atomic.Int64 // nanoseconds of simulated time since the bubble started
	stop := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		last, lastReal := int64(-1), time.Now()
		tick := time.NewTicker(bubbleStall / 10)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				e := simElapsed.Load()
				if e != last {
					last, lastReal = e, now
				} else if now.Sub(lastReal) > bubbleStall {
					panic(fmt.Sprintf("%s: the simulated clock stood still at %v for %v of real time: no progress",
						name, time.Duration(e), bubbleStall))
				}
				if time.Duration(e) > bubbleSimBound {
					panic(fmt.Sprintf("%s: still running after %v of simulated time: no progress (or every goroutine blocked)",
						name, bubbleSimBound))
				}
			}
		}
	}()
	defer func() { close(stop); <-exited }()
	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			start := time.Now()
			for {
				select {
				case <-done:
					return
				case <-time.After(bubbleTick):
					simElapsed.Store(int64(time.Since(start)))
				}
			}
		}()
		defer func() { close(done); <-sampled }()
		f(t)
	})
}
