package netio

import (
	"fmt"
	"net/netip"
	"slices"
	"sync/atomic"
)

// The source address of each packet a multi-homed endpoint sends.
//
// An endpoint with several local addresses binds one socket to the
// wildcard address of their family, so the kernel would choose every
// packet's source by its routes alone. A SourceChooser sends each packet
// from one of the endpoint's addresses (Packet.Local, which the socket
// passes to the kernel with IP_PKTINFO / IPV6_PKTINFO): the address the
// last packet from that peer address arrived on, so that an answer leaves
// from the address its question was sent to; for a peer address not heard
// from yet, the source the kernel's routes choose (asked once per
// destination with a RouteProbe, in the network namespace the chooser was
// made in) if it is one of the endpoint's, else its first address of the
// destination's family. It also accepts only packets sent to one of the
// endpoint's addresses.
//
// The kernel routes by destination, so the path to a peer address leaves
// through the interface of that address's route: with one subnet per link
// (the usual multi-homing set-up) the source chosen is that link's own
// address.
//
// A wildcard endpoint that announces the host's addresses
// (NewHostSourceChooser) has every address of the host as its own: it
// accepts packets to any of them and sends each packet as a multi-homed
// one does.

// maxSources bounds the per-destination source cache; beyond it the cache
// starts again (it is refilled from the routes and the packets).
const maxSources = 4096

// SourceChooser chooses the source address of each packet a multi-homed
// endpoint sends and checks the destination of each it receives. Its user
// guards it with a lock of its own; only Dropped may be called
// concurrently with the other methods.
type SourceChooser struct {
	locals  []netip.Addr              // the endpoint's addresses; nil on a wildcard endpoint
	probe   *RouteProbe               // the kernel's source choice; nil on a user's conn
	srcs    map[netip.Addr]netip.Addr // peer IP -> source of packets to it
	dropped atomic.Uint64             // packets to an address not in locals
	hosts   *HostAddrs                // the host's addresses, on a wildcard endpoint
}

// NewSourceChooser returns the chooser of an endpoint with the local
// addresses locals; with probe it asks the kernel's routes for the source
// of destinations not heard from (a socket of the operating system's,
// not a user's net.Conn).
func NewSourceChooser(locals []netip.Addr, probe bool) (*SourceChooser, error) {
	c := &SourceChooser{locals: locals, srcs: make(map[netip.Addr]netip.Addr)}
	if probe {
		p, err := NewRouteProbe()
		if err != nil {
			return nil, fmt.Errorf("route probe: %w", err)
		}
		c.probe = p
	}
	return c, nil
}

// NewHostSourceChooser returns the chooser of a wildcard endpoint that
// announces the host's addresses: the kernel's list of them and its route
// lookups, opened in the calling thread's network namespace.
func NewHostSourceChooser() (*SourceChooser, error) {
	h, err := NewHostAddrs()
	if err != nil {
		return nil, fmt.Errorf("the host's addresses: %w", err)
	}
	p, err := NewRouteProbe()
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("route probe: %w", err)
	}
	return &SourceChooser{hosts: h, probe: p, srcs: make(map[netip.Addr]netip.Addr)}, nil
}

// HostAddrs returns the host's addresses (HostAddrs.Addrs) on a wildcard
// endpoint's chooser.
func (c *SourceChooser) HostAddrs() []netip.Addr { return c.hosts.Addrs() }

// Close releases the kernel lookups.
func (c *SourceChooser) Close() {
	if c.probe != nil {
		c.probe.Close()
	}
	if c.hosts != nil {
		c.hosts.Close()
	}
}

// Arrived notes that a packet from peer arrived on the local address
// local, and reports whether local is one of the endpoint's; the packets
// it refuses are counted (Dropped).
func (c *SourceChooser) Arrived(peer, local netip.Addr) bool {
	if c.hosts == nil && !slices.Contains(c.locals, local) {
		c.dropped.Add(1)
		return false
	}
	if s, ok := c.srcs[peer]; !ok || s != local {
		c.remember(peer, local)
	}
	return true
}

// Dropped returns the number of packets Arrived refused: sent to an
// address of the host that is not the endpoint's.
func (c *SourceChooser) Dropped() uint64 { return c.dropped.Load() }

// Source returns the local address to send a packet to dst from; the
// zero Addr leaves the choice to the kernel.
func (c *SourceChooser) Source(dst netip.Addr) netip.Addr {
	if s, ok := c.srcs[dst]; ok {
		return s
	}
	s := c.choose(dst)
	c.remember(dst, s)
	return s
}

func (c *SourceChooser) remember(dst, src netip.Addr) {
	if len(c.srcs) >= maxSources {
		clear(c.srcs)
	}
	c.srcs[dst] = src
}

// choose returns the source for a destination not heard from: the
// kernel's choice when it is one of the endpoint's addresses, else the
// first of dst's family, else none (the kernel's).
func (c *SourceChooser) choose(dst netip.Addr) netip.Addr {
	if c.probe != nil {
		if s := c.probe.Source(dst); c.hosts != nil && s.IsValid() || slices.Contains(c.locals, s) {
			return s
		}
	}
	v4 := dst.Unmap().Is4()
	for _, l := range c.locals {
		if l.Is4() == v4 {
			return l
		}
	}
	return netip.Addr{}
}
