//go:build !linux

package netio

import (
	"net"
	"syscall"
	"time"
)

// newUDPBatcher falls back to one datagram per call outside Linux.
func newUDPBatcher(c *net.UDPConn, remotePort uint16, gso, gro, df, _, _ bool, busyPoll time.Duration) (batcher, sockConn, error) {
	return single{NewAdapter(c, AdapterConfig{RemotePort: remotePort})}, c, nil
}

func forceBuffers(rc syscall.RawConn, size int) bool { return false }
