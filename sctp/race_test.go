//go:build race

package sctp

const raceEnabled = true
