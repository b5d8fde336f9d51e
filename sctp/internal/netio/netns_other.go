//go:build !linux

package netio

// netnsID is 0 where network namespaces do not exist.
func netnsID() uint64 { return 0 }
