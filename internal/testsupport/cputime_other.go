//go:build !unix

package testsupport

// CPUTime returns the CPU time the process has used, in nanoseconds, or 0
// where it is unavailable, as here: benchmarks report wall time only.
func CPUTime() int64 { return 0 }
