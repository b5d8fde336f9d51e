package sctp

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// ListenShards returns n endpoints that accept associations on laddr
// (as Listen) and share its UDP encapsulation port through SO_REUSEPORT
// (Linux), so that a server's protocol work spreads over n cores: each
// endpoint has its own socket and goroutines, and holds the associations
// whose packets its socket receives.
//
// The kernel hands each datagram to one of the sockets by a hash of its
// source and destination addresses and ports, so all packets of one peer
// transport address, from its INIT to its last SHUTDOWN COMPLETE, reach
// the same endpoint as long as the set of sockets stays the same: close
// the shards together. Peers reach the shards from different addresses or
// UDP ports (associations from one peer socket all land on one shard).
// Each endpoint is used as one returned by Listen; callers accept from
// every shard. Only UDP encapsulation (the default Transport) can be
// sharded; Config.Conn and Config.PacketConn cannot. The shards need a
// UDP address and port of their own: one that other sockets are bound to
// (another process's, or processes sharing it, Config.ExclusiveUDPPort)
// fails with an error matching syscall.EADDRINUSE. Its errors are
// Listen's.
func ListenShards(laddr string, n int, cfg *Config) ([]*Endpoint, error) {
	a, err := parseAddr(context.Background(), laddr)
	if err != nil {
		return nil, opErr("listen", nil, err)
	}
	ips, port := a.ips, a.port
	addr := opAddr(ips, port)
	if cfg, err = localUDPPort(cfg, a.udpPort); err != nil {
		return nil, opErr("listen", addr, err)
	}
	if n < 1 {
		return nil, opErr("listen", addr, fmt.Errorf("%d shards", n))
	}
	if len(ips) > 1 {
		return nil, opErr("listen", addr, errors.New("ListenShards takes one address, or none"))
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.Transport == IP || c.Conn != nil || c.PacketConn != nil {
		return nil, opErr("listen", addr, errors.New("only UDP encapsulation sockets can be sharded"))
	}
	var ip netip.Addr
	if len(ips) == 1 {
		ip = ips[0]
	}
	if c.MTU == 0 {
		// The shards' sockets are ours: the interface's MTU
		// (localMTU), as Listen's.
		c.MTU = localMTU(ip, nil, !c.DisablePMTUDiscovery)
	}
	d := c.withDefaults()
	uc := udpConfig(&d, ip, true)
	uc.ReusePort = true
	if uc.Addr.Port() != 0 {
		// The shards would join the sockets on the address and port:
		// another process's, or a host group (sharing the port between
		// processes) whose program would take their datagrams.
		if n, err := netio.UDPBound(uc.Addr); err == nil && n > 0 {
			return nil, opErr("listen", addr, fmt.Errorf("UDP %v is in use: shards need a UDP address and port of their own: %w",
				uc.Addr, syscall.EADDRINUSE))
		}
	}
	eps := make([]*Endpoint, 0, n)
	fail := func(err error) ([]*Endpoint, error) {
		for _, e := range eps {
			e.Close()
		}
		return nil, err
	}
	for range n {
		conn, err := netio.ListenUDP(uc)
		if err != nil {
			return fail(opErr("listen", addr, fmt.Errorf("UDP encapsulation: %w", err)))
		}
		// The first socket's port (the one the system picked for an
		// ephemeral one) is every other shard's.
		uc.Addr = netip.AddrPortFrom(uc.Addr.Addr(), conn.LocalAddr().Port())
		e, err := listenIPs(ips, port, &c, conn)
		if err != nil {
			conn.Close()
			return fail(err)
		}
		eps = append(eps, e)
	}
	return eps, nil
}
