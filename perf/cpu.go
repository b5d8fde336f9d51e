package perf

import (
	"runtime"
	"syscall"
	"time"
)

// cpuMark is the process's CPU time at one instant.
type cpuMark struct {
	at        time.Time
	user, sys time.Duration
}

func markCPU() cpuMark {
	var ru syscall.Rusage
	m := cpuMark{at: time.Now()}
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		m.user = time.Duration(ru.Utime.Nano())
		m.sys = time.Duration(ru.Stime.Nano())
	}
	return m
}

// since returns the CPU used from m to now as a share of the host's CPUs.
func (m cpuMark) since() CPU {
	return cpuBetween(m, markCPU(), runtime.NumCPU())
}

// cpuBetween computes the CPU use between two marks on a host of cores CPUs.
func cpuBetween(a, b cpuMark, cores int) CPU {
	c := CPU{User: (b.user - a.user).Seconds(), Sys: (b.sys - a.sys).Seconds(), Cores: cores}
	if wall := b.at.Sub(a.at).Seconds(); wall > 0 && cores > 0 {
		c.Util = (c.User + c.Sys) / wall / float64(cores) * 100
	}
	return c
}
