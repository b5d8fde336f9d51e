//go:build !linux

package netio

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// HostAddrs keeps the list of the host's IP addresses. Outside Linux it
// reads net.InterfaceAddrs again when the list is a second old.
type HostAddrs struct {
	mu    sync.Mutex
	addrs []netip.Addr
	at    time.Time
	dumps int
}

// NewHostAddrs opens the list.
func NewHostAddrs() (*HostAddrs, error) {
	h := &HostAddrs{}
	h.Addrs()
	return h, nil
}

// Addrs returns the host's addresses; the caller does not modify them.
func (h *HostAddrs) Addrs() []netip.Addr {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dumps > 0 && time.Since(h.at) < time.Second {
		return h.addrs
	}
	h.dumps++
	h.at = time.Now()
	as, err := net.InterfaceAddrs()
	if err != nil {
		return h.addrs
	}
	var out []netip.Addr
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	h.addrs = out
	return out
}

// Dumps returns how many times the list was read.
func (h *HostAddrs) Dumps() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dumps
}

// Close does nothing.
func (h *HostAddrs) Close() error { return nil }
