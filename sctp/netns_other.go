//go:build !linux

package sctp

// netnsID returns 0: network namespaces are Linux's.
func netnsID() uint64 { return 0 }
