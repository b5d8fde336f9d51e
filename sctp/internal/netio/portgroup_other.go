//go:build !linux

package netio

import (
	"fmt"
	"net/netip"
	"syscall"
)

// groupAvailable: host groups are Linux's.
func groupAvailable() error {
	return fmt.Errorf("%w: sharing a UDP port between processes is supported on Linux only", errNoGroup)
}

// hostGroup is a socket's membership in a host group (Linux only).
type hostGroup struct{}

func joinGroup(rc syscall.RawConn, addr netip.AddrPort, netns uint64) (*hostGroup, error) {
	return nil, groupAvailable()
}

func (g *hostGroup) claim(port uint16) error          { return groupAvailable() }
func (g *hostGroup) release(port uint16)              {}
func (g *hostGroup) servedElsewhere(port uint16) bool { return false }
func (g *hostGroup) leave(close func() error) error   { return close() }
