//go:build unix

package testsupport

import "syscall"

// CPUTime returns the CPU time the process has used, in nanoseconds, or 0
// where it is unavailable: on a shared machine it measures a benchmark's
// own work, not the time spent waiting for a core.
func CPUTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
