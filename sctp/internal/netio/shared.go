package netio

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Sockets shared by the endpoints of a process. As the kernel serves
// every SCTP socket of a host from one stack, the endpoints of a process
// that bind one UDP address and port share one socket, and the packets it
// reads go to the endpoint serving their SCTP destination port: two
// Listens on different SCTP ports with the default settings both use UDP
// 9899. A process-wide registry holds the shared sockets; each endpoint
// sees its socket through a SharedConn, a Conn of its own. There is no
// demultiplexing goroutine (shared_read.go): whichever endpoint reads
// finds the socket free reads it (the leader), keeps its own packets and
// queues the others' for their endpoints, which it wakes; an endpoint
// alone on its socket reads it as if it were its own, with no copy and no
// per-packet work.
//
// A packet for an SCTP port nobody on the socket serves goes to the
// endpoint serving it on a wildcard socket of the process that covers the
// socket's address (shared_udp.go), else to the first endpoint still
// registered (the default), whose core gives the RFC's answer as for a
// socket of its own: an ABORT to an INIT for a port nobody listens on
// (RFC 9260 section 8.4), rate-limited. A UDP socket that is a member of
// its address and port's host group (portgroup.go) also registers its
// ports with the group, and drops the packets of ports another process
// serves.

// socketKey names a shared socket: the local address and UDP port, or for
// raw IP (port 0) the local address, in the network namespace netns (the
// same address in two namespaces is two sockets).
type socketKey struct {
	ip    netip.Addr
	port  uint16
	raw   bool
	netns uint64
}

// sharedSockets is the process-wide registry of shared sockets.
var sharedSockets struct {
	mu    sync.Mutex
	socks map[socketKey]*sharedSocket
}

// sharedSocket is one socket shared by the endpoints bound to its address.
type sharedSocket struct {
	key   socketKey
	conn  Conn
	view  func([]Packet) (int, error) // ReadBatchView when the socket has GRO buffers
	group *hostGroup                  // the socket's host group membership; nil: none
	// wider are the process's wildcard sockets of the same port that
	// cover this socket's address, most specific first (relink).
	wider atomic.Pointer[[]*sharedSocket]
	// foreign counts packets dropped for SCTP ports another process of
	// the host group serves.
	foreign atomic.Uint64

	// mu guards ports and members (and every SharedConn's claims).
	mu      sync.Mutex
	ports   map[uint16]*SharedConn // SCTP port -> the endpoint serving it
	members []*SharedConn          // in registration order; members[0] is the default
	// solo: one member, no wider socket and no host group: the member
	// gets every packet, with no demultiplexing (updateSolo).
	solo atomic.Bool

	rmu  sync.Mutex    // held by the leader, which reads the socket
	free chan struct{} // a token posted when the leader lets go of the socket

	// dlmu guards leader, applied and viewHeld: the read deadline on the
	// socket is the leader's.
	dlmu    sync.Mutex
	leader  *SharedConn
	applied time.Time
	// viewHeld is the endpoint that holds views of the socket's receive
	// buffers (ReadBatchView) until its next read: nobody else reads the
	// socket meanwhile, as that would overwrite them.
	viewHeld *SharedConn
}

// SharedConn is an endpoint's view of a socket shared with the other
// endpoints of the process (OpenSharedUDP, OpenSharedIP): a Conn that
// reads the packets of the SCTP ports the endpoint claims (and, for the
// first endpoint on the socket, of ports nobody claims) and writes
// through the socket.
type SharedConn struct {
	s      *sharedSocket
	claims map[uint16]int // SCTP ports held, with their use counts (guarded by s.mu)
	opener bool           // the first endpoint on the socket: its settings are the socket's

	mu       sync.Mutex // guards the fields below
	q        []Packet
	spare    [][]byte // buffers of packets handed out, for reuse
	lent     [][]byte // buffers handed out as views by the last ReadBatchView
	deadline time.Time
	closed   bool
	dropped  uint64 // packets dropped on a full queue

	wake chan struct{} // packets queued, deadline changed or closed
}

// maxQueued bounds the packets queued for one endpoint of a shared
// socket, as a socket's receive buffer bounds them; more are dropped.
const maxQueued = 4096

var _ Conn = (*SharedConn)(nil)

// ErrPortInUse is wrapped by the error of OpenSharedUDP, OpenSharedIP or
// Claim for an SCTP port already served by another endpoint on the same
// socket; it matches syscall.EADDRINUSE with errors.Is.
var ErrPortInUse = fmt.Errorf("SCTP port in use: %w", syscall.EADDRINUSE)

// OpenSharedUDP returns a view of the shared UDP encapsulation socket that
// uc names, opening it if no endpoint of the process has; port, unless 0,
// is claimed for the new view (its listening port). The socket's settings
// are those of the endpoint that opened it.
func OpenSharedUDP(uc UDPConfig, port uint16) (*SharedConn, error) {
	key := socketKey{ip: uc.Addr.Addr().Unmap(), port: uc.Addr.Port(), netns: netnsID()}
	if uc.Addr.Addr().Is4In6() {
		key.ip = uc.Addr.Addr() // a different socket from the IPv4 one
	}
	return openShared(key, func() (Conn, *hostGroup, error) { return openSharedUDP(uc, key) }, port)
}

// OpenSharedIP is OpenSharedUDP for the raw IP socket ic names: one per
// local address (and so per family) in the process. Every raw socket of
// the host sees every SCTP packet; the endpoints sharing this one get
// those of their ports, and the packets of nobody's go to the default
// endpoint, whose core drops them (another process may own the port).
func OpenSharedIP(ic IPConfig, port uint16) (*SharedConn, error) {
	key := socketKey{ip: ic.Addr, raw: true, netns: netnsID()}
	return openShared(key, func() (Conn, *hostGroup, error) {
		c, err := ListenIP(ic)
		return c, nil, err
	}, port)
}

// openShared is OpenSharedUDP for the socket key names, which open opens.
func openShared(key socketKey, open func() (Conn, *hostGroup, error), port uint16) (*SharedConn, error) {
	sharedSockets.mu.Lock()
	defer sharedSockets.mu.Unlock()
	s := sharedSockets.socks[key]
	created := s == nil
	if created {
		conn, g, err := open()
		if err != nil {
			return nil, err
		}
		s = &sharedSocket{key: key, conn: conn, group: g, ports: make(map[uint16]*SharedConn), free: make(chan struct{}, 1)}
		s.wider.Store(new([]*sharedSocket))
		if u, ok := conn.(*UDPConn); ok && u.GRO() {
			s.view = u.ReadBatchView
		}
		if sharedSockets.socks == nil {
			sharedSockets.socks = make(map[socketKey]*sharedSocket)
		}
		sharedSockets.socks[key] = s
	}
	pc := &SharedConn{s: s, claims: make(map[uint16]int), wake: make(chan struct{}, 1), opener: len(s.members) == 0}
	s.mu.Lock()
	err := s.take(pc, port)
	if err == nil {
		s.members = append(s.members, pc)
		s.updateSolo()
	}
	s.mu.Unlock()
	switch {
	case err != nil && created:
		delete(sharedSockets.socks, key)
		s.close()
		return nil, err
	case err != nil:
		return nil, err
	case created && !key.raw:
		relink(key.port, key.netns)
	}
	return pc, nil
}

// take claims SCTP port (unless 0) for pc: on the socket, and with its
// host group when it is the socket's first claim of port. Called with
// s.mu held.
func (s *sharedSocket) take(pc *SharedConn, port uint16) error {
	if port == 0 {
		return nil
	}
	if other := s.ports[port]; other != nil && other != pc {
		return fmt.Errorf("%w: %d on %v", ErrPortInUse, port, s)
	}
	if s.ports[port] == nil && s.group != nil {
		if err := s.group.claim(port); err != nil {
			return fmt.Errorf("%w: %d on %v, %v", ErrPortInUse, port, s, err)
		}
	}
	s.ports[port] = pc
	pc.claims[port]++
	return nil
}

// drop gives back pc's claims of port on the socket and with its host
// group. Called with s.mu held.
func (s *sharedSocket) drop(pc *SharedConn, port uint16) {
	delete(pc.claims, port)
	if s.ports[port] == pc {
		delete(s.ports, port)
		if s.group != nil {
			s.group.release(port)
		}
	}
}

// updateSolo sets solo from the socket's members, wider sockets and host
// group. Called with s.mu held.
func (s *sharedSocket) updateSolo() {
	s.solo.Store(len(s.members) == 1 && s.group == nil && len(*s.wider.Load()) == 0)
}

// close closes the socket, leaving its host group.
func (s *sharedSocket) close() error {
	if s.group != nil {
		return s.group.leave(s.conn.Close)
	}
	return s.conn.Close()
}

// SharedSockets returns the number of sockets the endpoints of the
// process share now (each open until its last view closes).
func SharedSockets() int {
	sharedSockets.mu.Lock()
	defer sharedSockets.mu.Unlock()
	return len(sharedSockets.socks)
}

// String names the socket in errors: "UDP ADDR:PORT" or "raw IP ADDR".
func (s *sharedSocket) String() string {
	if s.key.raw {
		return fmt.Sprintf("raw IP %v", s.conn.LocalAddr().Addr())
	}
	return fmt.Sprintf("UDP %v", s.conn.LocalAddr())
}

// Claim takes SCTP port for pc (a dialed association's): it fails,
// wrapping ErrPortInUse, when another endpoint on the socket holds it.
// Claims count: each Claim is undone by one Release.
func (pc *SharedConn) Claim(port uint16) error {
	s := pc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.take(pc, port)
}

// Release gives back one claim of port.
func (pc *SharedConn) Release(port uint16) {
	s := pc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if pc.claims[port] <= 1 {
		s.drop(pc, port)
		return
	}
	pc.claims[port]--
}

// Close implements Conn: the endpoint's ports are released, and the
// socket closes with its last endpoint.
func (pc *SharedConn) Close() error {
	s := pc.s
	pc.mu.Lock()
	if pc.closed {
		pc.mu.Unlock()
		return nil
	}
	pc.closed = true
	pc.q = nil
	pc.mu.Unlock()
	pc.signal()
	s.releaseViews(pc)
	s.dlmu.Lock()
	if s.leader == pc {
		s.conn.SetReadDeadline(time.Unix(1, 0)) // interrupt our read
		s.applied = time.Unix(1, 0)
	}
	s.dlmu.Unlock()

	sharedSockets.mu.Lock()
	defer sharedSockets.mu.Unlock()
	s.mu.Lock()
	last := len(s.members) == 1
	for p := range pc.claims {
		s.drop(pc, p)
	}
	pc.claims = nil
	for i, m := range s.members {
		if m == pc {
			s.members = append(s.members[:i], s.members[i+1:]...)
			break
		}
	}
	s.updateSolo()
	s.mu.Unlock()
	if !last {
		return nil
	}
	delete(sharedSockets.socks, s.key)
	err := s.close()
	if !s.key.raw {
		relink(s.key.port, s.key.netns)
	}
	return err
}

// signal wakes pc's reader waiting in ReadBatch.
func (pc *SharedConn) signal() {
	select {
	case pc.wake <- struct{}{}:
	default:
	}
}

// SetReadDeadline implements Conn.
func (pc *SharedConn) SetReadDeadline(t time.Time) error {
	s := pc.s
	pc.mu.Lock()
	pc.deadline = t
	pc.mu.Unlock()
	s.dlmu.Lock()
	var err error
	if s.leader == pc {
		err = s.conn.SetReadDeadline(t)
		s.applied = t
	}
	s.dlmu.Unlock()
	pc.signal()
	return err
}

// LocalAddr implements Conn: the shared socket's address.
func (pc *SharedConn) LocalAddr() netip.AddrPort { return pc.s.conn.LocalAddr() }

// Overhead implements Conn.
func (pc *SharedConn) Overhead(remote netip.Addr) int { return pc.s.conn.Overhead(remote) }

// WriteBatch implements Conn: the socket's own, which serializes
// concurrent writers.
func (pc *SharedConn) WriteBatch(pkts []Packet) (int, error) {
	pc.mu.Lock()
	closed := pc.closed
	pc.mu.Unlock()
	if closed {
		return 0, net.ErrClosed
	}
	return pc.s.conn.WriteBatch(pkts)
}

// WriteFragmentable implements FragmentWriter: the socket's own
// (path MTU discovery's oversized retransmissions), else WriteBatch. The
// socket's Don't Fragment setting is that of the endpoint that opened it.
func (pc *SharedConn) WriteFragmentable(pkts []Packet) (int, error) {
	f, ok := pc.s.conn.(FragmentWriter)
	if !ok {
		return pc.WriteBatch(pkts)
	}
	pc.mu.Lock()
	closed := pc.closed
	pc.mu.Unlock()
	if closed {
		return 0, net.ErrClosed
	}
	return f.WriteFragmentable(pkts)
}

// Gathers implements Gatherer: the socket's own.
func (pc *SharedConn) Gathers() bool {
	g, ok := pc.s.conn.(Gatherer)
	return ok && g.Gathers()
}

// GRO reports whether ReadBatchView returns views of the socket's buffers.
func (pc *SharedConn) GRO() bool { return pc.s.view != nil }
