//go:build unix

package main

import "golang.org/x/sys/unix"

// cpuTime returns the CPU seconds the process used, user and system.
func cpuTime() float64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
