package sctp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

func splitHostPort(s string) (string, uint16, error) {
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, fmt.Errorf("sctp: address %q: %w", s, err)
	}
	p, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("sctp: address %q: bad port", s)
	}
	return host, uint16(p), nil
}

// Dial starts an association to raddr ("HOST:PORT", the peer's IP
// address and SCTP port) on a new endpoint of its own, and waits until it
// is established or ctx is done. The endpoint closes with the association.
func Dial(ctx context.Context, raddr string, cfg *Config) (*Association, error) {
	return dialNew(ctx, raddr, cfg, nil)
}

// dialNew is Dial over conn, or over the socket cfg selects when conn is
// nil.
func dialNew(ctx context.Context, raddr string, cfg *Config, conn netio.Conn) (*Association, error) {
	peer, err := resolve(ctx, raddr)
	if err != nil {
		return nil, err
	}
	// The endpoint serves this one peer: bind to its address family, so
	// the path MTU accounts for that family's header (an IPv4 peer gains
	// 20 bytes per packet over a dual-stack socket's IPv6 assumption).
	ip := netip.IPv4Unspecified()
	if peer.Addr().Is6() && !peer.Addr().Is4In6() {
		ip = netip.IPv6Unspecified()
	}
	e, err := newEndpointOn(ip, cfg, conn)
	if err != nil {
		return nil, err
	}
	as, err := e.associate(ctx, peer, true)
	if err != nil {
		e.Close()
		return nil, err
	}
	return as, nil
}

// Dial starts an association from this endpoint to raddr ("HOST:PORT")
// and waits until it is established or ctx is done.
func (e *Endpoint) Dial(ctx context.Context, raddr string) (*Association, error) {
	peer, err := resolve(ctx, raddr)
	if err != nil {
		return nil, err
	}
	return e.associate(ctx, peer, false)
}

func resolve(ctx context.Context, raddr string) (netip.AddrPort, error) {
	host, port, err := splitHostPort(raddr)
	if err != nil {
		return netip.AddrPort{}, err
	}
	if port == 0 {
		return netip.AddrPort{}, fmt.Errorf("sctp: dial %s: SCTP port 0", raddr)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		ips, lerr := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if lerr != nil || len(ips) == 0 {
			return netip.AddrPort{}, &opError{op: "dial", addr: raddr, err: lerr}
		}
		ip = ips[0]
	}
	return netip.AddrPortFrom(ip.Unmap(), port), nil
}

// associate runs the ASSOCIATE primitive to peer (IP and SCTP port).
func (e *Endpoint) associate(ctx context.Context, peer netip.AddrPort, owned bool) (*Association, error) {
	to := e.transportAddr(peer.Addr())
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
		if e.mux != nil {
			// A socket shared with other endpoints of the process: the
			// port must be free on all of them.
			if err = e.mux.claim(lport); err != nil {
				if e.cfg.LocalPort != 0 {
					break
				}
				continue
			}
		}
		a, err = e.core.Connect(time.Now(), to, lport, peer.Port())
		if err != nil && e.mux != nil {
			e.mux.release(lport)
		}
		if !errors.Is(err, assoc.ErrExists) || e.cfg.LocalPort != 0 {
			break
		}
	}
	if err != nil {
		e.mu.Unlock()
		return nil, &opError{op: "dial", addr: peer.String(), err: err}
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
	if e.mux != nil {
		as.muxPort = a.LocalPort()
	}
	if owned {
		e.owner = as
	}
	e.mu.Unlock()
	e.poke()
	e.mu.Lock()
	for {
		if as.up {
			e.mu.Unlock()
			return as, nil
		}
		if as.closed {
			err := as.err
			e.mu.Unlock()
			return nil, &opError{op: "dial", addr: peer.String(), err: err}
		}
		if !e.block(&as.swait, ctx.Done(), nil) {
			e.mu.Unlock()
			as.Abort("dial canceled")
			return nil, ctx.Err()
		}
	}
}

// transportAddr returns the lower-layer address of a peer IP.
func (e *Endpoint) transportAddr(ip netip.Addr) netip.AddrPort {
	switch {
	case e.cfg.Conn != nil:
		return e.connPeer
	case e.rawIP:
		return netip.AddrPortFrom(ip, 0)
	}
	return netip.AddrPortFrom(ip, e.cfg.RemoteUDPPort)
}
