package stream

import (
	"runtime"
	"strings"
	"testing"
)

// allocStats is what measureAllocs saw: every allocation made, with its real
// slot size, by a call stack that passes through the package's code.
type allocStats struct {
	Largest int // bytes of the largest single allocation
	Total   int // bytes of all allocations
	Count   int // number of allocations
	Live    int // bytes of those allocations still reachable at the end
}

type profKey struct {
	stack [32]uintptr
	size  int64
}

type profCount struct{ alloc, live int64 }

// profile returns the runtime's allocation counts per (stack, size) for the
// stacks that pass through a function whose name contains one of the
// |-separated strings in match.
func profile(match string) map[profKey]profCount {
	var recs []runtime.MemProfileRecord
	for {
		n, ok := runtime.MemProfile(recs, true)
		if ok {
			recs = recs[:n]
			break
		}
		recs = make([]runtime.MemProfileRecord, n+64)
	}
	out := make(map[profKey]profCount)
	for _, r := range recs {
		if r.AllocObjects == 0 || !stackMatches(r.Stack(), match) {
			continue
		}
		// With MemProfileRate == 1 every allocation is recorded, and the
		// runtime keeps one bucket per stack and object size.
		k := profKey{r.Stack0, r.AllocBytes / r.AllocObjects}
		c := out[k]
		c.alloc += r.AllocObjects
		c.live += r.InUseObjects()
		out[k] = c
	}
	return out
}

func stackMatches(stk []uintptr, match string) bool {
	frames := runtime.CallersFrames(stk)
	for {
		f, more := frames.Next()
		for m := range strings.SplitSeq(match, "|") {
			if strings.Contains(f.Function, m) {
				return true
			}
		}
		if !more {
			return false
		}
	}
}

// measureAllocs runs fn with every allocation profiled and returns the
// allocations made under functions whose name contains one of the
// |-separated strings in match. It measures; it does not trust constants.
func measureAllocs(t testing.TB, match string, fn func()) allocStats {
	t.Helper()
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	// The profile is published at the end of a GC cycle; two cycles make
	// sure everything allocated so far is in it.
	runtime.GC()
	runtime.GC()
	before := profile(match)
	fn()
	runtime.GC()
	runtime.GC()
	after := profile(match)
	var s allocStats
	for k, c := range after {
		n := c.alloc - before[k].alloc
		if n <= 0 {
			continue
		}
		s.Count += int(n)
		s.Total += int(n * k.size)
		s.Live += int((c.live - before[k].live) * k.size)
		s.Largest = max(s.Largest, int(k.size))
	}
	return s
}
