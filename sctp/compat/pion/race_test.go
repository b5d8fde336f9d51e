//go:build race

package sctp_test

// raceEnabled: the tests run under the race detector, and so do the
// foreign tests they start.
const raceEnabled = true
