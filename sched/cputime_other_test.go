//go:build !unix

package sched

// cpuTime is not available here; the benchmarks report wall time only.
func cpuTime() int64 { return 0 }
