//go:build !race

package sctp_test

const raceEnabled = false
