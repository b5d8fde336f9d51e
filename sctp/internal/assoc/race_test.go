//go:build race

package assoc

const raceEnabled = true
