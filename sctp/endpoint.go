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
// number of associations, accepted (Listen, Accept) or started (Dial).
//
// The sans-I/O core (package sctp/internal/assoc) is owned by the
// endpoint's lock; two goroutines drive it: a reader that takes packets
// from the socket in batches, feeds them all to the core and sends what
// they caused in one batch (reader.go), and an owner that sends what user
// calls queued and runs the one timer armed at the core's earliest
// deadline (owner.go). User goroutines queue work under the lock and wake
// the owner; they never wait for it. Two shortcuts serve request/response
// without goroutine hand-offs: a message written to an idle association is
// sent by the writing goroutine (sendNow), and a ReadMsg caller with
// nothing to read may read the socket itself when the reader goroutine
// lent it that role (reader.go).
//
// Lock order: flushMu, then mu. A goroutine that sends (process, flushLocked)
// takes flushMu first and mu inside it, and releases mu before it writes to
// the socket; no goroutine takes flushMu while it holds mu (sendNow only tries
// it). Each deadline's own lock (wait.go) is a leaf: it is never held
// while another is taken. Nobody blocks on a channel while holding mu
// (block releases it). The core never calls into the shell: what it has
// to say comes back as values (packets, events, the associations Changed
// lists), taken with mu held.
type Endpoint struct {
	cfg      Config
	conn     netio.Conn
	pcap     *netio.PcapWriter
	connPeer netip.AddrPort // the peer's address on a connected net.Conn
	// ports is conn when it is a socket shared with other endpoints of
	// the process: a dialed association's SCTP port is claimed on it.
	ports portClaimer

	// mu guards the core, the associations' shell state (Association's
	// fields marked so) and the fields below down to rd.
	mu         sync.Mutex
	core       *assoc.Endpoint
	assocs     map[*assoc.Assoc]*Association
	listenPort uint16 // SCTP port accepted on; 0: none
	// sharedPorts is set on the raw-IP transport, where every raw socket
	// on the host sees every SCTP packet: packets for ports this endpoint
	// does not own belong to someone else and get no answer from us.
	sharedPorts   bool
	rawIP         bool // the transport is plain SCTP over raw IP (set at creation)
	acceptQueue   []*Association
	acceptWaiters waitq
	closed        bool
	err           error           // why the endpoint stopped, when it did by itself
	timerAt       time.Time       // deadline the owner's timer is set for
	dialAssoc     *Association    // the association Dial created this endpoint for
	dialAssocGone bool            // owner ended: close the socket after the last flush
	freeWaitChans []chan struct{} // waiter channels for block
	// Input processing and waiting.
	changed    []*Association // reached by the packets being processed
	nWaiting   int            // goroutines waiting in block
	inputLocal netip.Addr     // Packet.Local of the packet being processed (wildcard-bound sockets)
	multihome  multiHome      // local addresses of a multi-homed endpoint (multihome.go)
	reader     socketReader   // the socket reader role (reader.go)

	// flushMu serializes flushes; it guards out, batchLen, slab and slabUsed.
	flushMu  sync.Mutex
	batch    []netio.Packet
	batchLen int // packets collected in out, not yet written
	// slab is the write area (owner.go): the packets collected in out
	// lie in it back to back, each rounded up to a cache line, from 0 to
	// slabUsed; largestPacket is the largest packet the core builds.
	slab          []byte
	slabUsed      int
	largestPacket int
	refused       refusedPacket // the last packet refused as too big (toobig.go)
	// flushAgain asks whoever holds flushMu next to flush once more: set by a
	// writer that found flushMu taken (sendNow), checked by every holder
	// after it unlocks flushMu (unlockFlush).
	flushAgain atomic.Bool

	// Counters of the goroutine work per packet, for tests that pin the
	// cost of a request/response exchange without timing it.
	nOwnerWakes atomic.Uint64 // owner loop iterations
	nWrites     atomic.Uint64 // WriteBatch calls
	fragmentAt  int           // e.batch[fragmentAt-1] may be IP-fragmented (assoc.Packet.MayFragment); 0: none
	nReads      atomic.Uint64 // ReadBatch calls that returned packets
	nHandoffs   atomic.Uint64 // ReadMsg callers woken by another goroutine's read
	nYields     atomic.Uint64 // readLoop's yields to the ReadMsg callers a batch woke

	ownerWake chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// portClaimer is a socket shared with other endpoints of the process
// (netio.SharedConn; netio.DualIPConn, a pair of raw sockets): each
// endpoint gets the packets of the SCTP ports it claims, its listening
// port as it opens and each dialed association's port while the
// association lives.
type portClaimer interface {
	Claim(port uint16) error
	Release(port uint16)
}

const (
	readBatch = 32  // packets per ReadBatch
	viewBatch = 128 // packets per ReadBatchView (GRO: about 3 buffers' worth)
	// writeBatch is the packets per WriteBatch: three GSO sends of 43
	// packets of 1480 bytes, half the sendmmsg calls of 64 on a bulk send
	// (and about 15% less CPU per byte on each side).
	writeBatch = 128
	// writeAreaSize is the size of the write area (writearea.go): 128
	// packets of 1500 bytes (a cache line each), whatever Config.MTU.
	writeAreaSize = writeBatch * 1536
)

// Listen returns an endpoint accepting associations on laddr, "HOST:PORT"
// with an IP address (or empty host for all) and the SCTP port. With UDP
// encapsulation the socket is bound to HOST and Config.UDPPort (default
// 9899).
func Listen(laddr string, cfg *Config) (*Endpoint, error) {
	return listenOn(laddr, cfg, nil)
}

// listenOn is Listen over conn, or over the socket cfg selects when conn is
// nil.
func listenOn(laddr string, cfg *Config, conn netio.Conn) (*Endpoint, error) {
	hosts, port, err := splitAddrList(laddr)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		return nil, fmt.Errorf("sctp: listen %s: SCTP port 0", laddr)
	}
	var ip netip.Addr
	if len(hosts) > 1 {
		ips, err := parseIPs(hosts)
		if err != nil {
			return nil, &opError{op: "listen", addr: laddr, err: err}
		}
		return listenAddrsOn(ips, port, cfg, conn)
	}
	if hosts[0] != "" {
		if ip, err = netip.ParseAddr(hosts[0]); err != nil {
			return nil, &opError{op: "listen", addr: laddr, err: err}
		}
	}
	e, err := newEndpointRole(ip, cfg, conn, port)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.listenPort = port
	e.core.SetPortFilter(assoc.PortFilter{Listen: port, Shared: e.sharedPorts, Dial: e.cfg.LocalPort})
	e.mu.Unlock()
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

// newEndpointRole is newEndpointOn for an endpoint that will listen on
// SCTP port listen (Listen) or only dial (Dial, NewEndpoint; listen 0):
// they differ in their default UDP encapsulation port.
func newEndpointRole(ip netip.Addr, cfg *Config, conn netio.Conn, listen uint16) (*Endpoint, error) {
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
		c.MTU = localMTU(ip, locals, !c.DisablePMTUDiscovery) // mtudefault.go
	}
	ownSocket := conn == nil && c.PacketConn == nil && c.Conn == nil
	// A wildcard endpoint on a socket of ours with Multihoming announces
	// the host's addresses (multihome.go).
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
			dual = false // a host without IPv6: the wildcard is IPv4's, as before
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
	cc := c.core(e.conn.Overhead(fam))
	if locals != nil {
		cc.LocalAddrs, cc.Multihoming = locals, true
	}
	if wild {
		e.multihome.families = socketFamilies(ip, rawIP && !dual)
		cc.HostAddrs, cc.Families = e.multihome.hostAddrs, e.multihome.families
	}
	e.core = assoc.NewEndpoint(cc, time.Now())
	e.core.SetPortFilter(assoc.PortFilter{Shared: e.sharedPorts, Dial: c.LocalPort})
	e.initWriteArea()
	e.reader.init(e.conn, max(maxPacket, c.MTU))
	// The reader role is only lent to ReadMsg callers on a socket whose
	// read deadline works (netio.Conn's contract; a net.Conn given
	// in Config may refuse deadlines).
	e.reader.direct = e.conn.SetReadDeadline(time.Time{}) == nil
	e.wg.Add(2)
	go e.readLoop()
	go e.ownerLoop()
	return e, nil
}

// socketFamilies returns the address families of the socket an endpoint
// bound to ip opens: a raw IP socket is one family (IPv4 when ip is not
// given; oneRaw false for a pair of them); a UDP one bound to [::] or to
// no address is dual-stack.
func socketFamilies(ip netip.Addr, oneRaw bool) assoc.AddrFamilies {
	switch {
	case ip.IsValid() && ip.Unmap().Is4():
		return assoc.FamilyIPv4
	case oneRaw && !ip.IsValid():
		return assoc.FamilyIPv4
	case oneRaw:
		return assoc.FamilyIPv6
	}
	return assoc.FamilyBoth
}

// openConn opens the transport that cfg selects, for an endpoint that
// listens on SCTP port listen or only dials (listen 0). A UDP
// encapsulation socket bound to a fixed port is the process's shared
// socket of that address and port, and a raw IP socket the process's of
// that address (netio.SharedConn); listen is claimed on it.
func openConn(c *Config, ip netip.Addr, listen uint16) (netio.Conn, netip.AddrPort, error) {
	switch {
	case c.Conn != nil:
		return netio.NewConnAdapter(c.Conn, netio.AdapterConfig{RemotePort: c.RemoteUDPPort}),
			netAddrPort(c.Conn.RemoteAddr()), nil
	case c.PacketConn != nil:
		return netio.NewAdapter(c.PacketConn, netio.AdapterConfig{RemotePort: c.RemoteUDPPort}),
			netip.AddrPort{}, nil
	case c.Transport == IP:
		conn, err := netio.OpenSharedIP(netio.IPConfig{Addr: ip, BusyPoll: c.BusyPoll, Notices: true, DontFragment: !c.DisablePMTUDiscovery}, listen)
		if err != nil {
			return nil, netip.AddrPort{}, fmt.Errorf("sctp: raw IP: %w", err)
		}
		return conn, netip.AddrPort{}, nil
	}
	uc := udpConfig(c, ip, listen != 0)
	if uc.Addr.Port() != 0 {
		conn, err := netio.OpenSharedUDP(uc, listen)
		if err != nil {
			return nil, netip.AddrPort{}, fmt.Errorf("sctp: UDP encapsulation: %w", err)
		}
		return conn, netip.AddrPort{}, nil
	}
	conn, err := netio.ListenUDP(uc)
	if err != nil {
		return nil, netip.AddrPort{}, fmt.Errorf("sctp: UDP encapsulation: %w", err)
	}
	return conn, netip.AddrPort{}, nil
}

// udpConfig is the UDP encapsulation socket cfg selects for an endpoint
// bound to ip that listens or only dials.
func udpConfig(c *Config, ip netip.Addr, listening bool) netio.UDPConfig {
	// UDPPort 0 is the default port of the endpoint's role, as with TCP:
	// a listener's is the well-known 9899, where peers send their INITs;
	// a dialer's is one the system picks, so that any number of Dials
	// (and a Listen on 9899) live side by side in a process or on a host.
	// The peer answers the port an association's packets come from (RFC
	// 6951 section 5.4), so nobody needs to know a dialer's in advance.
	port := c.UDPPort
	if port == 0 && listening && !c.EphemeralUDPPort {
		port = netio.DefaultUDPPort
	}
	if !ip.IsValid() {
		ip = netip.IPv6Unspecified()
	}
	u := netio.UDPConfig{Addr: netip.AddrPortFrom(ip, port),
		RemotePort: c.RemoteUDPPort, GRO: true, BusyPoll: c.BusyPoll, Notices: true, DontFragment: !c.DisablePMTUDiscovery}
	if listening {
		u.SocketBuffer = listenSocketBuffer
	}
	return u
}

// listenSocketBuffer is the SO_RCVBUF and SO_SNDBUF a listening endpoint
// asks for: 16 MiB (the kernel doubles it for its overhead; without
// CAP_NET_ADMIN net.core.rmem_max caps it). Many peers send to a
// listener at once, each within its own association's window (1 MiB,
// growing by autotuning): with the 4 MiB a dialing endpoint asks for, 64
// associations sending to one listener over loopback overflowed its socket
// (8 MB queued; a fifth of their DATA dropped and sent again, and every
// packet after a loss drew its own SACK), at 0.56 of one association's
// throughput; with 16 MiB, 0.75, and 20% less CPU per byte (README,
// Scale). It is a bound, not an allocation: the kernel charges only what
// is queued.
const listenSocketBuffer = 16 << 20

func netAddrPort(a net.Addr) netip.AddrPort {
	switch a := a.(type) {
	case *net.UDPAddr:
		ap := a.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	case *net.IPAddr:
		ip, _ := netip.AddrFromSlice(a.IP)
		return netip.AddrPortFrom(ip.Unmap(), 0)
	}
	return netip.AddrPort{}
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

func (e *Endpoint) closedErr() error {
	if e.err != nil {
		return e.err
	}
	return ErrClosed
}

// stopIO ends the goroutines and closes the socket (the owner association
// ended, or Close).
func (e *Endpoint) stopIO() {
	e.closeOnce.Do(func() {
		close(e.done)
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

// Addr returns the endpoint's local transport address: for UDP
// encapsulation, the local UDP port.
func (e *Endpoint) Addr() netip.AddrPort { return e.conn.LocalAddr() }

// Stats returns the endpoint's counters, including its live associations'.
func (e *Endpoint) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.core.Stats()
	s.UnboundAddrDropped = e.multihome.dropped()
	return s
}
