package sctp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Endpoint is a one-to-many SCTP endpoint: one packet socket serving any
// number of associations, accepted (Listen, Accept) or started (Dial,
// Endpoint.Dial). Any number of goroutines may call its methods at once.
// An endpoint reads its socket and runs its associations' timers in
// goroutines of its own until Close, which also closes the socket; an
// endpoint made by the package-level Dial closes when its association
// ends.
type Endpoint struct {
	cfg      Config
	conn     netio.Conn
	pcap     *netio.PcapWriter
	connPeer netip.AddrPort // the peer's address on a connected net.Conn
	// ports is conn when it is a socket shared with other endpoints of
	// the process: a dialed association's SCTP port is claimed on it.
	ports portClaimer
	// rawIP is set when the transport is plain SCTP over raw IP.
	rawIP bool
	// sharedPorts is set on the raw-IP transport, where every raw socket
	// on the host sees every SCTP packet: packets for ports this endpoint
	// does not own belong to someone else and get no answer from us.
	sharedPorts bool

	// mu guards the core, the associations' state in the shell and the
	// fields below down to reader. The core is called only with mu held.
	mu            sync.Mutex
	core          *assoc.Endpoint
	assocs        map[*assoc.Assoc]*Association
	listenPort    uint16 // SCTP port accepted on; 0: none
	acceptQueue   []*Association
	acceptWaiters waitq
	closed        bool
	err           error        // why the endpoint stopped, when it did by itself
	timerAt       time.Time    // deadline the owner's timer is set for
	ownerTimer    *time.Timer  // the owner's timer (armOwner)
	dialAssoc     *Association // the association the package-level Dial made this endpoint for
	dialAssocGone bool         // dialAssoc ended: close the socket after the last flush
	// The dispatch of the core's output and the goroutines waiting.
	changed       []*Association  // associations whose waiters dispatch wakes
	nWaiting      int             // goroutines waiting in waitOn
	freeWaitChans []chan struct{} // waiter channels for waitOn
	inputLocal    netip.Addr      // Packet.Local of the packet being processed (wildcard-bound sockets)
	multihome     multiHome       // local addresses of a multi-homed endpoint
	reader        socketReader    // the socket reader role

	// flushMu serializes flushes: only its holder polls packets from the
	// core and writes to the socket. It is taken before mu, never while
	// mu is held. It guards the fields below down to noRoute.
	flushMu sync.Mutex
	// batch[:batchLen] are the packets collected and not yet written;
	// they lie in the write area slab back to back, each rounded up to a
	// cache line, from 0 to slabUsed. largestPacket is the largest
	// packet the core builds.
	batch         []netio.Packet
	batchLen      int
	slab          []byte
	slabUsed      int
	largestPacket int
	// holes lists the holes of the batch's packets the conn gathers, from
	// 0 to holesUsed, and netHoles the same as the conn takes them, when
	// packets are built with holes (writearea.go); nil otherwise. holes
	// also holds each packet's holes filled in with its checksum, past
	// holesUsed until then.
	holes      []assoc.Hole
	netHoles   []netio.Hole
	holesUsed  int
	polled     []assoc.Hole    // the holes of the packet just polled
	fragmentAt int             // batch[fragmentAt-1] may be IP-fragmented (assoc.Packet.MayFragment); 0: none
	refused    refusedPacket   // the last packet refused as too big
	noRoute    []noRoutePacket // packets refused for want of a route, for passNoRoute
	// flushAgain asks whoever holds flushMu next to flush once more: set
	// by a writer that found flushMu taken (sendNow), checked by every
	// holder after it unlocks flushMu (unlockFlush).
	flushAgain atomic.Bool

	// Counters of the goroutine work per packet, for tests that pin the
	// cost of a request/response exchange without timing it.
	nOwnerWakes atomic.Uint64 // owner loop iterations
	nWrites     atomic.Uint64 // WriteBatch calls
	nHoles      atomic.Uint64 // holes in the batches written (writearea.go)
	nReads      atomic.Uint64 // ReadBatch calls that returned packets
	nHandoffs   atomic.Uint64 // ReadMsg callers woken by another goroutine's read
	nYields     atomic.Uint64 // readLoop's yields to the ReadMsg callers a batch woke
	nRoomWaits  atomic.Uint64 // WriteMsg callers woken by another goroutine when room came
	nRoomReads  atomic.Uint64 // socket batches read by WriteMsg callers waiting for room

	ownerWake chan struct{} // wakes ownerLoop (wakeOwner)
	done      chan struct{} // closed when the endpoint stops (stopIO)
	closeOnce sync.Once
	wg        sync.WaitGroup // ownerLoop and readLoop

	exit exitReg // the socket's registration with the exit watchdog (Config.AbortOnExit)
}

const (
	readBatch = 32  // packets per ReadBatch
	viewBatch = 128 // packets per ReadBatchView (GRO: about 3 buffers' worth)
	// writeBatch is the packets per WriteBatch: three full GSO sends
	// of a 1500-byte path (44 packets of 1472 or 1452 bytes in 65000, the
	// netio bound), half the sendmmsg calls of 64 on a bulk send (and
	// about 15% less CPU per byte on each side). A multiple of 44, so a
	// full batch leaves no short GSO send: each send has a cost of its own
	// in the kernel besides its packets' (docs/PERFORMANCE.md).
	writeBatch = 132
	// writeAreaSize is the size of the write area (initWriteArea): 132
	// packets of 1500 bytes (a cache line each), whatever Config.MTU.
	writeAreaSize = writeBatch * 1536
)

// Listen returns an endpoint accepting associations on laddr, "HOST:PORT"
// with an IP address or host name (or an empty host for all addresses)
// and the SCTP port; "IP,IP,...:PORT" is ListenAddrs. A host name is
// resolved once, here, to the first address the resolver gives, as Dial
// resolves it. With UDP encapsulation the socket is bound to HOST and
// Config.UDPPort (default 9899), or the UDP port N of an address
// "HOST:PORT/udp:N" (as Addr prints an endpoint's address).
//
// Its errors are *net.OpError values with Op "listen" and Net "sctp", as
// package net's: Addr is the local address (an Addr for one IP address),
// nil when laddr is malformed, and Err the cause (a *net.AddrError for a
// malformed address, the resolver's *net.DNSError, the socket's error).
func Listen(laddr string, cfg *Config) (*Endpoint, error) {
	return listenOn(laddr, cfg, nil)
}

// listenOn is Listen over conn, or over the socket cfg selects when conn is
// nil.
func listenOn(laddr string, cfg *Config, conn netio.Conn) (*Endpoint, error) {
	a, err := parseAddr(context.Background(), laddr)
	if err != nil {
		return nil, opErr("listen", nil, err)
	}
	if cfg, err = localUDPPort(cfg, a.udpPort); err != nil {
		return nil, opErr("listen", opAddr(a.ips, a.port), err)
	}
	return listenIPs(a.ips, a.port, cfg, conn)
}

// localUDPPort returns cfg with the local UDP encapsulation port a listen
// address named (udpPort; 0: none, cfg as it is).
func localUDPPort(cfg *Config, udpPort uint16) (*Config, error) {
	if udpPort == 0 {
		return cfg, nil
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.EphemeralUDPPort {
		return nil, fmt.Errorf("sctp: UDP port %d in the address with EphemeralUDPPort", udpPort)
	}
	c.UDPPort = udpPort
	return &c, nil
}

// listenIPs is Listen on the addresses parseAddr returned: ListenAddrs for
// several, else Listen on the one (none: all addresses).
func listenIPs(ips []netip.Addr, port uint16, cfg *Config, conn netio.Conn) (*Endpoint, error) {
	if len(ips) > 1 {
		return listenAddrsOn(ips, port, cfg, conn)
	}
	var ip netip.Addr
	if len(ips) == 1 {
		ip = ips[0]
	}
	e, err := newEndpointRole(ip, cfg, conn, port)
	if err != nil {
		return nil, opErr("listen", opAddr(ips, port), err)
	}
	return e, nil
}

// ListenAddrs returns an endpoint accepting associations on SCTP port port
// at the local addresses ips: with two or more, a multi-homed endpoint
// (see Config.LocalAddrs); with one, Listen on it; with none, on all
// addresses. It is Listen("IP,IP,...:PORT", cfg) with the addresses
// typed, and its errors are Listen's.
func ListenAddrs(ips []netip.Addr, port uint16, cfg *Config) (*Endpoint, error) {
	return listenAddrsOn(ips, port, cfg, nil)
}

// listenAddrsOn is ListenAddrs over conn, or over the socket cfg selects
// when conn is nil.
func listenAddrsOn(ips []netip.Addr, port uint16, cfg *Config, conn netio.Conn) (*Endpoint, error) {
	if port == 0 {
		return nil, opErr("listen", nil, &net.AddrError{Err: "SCTP port 0", Addr: opAddr(ips, port).String()})
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c.LocalAddrs = ips
	e, err := newEndpointRole(netip.Addr{}, &c, conn, port)
	if err != nil {
		return nil, opErr("listen", opAddr(ips, port), err)
	}
	return e, nil
}

// NewEndpoint returns an endpoint whose socket is bound to ip (the zero
// Addr: all addresses) that accepts no association: it dials many from
// one socket (Endpoint.Dial). With UDP encapsulation its port is
// Config.UDPPort, by default one the system picks.
func NewEndpoint(ip netip.Addr, cfg *Config) (*Endpoint, error) {
	return newEndpointOn(ip, cfg, nil)
}

// newEndpointOn is NewEndpoint over conn (the simulated network of the
// tests), or over the socket cfg selects when conn is nil.
func newEndpointOn(ip netip.Addr, cfg *Config, conn netio.Conn) (*Endpoint, error) {
	return newEndpointRole(ip, cfg, conn, 0)
}

// newEndpointRole opens an endpoint bound to ip that accepts associations
// on SCTP port listen (Listen) or only dials (Dial, NewEndpoint; listen
// 0); the two also differ in their default UDP encapsulation port.
func newEndpointRole(ip netip.Addr, cfg *Config, conn netio.Conn, listen uint16) (*Endpoint, error) {
	e, err := buildEndpoint(ip, cfg, conn, listen)
	if err != nil {
		return nil, err
	}
	e.start()
	return e, nil
}

// buildEndpoint is newEndpointRole without starting the endpoint's
// goroutines: start does, once the caller set up what must exist before
// the first packet is read.
func buildEndpoint(ip netip.Addr, cfg *Config, conn netio.Conn, listen uint16) (*Endpoint, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	var peer netip.AddrPort
	rawIP := conn == nil && c.PacketConn == nil && c.Conn == nil && c.Transport == IP
	ip, locals, err := bindAddrs(ip, c.LocalAddrs)
	if err != nil {
		return nil, err
	}
	if (cfg == nil || cfg.MTU == 0) && conn == nil && c.PacketConn == nil && c.Conn == nil {
		c.MTU = localMTU(ip, locals, !c.DisablePMTUDiscovery)
	}
	ownSocket := conn == nil && c.PacketConn == nil && c.Conn == nil
	// A wildcard endpoint on a socket of ours with Multihoming announces
	// the host's addresses (multiHome.initWild).
	wild := c.Paths.Multihoming && locals == nil && ownSocket && (!ip.IsValid() || ip.IsUnspecified())
	// Both families over raw IP: two sockets (netio.DualIPConn), for
	// addresses of both, or for a wildcard endpoint announcing the host's
	// addresses that was given no family.
	dual := rawIP && (ip.Is6() && slices.ContainsFunc(locals, netip.Addr.Is4) || wild && !ip.IsValid())
	if dual {
		d, err := netio.OpenDualIP(netio.IPConfig{BusyPoll: c.BusyPoll, Notices: true, DontFragment: !c.DisablePMTUDiscovery}, listen, max(maxPacket, c.MTU), !c.Extensions.DisableECN)
		switch {
		case err == nil:
			conn = d
		case locals == nil:
			dual = false // a host without IPv6: the wildcard is IPv4's, one raw socket
		default:
			return nil, fmt.Errorf("sctp: raw IP: %w", err)
		}
	}
	if conn == nil {
		if conn, peer, err = openConn(&c, ip, listen); err != nil {
			return nil, err
		}
	}
	if !c.Extensions.DisableECN {
		// Best effort: a socket that refuses sends Not-ECT, and ECN
		// still works in the direction that marks.
		_ = netio.EnableECN(conn)
	}
	e := &Endpoint{cfg: c, conn: conn, connPeer: peer, assocs: make(map[*assoc.Assoc]*Association),
		ownerWake: make(chan struct{}, 1), done: make(chan struct{}), reader: socketReader{unpark: make(chan struct{}, 1)},
		rawIP: rawIP, sharedPorts: rawIP}
	e.ownerTimer = time.NewTimer(time.Hour) // set by armOwner
	e.ownerTimer.Stop()
	e.ports, _ = conn.(portClaimer)
	if err := e.multihome.init(locals, c.PacketConn == nil && c.Conn == nil); err != nil {
		conn.Close()
		return nil, err
	}
	if wild {
		if err := e.multihome.initWild(); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if c.Pcap != "" {
		w, err := netio.CreatePcap(c.Pcap, netio.PcapOptions{})
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("sctp: pcap: %w", err)
		}
		e.pcap = w
		e.conn = netio.Capture(conn, w)
	}
	fam := netip.IPv6Unspecified()
	if ip.Is4() || ip.Is4In6() || peer.Addr().Is4() {
		fam = netip.IPv4Unspecified()
	}
	cc := c.coreConfig(e.conn.Overhead(fam))
	if locals != nil {
		cc.LocalAddrs, cc.Multihoming = locals, true
	}
	if wild {
		e.multihome.families = socketFamilies(ip, rawIP && !dual)
		cc.HostAddrs, cc.Families = e.multihome.hostAddrs, e.multihome.families
	}
	e.core = assoc.NewEndpoint(cc, time.Now())
	// Listening before the first read: an INIT already waiting on the
	// socket is answered with an INIT ACK, not an ABORT.
	e.listenPort = listen
	e.core.SetPortFilter(assoc.PortFilter{Listen: listen, Shared: e.sharedPorts, Dial: c.LocalPort})
	e.initWriteArea()
	e.reader.init(e.conn, max(maxPacket, c.MTU))
	// The reader role is only lent to ReadMsg callers on a socket whose
	// read deadline works (netio.Conn's contract; a net.Conn given
	// in Config may refuse deadlines).
	e.reader.direct = e.conn.SetReadDeadline(time.Time{}) == nil
	if c.AbortOnExit {
		e.exit = exitRegister(e.conn)
	}
	return e, nil
}

// start starts the endpoint's reader and owner goroutines.
func (e *Endpoint) start() {
	e.wg.Add(2)
	go e.readLoop()
	go e.ownerLoop()
}

// Accept waits for the next association on the listening port.
func (e *Endpoint) Accept() (*Association, error) {
	return e.AcceptContext(context.Background())
}

// AcceptContext waits for the next association until ctx is done.
func (e *Endpoint) AcceptContext(ctx context.Context) (*Association, error) {
	e.mu.Lock()
	for {
		if len(e.acceptQueue) > 0 {
			as := e.acceptQueue[0]
			copy(e.acceptQueue, e.acceptQueue[1:])
			e.acceptQueue[len(e.acceptQueue)-1] = nil
			e.acceptQueue = e.acceptQueue[:len(e.acceptQueue)-1]
			// Out of the backlog, onto the configured receive buffer.
			as.core.Accept(time.Now())
			e.mu.Unlock()
			e.flush()
			return as, nil
		}
		if e.closed {
			err := e.closedErr()
			e.mu.Unlock()
			return nil, err
		}
		if e.listenPort == 0 {
			e.mu.Unlock()
			return nil, errors.New("sctp: endpoint is not listening")
		}
		if !e.waitOn(&e.acceptWaiters, ctx.Done(), nil) {
			e.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// closedErr is the error of a call on a closed endpoint.
func (e *Endpoint) closedErr() error {
	if e.err != nil {
		return e.err
	}
	return ErrClosed
}

// stopIO ends the endpoint's goroutines and closes its socket (Close, a
// failed socket, or the end of the association Dial made it for).
func (e *Endpoint) stopIO() {
	e.closeOnce.Do(func() {
		close(e.done)
		e.exitClose()
		e.conn.Close()
		e.multihome.close()
		if e.pcap != nil {
			e.pcap.Close() // later captures fail quietly
		}
	})
}

// failSocket ends every association after the socket failed.
func (e *Endpoint) failSocket(err error) {
	e.mu.Lock()
	if !e.closed {
		e.err = fmt.Errorf("sctp: endpoint socket: %w", err)
		e.closed = true
		for a := range e.assocs {
			a.Abort(time.Now(), []byte("socket failed"))
		}
		e.dispatchAll()
		e.acceptWaiters.wake()
	}
	e.mu.Unlock()
	e.stopIO()
}

// Close aborts every association of the endpoint (use Association.Shutdown
// first for a graceful end), closes its socket and waits for its
// goroutines.
func (e *Endpoint) Close() error {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		for a := range e.assocs {
			a.Abort(time.Now(), []byte("endpoint closed"))
		}
		e.dispatchAll()
		e.acceptWaiters.wake()
		e.acceptQueue = nil // aborted above with the others
	}
	e.mu.Unlock()
	e.flush()
	e.stopIO()
	e.wg.Wait()
	return nil
}

// Stats returns the endpoint's counters, including its live associations'.
func (e *Endpoint) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.core.Stats()
	s.UnboundAddrDropped = e.multihome.dropped()
	return s
}

// Addr returns the endpoint's local address: the IP address its socket is
// bound to, its SCTP port (the port Listen was given, Config.LocalPort;
// 0 on an endpoint whose dials each take an ephemeral port) and, with UDP
// encapsulation, its UDP port. It prints as "IP:PORT/udp:N".
func (e *Endpoint) Addr() Addr {
	t := e.conn.LocalAddr()
	a := Addr{IP: t.Addr(), Port: e.listenPort}
	if a.Port == 0 {
		a.Port = e.cfg.LocalPort
	}
	if !e.rawIP && e.cfg.Conn == nil {
		a.UDPPort = t.Port()
	}
	return a
}
