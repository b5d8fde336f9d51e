//go:build !unix

package transfer

// cpuTime is unavailable here: benchmarks report wall time only.
func cpuTime() int64 { return 0 }
