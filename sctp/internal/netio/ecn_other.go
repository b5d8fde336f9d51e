//go:build !linux

package netio

import "syscall"

// setECT0 does nothing outside Linux.
func setECT0(syscall.RawConn) error { return nil }

// recvECN does nothing outside Linux.
func recvECN(batcher) error { return nil }
