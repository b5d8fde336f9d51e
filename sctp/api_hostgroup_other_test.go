//go:build !linux

package sctp

// mountBPFFS: processes share UDP ports on Linux only.
func mountBPFFS() {}
