//go:build !unix

package main

// cpuTime returns 0 where getrusage is missing: the rates stand alone.
func cpuTime() float64 { return 0 }
