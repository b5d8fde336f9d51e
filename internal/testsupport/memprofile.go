package testsupport

import (
	"runtime"
	"strings"
	"testing"
)

// AllocStats is what MeasureAllocs saw: every allocation made, with its
// real slot size, by a call stack that passes through the measured code.
type AllocStats struct {
	Largest int // bytes of the largest single allocation
	Total   int // bytes of all allocations
	Count   int // number of allocations
	Live    int // bytes of those allocations still reachable at the end
}

// MeasureAllocs runs fn with every allocation profiled and returns the
// allocations made under functions whose name contains one of the
// |-separated strings in match, leaving out those the runtime makes for
// itself (see stackMatches). It measures; it does not trust constants.
func MeasureAllocs(tb testing.TB, match string, fn func()) AllocStats {
	tb.Helper()
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	// The profile is published at the end of a GC cycle; two cycles make
	// sure everything allocated and freed so far is in it.
	runtime.GC()
	runtime.GC()
	before := profile(match)
	fn()
	runtime.GC()
	runtime.GC()
	after := profile(match)
	var s AllocStats
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

// stackMatches reports whether the allocation with call stack stk was made
// by code matching match: a function in the stack matches, and the
// allocation is not the runtime's own.
//
// The runtime allocates for itself inside an allocation of the program:
// an allocation that pays a GC assist may finish the mark phase, which
// waits on a semaphore whose sudog it allocates and keeps in a per-P cache
// for ever. Such an allocation carries the program's stack but is not the
// program's memory, and counting it would make live bytes flaky (assists
// are more common on a loaded machine).
func stackMatches(stk []uintptr, match string) bool {
	frames := runtime.CallersFrames(stk)
	inRuntime := true // still in the innermost run of runtime frames
	mallocs := 0
	for {
		f, more := frames.Next()
		if inRuntime {
			if pkg, name, ok := strings.Cut(f.Function, "."); ok && pkg == "runtime" {
				if name == "mallocgc" {
					mallocs++
				}
				if mallocs > 1 || strings.HasPrefix(name, "gc") {
					return false // the allocator entered again: the runtime's own
				}
			} else {
				inRuntime = false
			}
		}
		if !inRuntime {
			for m := range strings.SplitSeq(match, "|") {
				if strings.Contains(f.Function, m) {
					return true
				}
			}
		}
		if !more {
			return false
		}
	}
}
