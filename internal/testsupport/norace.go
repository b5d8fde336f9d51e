//go:build !race

package testsupport

// RaceEnabled reports whether the binary was built with -race, under which
// allocation counts and sizes differ and long runs are too slow.
const RaceEnabled = false
