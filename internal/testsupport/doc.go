// Package testsupport holds the helpers that the tests and benchmarks of
// several usctp packages share: whether the race detector is on, the
// process CPU time for benchmarks on a shared machine, and allocation
// measurement with the memory profile.
//
// It imports the standard library only, so every layer may use it; only
// test files import it.
package testsupport
