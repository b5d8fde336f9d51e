//go:build !linux

package netio

import "net/netip"

// RouteProbe asks the kernel which local address it would send from to a
// destination. Outside Linux it knows nothing: Source returns the zero
// Addr, and the kernel chooses each packet's source.
type RouteProbe struct{}

// NewRouteProbe opens a probe.
func NewRouteProbe() (*RouteProbe, error) { return &RouteProbe{}, nil }

// Source returns the zero Addr: unknown.
func (r *RouteProbe) Source(dst netip.Addr) netip.Addr { return netip.Addr{} }

// MTU returns 0: unknown.
func (r *RouteProbe) MTU(dst netip.Addr) int { return 0 }

// Close does nothing.
func (r *RouteProbe) Close() error { return nil }
