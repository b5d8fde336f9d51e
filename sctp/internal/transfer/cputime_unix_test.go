//go:build unix

package transfer

import "syscall"

// cpuTime returns the CPU time the process has used, in nanoseconds: on a
// shared machine it measures the benchmark's own work, not the time spent
// waiting for a core.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
