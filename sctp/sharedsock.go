package sctp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// The process-wide registry of shared encapsulation sockets. As the kernel
// serves every SCTP socket of a host from one stack, the endpoints of a
// process that bind one UDP address and port share one socket, and the
// packets it reads go to the endpoint serving their SCTP destination port:
// two Listens on different SCTP ports with the default settings both use
// UDP 9899. Each endpoint sees the shared socket through a portConn, a
// netio.Conn of its own. There is no demultiplexing goroutine: whichever
// endpoint reads finds the socket free reads it (the leader), keeps its
// own packets and queues the others' for their endpoints, which it wakes;
// an endpoint alone on its socket reads it as if it were its own, with no
// copy and no per-packet work.
//
// A packet for an SCTP port nobody on the socket serves goes to the first
// endpoint still registered (the default), whose core gives the RFC's
// answer as for a socket of its own: an ABORT to an INIT for a port
// nobody listens on (RFC 9260 section 8.4), rate-limited.

// sockKey names a shared socket: the local address and UDP port, or for
// raw IP (port 0) the local address, in the network namespace netns (the
// same address in two namespaces is two sockets).
type sockKey struct {
	ip    netip.Addr
	port  uint16
	raw   bool
	netns uint64
}

var sockRegistry struct {
	mu    sync.Mutex
	socks map[sockKey]*sharedSock
}

// sharedSock is one socket shared by the endpoints bound to its address.
type sharedSock struct {
	key  sockKey
	conn netio.Conn
	view func([]netio.Packet) (int, error) // ReadBatchView when the socket has GRO buffers

	// mu guards ports and members (and every portConn's claims).
	mu      sync.Mutex
	ports   map[uint16]*portConn // SCTP port -> the endpoint serving it
	members []*portConn          // in registration order; members[0] is the default
	solo    atomic.Bool          // one member: it gets every packet, no demultiplexing

	rmu  sync.Mutex    // held by the leader, which reads the socket
	free chan struct{} // a token posted when the leader lets go of the socket

	// dlmu guards leader, applied and viewHeld: the read deadline on the
	// socket is the leader's.
	dlmu    sync.Mutex
	leader  *portConn
	applied time.Time
	// viewHeld is the endpoint that holds views of the socket's receive
	// buffers (ReadBatchView) until its next read: nobody else reads the
	// socket meanwhile, as that would overwrite them.
	viewHeld *portConn
}

// portConn is an endpoint's view of a shared socket (netio.Conn).
type portConn struct {
	s      *sharedSock
	claims map[uint16]int // SCTP ports held, with their use counts (guarded by s.mu)
	opener bool           // the first endpoint on the socket: its settings are the socket's

	mu       sync.Mutex // guards the fields below
	q        []netio.Packet
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

var _ netio.Conn = (*portConn)(nil)

// errPortInUse is wrapped by the error of a Listen or Dial whose SCTP port
// is already served by another endpoint on the same socket; it matches
// syscall.EADDRINUSE with errors.Is.
var errPortInUse = fmt.Errorf("sctp: SCTP port in use: %w", syscall.EADDRINUSE)

// openShared returns a view of the shared UDP encapsulation socket that uc
// names, opening it if no endpoint of the process has; port, unless 0, is
// claimed for the new view (its listening port).
func openShared(uc netio.UDPConfig, port uint16) (*portConn, error) {
	key := sockKey{ip: uc.Addr.Addr().Unmap(), port: uc.Addr.Port(), netns: netnsID()}
	if uc.Addr.Addr().Is4In6() {
		key.ip = uc.Addr.Addr() // a different socket from the IPv4 one
	}
	return openSharedKey(key, func() (netio.Conn, error) { return netio.ListenUDP(uc) }, port)
}

// openSharedIP is openShared for the raw IP socket ic names: one per
// local address (and so per family) in the process. Every raw socket of
// the host sees every SCTP packet; the endpoints sharing this one get
// those of their ports, and the packets of nobody's go to the default
// endpoint, whose core drops them (another process may own the port).
func openSharedIP(ic netio.IPConfig, port uint16) (*portConn, error) {
	key := sockKey{ip: ic.Addr, raw: true, netns: netnsID()}
	return openSharedKey(key, func() (netio.Conn, error) { return netio.ListenIP(ic) }, port)
}

// openSharedKey is openShared for the socket key names, which open opens.
func openSharedKey(key sockKey, open func() (netio.Conn, error), port uint16) (*portConn, error) {
	sockRegistry.mu.Lock()
	defer sockRegistry.mu.Unlock()
	s := sockRegistry.socks[key]
	if s == nil {
		conn, err := open()
		if err != nil {
			return nil, err
		}
		s = &sharedSock{key: key, conn: conn, ports: make(map[uint16]*portConn), free: make(chan struct{}, 1)}
		if v, ok := netio.Conn(conn).(interface {
			ReadBatchView([]netio.Packet) (int, error)
			GRO() bool
		}); ok && v.GRO() {
			s.view = v.ReadBatchView
		}
		if sockRegistry.socks == nil {
			sockRegistry.socks = make(map[sockKey]*sharedSock)
		}
		sockRegistry.socks[key] = s
	}
	pc := &portConn{s: s, claims: make(map[uint16]int), wake: make(chan struct{}, 1), opener: len(s.members) == 0}
	s.mu.Lock()
	defer s.mu.Unlock()
	if port != 0 {
		if s.ports[port] != nil {
			return nil, fmt.Errorf("%w: %d on %v", errPortInUse, port, s)
		}
		s.ports[port] = pc
		pc.claims[port] = 1
	}
	s.members = append(s.members, pc)
	s.solo.Store(len(s.members) == 1)
	return pc, nil
}

// String names the socket in errors: "UDP ADDR:PORT" or "raw IP ADDR".
func (s *sharedSock) String() string {
	if s.key.raw {
		return fmt.Sprintf("raw IP %v", s.conn.LocalAddr().Addr())
	}
	return fmt.Sprintf("UDP %v", s.conn.LocalAddr())
}

// claim takes SCTP port for pc (a dialed association's): it fails,
// matching syscall.EADDRINUSE, when another endpoint on the socket holds
// it.
func (pc *portConn) claim(port uint16) error {
	s := pc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if other := s.ports[port]; other != nil && other != pc {
		return fmt.Errorf("%w: %d on %v", errPortInUse, port, s)
	}
	s.ports[port] = pc
	pc.claims[port]++
	return nil
}

// release gives back one claim of port.
func (pc *portConn) release(port uint16) {
	s := pc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if pc.claims[port] <= 1 {
		delete(pc.claims, port)
		if s.ports[port] == pc {
			delete(s.ports, port)
		}
		return
	}
	pc.claims[port]--
}

// Close implements netio.Conn: the endpoint's ports are released, and the
// socket closes with its last endpoint.
func (pc *portConn) Close() error {
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

	sockRegistry.mu.Lock()
	defer sockRegistry.mu.Unlock()
	s.mu.Lock()
	for p := range pc.claims {
		if s.ports[p] == pc {
			delete(s.ports, p)
		}
	}
	pc.claims = nil
	for i, m := range s.members {
		if m == pc {
			s.members = append(s.members[:i], s.members[i+1:]...)
			break
		}
	}
	last := len(s.members) == 0
	s.solo.Store(len(s.members) == 1)
	s.mu.Unlock()
	if !last {
		return nil
	}
	delete(sockRegistry.socks, s.key)
	return s.conn.Close()
}

// signal wakes pc's reader waiting in ReadBatch.
func (pc *portConn) signal() {
	select {
	case pc.wake <- struct{}{}:
	default:
	}
}

// SetReadDeadline implements netio.Conn.
func (pc *portConn) SetReadDeadline(t time.Time) error {
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

// LocalAddr implements netio.Conn: the shared socket's address.
func (pc *portConn) LocalAddr() netip.AddrPort { return pc.s.conn.LocalAddr() }

// Overhead implements netio.Conn.
func (pc *portConn) Overhead(remote netip.Addr) int { return pc.s.conn.Overhead(remote) }

// WriteBatch implements netio.Conn: the socket's own, which serializes
// concurrent writers.
func (pc *portConn) WriteBatch(pkts []netio.Packet) (int, error) {
	pc.mu.Lock()
	closed := pc.closed
	pc.mu.Unlock()
	if closed {
		return 0, net.ErrClosed
	}
	return pc.s.conn.WriteBatch(pkts)
}

// WriteFragmentable implements netio.FragmentWriter: the socket's own
// (path MTU discovery's oversized retransmissions), else WriteBatch. The
// socket's Don't Fragment setting is that of the endpoint that opened it.
func (pc *portConn) WriteFragmentable(pkts []netio.Packet) (int, error) {
	f, ok := pc.s.conn.(netio.FragmentWriter)
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

// GRO reports whether ReadBatchView returns views of the socket's buffers.
func (pc *portConn) GRO() bool { return pc.s.view != nil }

// ReadBatch implements netio.Conn.
func (pc *portConn) ReadBatch(pkts []netio.Packet) (int, error) { return pc.read(pkts, false) }

// ReadBatchView is netio.UDPConn's ReadBatchView: the packets' Bufs are
// views valid until the next call.
func (pc *portConn) ReadBatchView(pkts []netio.Packet) (int, error) {
	return pc.read(pkts, pc.s.view != nil)
}

// read waits for packets for pc: queued by another endpoint's read, or
// read from the socket while pc leads.
func (pc *portConn) read(pkts []netio.Packet, view bool) (int, error) {
	if len(pkts) == 0 {
		return 0, errors.New("netio: ReadBatch with no packets")
	}
	s := pc.s
	s.releaseViews(pc)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		pc.mu.Lock()
		if view {
			pc.spare = append(pc.spare, pc.lent...)
			clear(pc.lent)
			pc.lent = pc.lent[:0]
		}
		if pc.closed {
			pc.mu.Unlock()
			return 0, net.ErrClosed
		}
		if len(pc.q) > 0 {
			n := pc.dequeue(pkts, view)
			pc.mu.Unlock()
			return n, nil
		}
		dl := pc.deadline
		pc.mu.Unlock()
		if !dl.IsZero() && !time.Now().Before(dl) {
			return 0, os.ErrDeadlineExceeded
		}
		if s.rmu.TryLock() {
			n, err, st := pc.lead(pkts, view)
			if st == leadDone {
				return n, err
			}
			if st == leadAgain {
				continue
			}
			// leadBlocked: another endpoint still reads views of the
			// socket's buffers; it posts free when it is done.
		}
		var tc <-chan time.Time
		if !dl.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(dl))
			} else {
				timer.Reset(time.Until(dl))
			}
			tc = timer.C
		}
		select {
		case <-pc.wake:
		case <-s.free:
			// The socket is free: take it at the top of the loop, or
			// pass the token on if our packets came meanwhile.
			pc.mu.Lock()
			have := len(pc.q) > 0 || pc.closed
			pc.mu.Unlock()
			if have {
				s.postFree()
			}
		case <-tc:
		}
	}
}

// postFree tells a waiting endpoint that nobody reads the socket.
func (s *sharedSock) postFree() {
	select {
	case s.free <- struct{}{}:
	default:
	}
}

// releaseViews ends pc's hold on views of the socket's buffers: its
// endpoint is done with the packets of its last read.
func (s *sharedSock) releaseViews(pc *portConn) {
	s.dlmu.Lock()
	held := s.viewHeld == pc
	if held {
		s.viewHeld = nil
	}
	s.dlmu.Unlock()
	if held {
		s.postFree()
	}
}

// What lead did.
const (
	leadDone    = iota // it returns packets or an error
	leadAgain          // back to read's loop: packets were queued, or pc closed
	leadBlocked        // another endpoint holds views of the socket's buffers
)

// lead reads the socket while pc holds s.rmu, until it has packets of
// its own (leadDone with n, or an error), and lets go of the socket.
func (pc *portConn) lead(pkts []netio.Packet, view bool) (n int, err error, st int) {
	s := pc.s
	s.dlmu.Lock()
	if s.viewHeld != nil && s.viewHeld != pc {
		s.dlmu.Unlock()
		s.rmu.Unlock() // no free token: the holder posts one
		return 0, nil, leadBlocked
	}
	s.leader = pc
	pc.mu.Lock()
	dl, closed, queued := pc.deadline, pc.closed, len(pc.q) > 0
	pc.mu.Unlock()
	if !dl.Equal(s.applied) {
		s.conn.SetReadDeadline(dl)
		s.applied = dl
	}
	s.dlmu.Unlock()
	viewed := false // pc returns views of the socket's buffers
	defer func() {
		s.dlmu.Lock()
		s.leader = nil
		if viewed {
			s.viewHeld = pc
		}
		s.dlmu.Unlock()
		s.rmu.Unlock()
		if !viewed {
			s.postFree()
		}
	}()
	if closed || queued {
		return 0, nil, leadAgain
	}
	for {
		if view {
			n, err = s.view(pkts)
		} else {
			n, err = s.conn.ReadBatch(pkts)
		}
		if err != nil {
			pc.mu.Lock()
			closed := pc.closed
			pc.mu.Unlock()
			if closed {
				return 0, net.ErrClosed, leadDone
			}
			return 0, err, leadDone
		}
		if !s.solo.Load() {
			n = s.dispatch(pc, pkts[:n])
		}
		if n > 0 {
			viewed = view
			return n, nil, leadDone
		}
		pc.mu.Lock()
		closed := pc.closed
		pc.mu.Unlock()
		if closed {
			return 0, net.ErrClosed, leadDone
		}
	}
}

// dispatch keeps at the front of pkts the packets for lead and queues the
// others for their endpoints; it returns how many lead keeps.
func (s *sharedSock) dispatch(lead *portConn, pkts []netio.Packet) int {
	s.mu.Lock()
	var def *portConn
	if len(s.members) > 0 {
		def = s.members[0]
	}
	keep := 0
	var woke []*portConn
	for i := range pkts {
		to := s.owner(&pkts[i], def)
		if to == lead || to == nil {
			if to == lead {
				pkts[keep], pkts[i] = pkts[i], pkts[keep]
				keep++
			}
			continue
		}
		if to.enqueue(&pkts[i]) {
			woke = append(woke, to)
		}
	}
	s.mu.Unlock()
	for _, pc := range woke {
		pc.signal()
	}
	return keep
}

// owner returns the endpoint a packet read from the socket goes to: the
// one serving its SCTP destination port, or for a notice (what the network
// said about a packet we sent) the one serving the quoted packet's source
// port; def when nobody does. Called with s.mu held.
func (s *sharedSock) owner(p *netio.Packet, def *portConn) *portConn {
	d := p.Data()
	off := 2 // destination port
	if p.Notice != netio.NoticeNone {
		off = 0 // the quoted packet's source port: ours
	}
	if len(d) < off+2 {
		return def
	}
	if pc := s.ports[binary.BigEndian.Uint16(d[off:])]; pc != nil {
		return pc
	}
	return def
}

// enqueue copies p into pc's queue; it reports whether the queue was
// empty (pc's reader is to be woken). Called with pc.s.mu held.
func (pc *portConn) enqueue(p *netio.Packet) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed || len(pc.q) >= maxQueued {
		pc.dropped++
		return false
	}
	var buf []byte
	if k := len(pc.spare); k > 0 && cap(pc.spare[k-1]) >= p.N {
		buf = pc.spare[k-1][:p.N]
		pc.spare[k-1] = nil
		pc.spare = pc.spare[:k-1]
	} else {
		buf = make([]byte, p.N, max(p.N, 2048))
	}
	copy(buf, p.Data())
	pc.q = append(pc.q, netio.Packet{Buf: buf, N: p.N, Addr: p.Addr, Notice: p.Notice, MTU: p.MTU, Local: p.Local})
	return len(pc.q) == 1
}

// dequeue moves queued packets into pkts: copies into their buffers, or
// with view the queue's buffers themselves (lent until the next call).
// Called with pc.mu held.
func (pc *portConn) dequeue(pkts []netio.Packet, view bool) int {
	n, i := 0, 0
	for ; n < len(pkts) && i < len(pc.q); i++ {
		q := pc.q[i]
		pc.q[i] = netio.Packet{}
		dst := &pkts[n]
		if view {
			dst.Buf = q.Buf
			pc.lent = append(pc.lent, q.Buf)
		} else {
			if len(dst.Buf) < q.N {
				pc.dropped++ // never truncated (netio.Conn's contract)
				pc.spare = append(pc.spare, q.Buf)
				continue
			}
			copy(dst.Buf, q.Buf[:q.N])
			pc.spare = append(pc.spare, q.Buf)
		}
		dst.N, dst.Addr, dst.Notice, dst.MTU, dst.Local = q.N, q.Addr, q.Notice, q.MTU, q.Local
		n++
	}
	k := copy(pc.q, pc.q[i:])
	clear(pc.q[k:])
	pc.q = pc.q[:k]
	if len(pc.spare) > 64 {
		clear(pc.spare[64:])
		pc.spare = pc.spare[:64]
	}
	return n
}

// enableECN is netio.EnableECN for the socket under c: a shared socket's
// is set by the endpoint that opened it (ECN marking is per socket, like
// Don't Fragment), through its portConn.
func enableECN(c netio.Conn) error {
	switch c := c.(type) {
	case *portConn:
		if !c.opener {
			return nil
		}
		return netio.EnableECN(c.s.conn)
	case *dualConn:
		return nil // set as it opened, before its readers started (rawdual.go)
	}
	return netio.EnableECN(c)
}

// ECTAll reports whether the shared socket sends ECT(0) (netio.ECTAll),
// so that a capture records the ECN field the wire has.
func (pc *portConn) ECTAll() bool { return netio.ECTAll(pc.s.conn) }
