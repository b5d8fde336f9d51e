package sctp

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Dial starts an association to raddr ("HOST:PORT", the peer's IP
// address or host name and SCTP port) on a new endpoint of its own, and
// waits until it is established or ctx is done. The endpoint closes with
// the association. A host name is resolved once, to the first address the
// resolver gives, as Listen resolves it. A peer whose UDP encapsulation
// port is not Config.RemoteUDPPort is "HOST:PORT/udp:N", as Addr prints
// an endpoint's address: Dial(ctx, l.Addr().String(), cfg) reaches
// listener l wherever its UDP port is.
//
// A peer with several addresses is "IP,IP,...:PORT" (IPv6 addresses in
// brackets): as DialAddrs, the INIT tries them in turn and Multihoming is
// on. Config.LocalAddrs chooses the local addresses.
//
// Its errors are *net.OpError values with Op "dial" and Net "sctp", as
// package net's: Addr is the peer's address (an Addr for one IP address),
// nil when raddr is malformed, and Err the cause, which errors.Is and
// errors.As reach: a *net.AddrError for a malformed address, the
// resolver's *net.DNSError, ctx's error, or the *AbortError of the
// association (ErrConnRefused, ErrTimeout, syscall.ENETUNREACH, ...).
func Dial(ctx context.Context, raddr string, cfg *Config) (*Association, error) {
	return dialNew(ctx, raddr, cfg, nil)
}

// dialNew is Dial over conn, or over the socket cfg selects when conn is
// nil.
func dialNew(ctx context.Context, raddr string, cfg *Config, conn netio.Conn) (*Association, error) {
	a, err := dialAddr(ctx, raddr)
	if err != nil {
		return nil, opErr("dial", nil, err)
	}
	if a.udpPort != 0 {
		var c Config
		if cfg != nil {
			c = *cfg
		}
		c.RemoteUDPPort = a.udpPort
		cfg = &c
	}
	return dialAddrsOn(ctx, a.ips, a.port, cfg, conn)
}

// DialAddrs starts an association to the peer known by the addresses ips,
// all with SCTP port port, on a new endpoint of its own, and waits until
// it is established or ctx is done; the endpoint closes with the
// association. As sctp_connectx, the INIT goes to the first address and
// each retransmission to the next one, until one answers. With two or
// more addresses Multihoming is on: the addresses the peer lists become
// paths. Config.LocalAddrs chooses the local addresses. Its errors are
// Dial's.
func DialAddrs(ctx context.Context, ips []netip.Addr, port uint16, cfg *Config) (*Association, error) {
	return dialAddrsOn(ctx, ips, port, cfg, nil)
}

// dialAddrsOn is DialAddrs over conn, or over the socket cfg selects when
// conn is nil.
func dialAddrsOn(ctx context.Context, ips []netip.Addr, port uint16, cfg *Config, conn netio.Conn) (*Association, error) {
	peers, err := peerAddrs(ips, port)
	if err != nil {
		return nil, opErr("dial", nil, err)
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if len(peers) > 1 {
		c.Paths.Multihoming = true // the user named alternate addresses: use them
	}
	if c.MTU == 0 && conn == nil && c.PacketConn == nil && c.Conn == nil {
		c.MTU = peerMTU(ips) // the route's
	}
	// The endpoint serves this one peer: bind to its address family, so
	// the path MTU accounts for that family's header (an IPv4 peer gains
	// 20 bytes per packet over a dual-stack socket's IPv6 assumption).
	e, err := newEndpointOn(familyWildcard(ips), &c, conn)
	if err != nil {
		return nil, opErr("dial", peersAddr(peers), err)
	}
	as, err := e.associate(ctx, peers, 0, true)
	if err != nil {
		e.Close()
		return nil, opErr("dial", peersAddr(peers), err)
	}
	return as, nil
}

// Dial starts an association from this endpoint to raddr ("HOST:PORT", or
// "IP,IP,...:PORT" as DialAddrs, each with an optional "/udp:N": the
// peer's UDP encapsulation port for this association, instead of
// Config.RemoteUDPPort) and waits until it is established or ctx is done.
// Its errors are the package-level Dial's.
func (e *Endpoint) Dial(ctx context.Context, raddr string) (*Association, error) {
	a, err := dialAddr(ctx, raddr)
	if err != nil {
		return nil, opErr("dial", nil, err)
	}
	return e.dialAddrs(ctx, a.ips, a.port, a.udpPort)
}

// DialAddrs starts an association from this endpoint to the peer known by
// the addresses ips, all with SCTP port port, and waits until it is
// established or ctx is done. As sctp_connectx, the INIT goes to the
// first address and each retransmission of it to the next one, until one
// answers; the others are then paths if the peer lists them and the
// endpoint's Config.Paths.Multihoming is on. Its errors are the
// package-level Dial's.
func (e *Endpoint) DialAddrs(ctx context.Context, ips []netip.Addr, port uint16) (*Association, error) {
	return e.dialAddrs(ctx, ips, port, 0)
}

// dialAddrs is DialAddrs to a peer whose UDP encapsulation port is
// udpPort (0: Config.RemoteUDPPort).
func (e *Endpoint) dialAddrs(ctx context.Context, ips []netip.Addr, port, udpPort uint16) (*Association, error) {
	peers, err := peerAddrs(ips, port)
	if err != nil {
		return nil, opErr("dial", nil, err)
	}
	as, err := e.associate(ctx, peers, udpPort, false)
	if err != nil {
		return nil, opErr("dial", peersAddr(peers), err)
	}
	return as, nil
}

// peersAddr returns the address of a dial's error: the peer's addresses
// and port.
func peersAddr(peers []netip.AddrPort) net.Addr {
	ips := make([]netip.Addr, len(peers))
	for i, p := range peers {
		ips[i] = p.Addr()
	}
	return opAddr(ips, peers[0].Port())
}

// dialAddr parses raddr as Dial takes it (parseAddr); the host may not be
// empty.
func dialAddr(ctx context.Context, raddr string) (addrSpec, error) {
	a, err := parseAddr(ctx, raddr)
	if err == nil && len(a.ips) == 0 {
		err = &net.AddrError{Err: "missing host in address", Addr: raddr}
	}
	return a, err
}

// associate runs the ASSOCIATE primitive to peers (the peer's IP addresses
// and SCTP port; the INIT tries them in turn), whose UDP encapsulation
// port is udpPort (0: Config.RemoteUDPPort), and waits until the
// association is established or ctx is done. ownEndpoint says that e was
// made for this association and closes with it. The caller makes its
// errors a dial's (opErr).
func (e *Endpoint) associate(ctx context.Context, peers []netip.AddrPort, udpPort uint16, ownEndpoint bool) (*Association, error) {
	if err := ctx.Err(); err != nil {
		// A context done before the dial starts ends it with its error
		// before anything else is looked at, as net.Dialer does: not with
		// whatever state the endpoint is in (a socket that failed).
		return nil, err
	}
	peer := peers[0]
	to := make([]netip.AddrPort, len(peers))
	for i, p := range peers {
		to[i] = e.transportAddr(p.Addr(), udpPort)
	}
	e.mu.Lock()
	if e.closed {
		err := e.closedErr()
		e.mu.Unlock()
		return nil, err
	}
	var a *assoc.Assoc
	var err error
	// An ephemeral SCTP port (RFC 6335's 49152-65535) from a random
	// start, then the next free one: with thousands of associations to
	// one peer from this endpoint random tries alone would collide.
	start := rand.IntN(16384)
	for i := range 16384 {
		lport := e.cfg.LocalPort
		if lport == 0 {
			lport = uint16(49152 + (start+i)%16384)
		}
		if e.ports != nil {
			// A socket shared with other endpoints of the process: the
			// port must be free on all of them.
			if err = e.ports.Claim(lport); err != nil {
				if e.cfg.LocalPort != 0 {
					break
				}
				continue
			}
		}
		a, err = e.core.ConnectAddrs(time.Now(), to, lport, peer.Port())
		if err != nil && e.ports != nil {
			e.ports.Release(lport)
		}
		if !errors.Is(err, assoc.ErrExists) || e.cfg.LocalPort != 0 {
			break
		}
	}
	if err != nil {
		e.mu.Unlock()
		return nil, err
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
	if e.ports != nil {
		as.claimedPort = a.LocalPort()
	}
	if ownEndpoint {
		e.dialAssoc = as
	}
	e.mu.Unlock()
	e.wakeOwner()
	return e.awaitUp(ctx, as)
}

// awaitUp waits until as is established (returning it) or closed, or ctx
// is done (aborting it).
func (e *Endpoint) awaitUp(ctx context.Context, as *Association) (*Association, error) {
	e.mu.Lock()
	for {
		if as.established {
			e.mu.Unlock()
			return as, nil
		}
		if as.closed {
			err := as.err
			e.mu.Unlock()
			if err == nil {
				err = ErrClosed // shut down before Dial saw it up
			}
			return nil, err
		}
		if !e.waitOn(&as.stateWaiters, ctx.Done(), nil) {
			e.mu.Unlock()
			as.Abort("dial canceled")
			return nil, ctx.Err()
		}
	}
}

// transportAddr returns the lower-layer address of a peer IP whose UDP
// encapsulation port is udpPort (0: Config.RemoteUDPPort).
func (e *Endpoint) transportAddr(ip netip.Addr, udpPort uint16) netip.AddrPort {
	switch {
	case e.cfg.Conn != nil:
		return e.connPeer
	case e.rawIP:
		return netip.AddrPortFrom(ip, 0)
	case udpPort == 0:
		udpPort = e.cfg.RemoteUDPPort
	}
	return netip.AddrPortFrom(ip, udpPort)
}
