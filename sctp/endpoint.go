package sctp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/transport"
)

// Endpoint is a one-to-many SCTP endpoint: one packet socket serving any
// number of associations, accepted (Listen, Accept) or started (Dial).
//
// The sans-I/O core is owned by the endpoint's lock; two goroutines drive
// it: a reader that takes packets from the socket in batches, feeds them
// all to the core and sends what they caused in one batch, and an owner
// that sends what user calls queued and runs the one timer armed at the
// core's earliest deadline. User goroutines queue work under the lock and
// wake the owner; they never wait for it. Two shortcuts serve
// request/response without goroutine hand-offs: a message written to an
// idle association is sent by the writing goroutine (sendNow), and a
// ReadMsg caller with nothing to read may read the socket itself when the
// reader goroutine lent it that role (shell_reader.go).
type Endpoint struct {
	cfg      Config
	conn     transport.Conn
	pcap     *transport.PcapWriter
	connPeer netip.AddrPort // the peer's address on a connected net.Conn

	mu         sync.Mutex
	core       *assoc.Endpoint
	assocs     map[*assoc.Assoc]*Association
	listenPort uint16 // SCTP port accepted on; 0: none
	// sharedPorts is set on the raw-IP transport, where every raw socket
	// on the host sees every SCTP packet: packets for ports this endpoint
	// does not own belong to someone else and get no answer from us.
	sharedPorts bool
	acceptq     []*Association
	acceptWait  waitq
	closed      bool
	err         error           // why the endpoint stopped, when it did by itself
	armed       time.Time       // deadline the owner's timer is set for
	owner       *Association    // the association Dial created this endpoint for
	ownerGone   bool            // owner ended: close the socket after the last flush
	free        []chan struct{} // waiter channels for block
	touched     []*Association  // reached by the packets being processed
	nblocked    int             // goroutines waiting in block

	// The socket reader role (shell_reader.go).
	direct       bool      // ReadMsg callers may take the role: the socket's deadline interrupts a read
	reader       int       // readerLoop, readerUser or readerNone
	readerGen    uint64    // times a ReadMsg caller took the role
	readerSeen   uint64    // readerGen at the owner's last check
	readerNext   time.Time // the owner's next check
	loopParked   bool      // readLoop waits for rkick
	readerIntr   bool      // the socket's read deadline is set to interrupt a reader
	readerRevert bool      // the ReadMsg caller reading is to hand the role back
	userWoke     bool      // the batch being processed woke a direct reader
	wokeReaders  int       // ReadMsg callers the batch being processed woke
	rkick        chan struct{}
	rpkts        []transport.Packet // read buffers of the reader role
	rbufs        [][]byte           // their own buffers (nil when reading views)
	read         func([]transport.Packet) (int, error)

	wmu  sync.Mutex // serializes flushes; guards out and nout
	out  []transport.Packet
	nout int // packets collected in out, not yet written
	// sendReq asks whoever holds wmu next to flush once more: set by a
	// writer that found wmu taken (sendNow), checked by every holder
	// after it unlocks wmu (unlockW).
	sendReq atomic.Bool

	// Counters of the goroutine work per packet, for tests that pin the
	// cost of a request/response exchange without timing it.
	nOwnerWakes atomic.Uint64 // owner loop iterations
	nWrites     atomic.Uint64 // WriteBatch calls
	nReads      atomic.Uint64 // ReadBatch calls that returned packets
	nHandoffs   atomic.Uint64 // ReadMsg callers woken by another goroutine's read

	kick      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

const (
	readBatch = 32  // packets per ReadBatch
	viewBatch = 128 // packets per ReadBatchView (GRO: about 3 buffers' worth)
	// writeBatch is the packets per WriteBatch: three GSO sends of 43
	// packets of 1480 bytes, half the sendmmsg calls of 64 on a bulk send
	// (and about 15% less CPU per byte on each side).
	writeBatch = 128
)

// Listen returns an endpoint accepting associations on laddr, "HOST:PORT"
// with an IP address (or empty host for all) and the SCTP port. With UDP
// encapsulation the socket is bound to HOST and Config.UDPPort.
func Listen(laddr string, cfg *Config) (*Endpoint, error) {
	host, port, err := splitHostPort(laddr)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		return nil, fmt.Errorf("sctp: listen %s: SCTP port 0", laddr)
	}
	var ip netip.Addr
	if host != "" {
		if ip, err = netip.ParseAddr(host); err != nil {
			return nil, fmt.Errorf("sctp: listen %s: %w", laddr, err)
		}
	}
	e, err := NewEndpoint(ip, cfg)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.listenPort = port
	e.core.SetPortFilter(port, e.sharedPorts)
	e.mu.Unlock()
	return e, nil
}

// NewEndpoint returns an endpoint whose socket is bound to ip (the zero
// Addr: all addresses) that accepts no association: it dials many from
// one socket (Endpoint.Dial).
func NewEndpoint(ip netip.Addr, cfg *Config) (*Endpoint, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	conn, peer, err := openConn(&c, ip)
	if err != nil {
		return nil, err
	}
	e := &Endpoint{cfg: c, conn: conn, connPeer: peer, assocs: make(map[*assoc.Assoc]*Association),
		kick: make(chan struct{}, 1), done: make(chan struct{}), rkick: make(chan struct{}, 1),
		sharedPorts: c.conn == nil && c.PacketConn == nil && c.Conn == nil && c.Transport == IP}
	if c.Pcap != "" {
		w, err := transport.CreatePcap(c.Pcap, transport.PcapOptions{})
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("sctp: pcap: %w", err)
		}
		e.pcap = w
		e.conn = transport.Capture(conn, w)
	}
	fam := netip.IPv6Unspecified()
	if ip.Is4() || ip.Is4In6() || peer.Addr().Is4() {
		fam = netip.IPv4Unspecified()
	}
	e.core = assoc.NewEndpoint(c.core(e.conn.Overhead(fam)), time.Now())
	e.core.SetCloseHook(e.onDestroy)
	e.core.SetPortFilter(0, e.sharedPorts)
	// The packets of one write lie side by side, each a PMTU (rounded to
	// a cache line) apart, not maxPacket: 128 of them (192 KiB) stay in
	// the CPU caches that the packet building and the kernel's copy both
	// walk. A larger
	// packet gets a buffer of its own (append).
	stride := min((e.core.MTU()+63)&^63, maxPacket)
	arena := make([]byte, writeBatch*stride)
	e.out = make([]transport.Packet, writeBatch)
	for i := range e.out {
		e.out[i].Buf = arena[i*stride : (i+1)*stride : (i+1)*stride]
	}
	e.initRead()
	// The reader role is only lent to ReadMsg callers on a socket whose
	// read deadline works (transport.Conn's contract; a net.Conn given
	// in Config may refuse deadlines).
	e.direct = e.conn.SetReadDeadline(time.Time{}) == nil
	e.wg.Add(2)
	go e.readLoop()
	go e.ownerLoop()
	return e, nil
}

// openConn opens the transport that cfg selects.
func openConn(c *Config, ip netip.Addr) (transport.Conn, netip.AddrPort, error) {
	switch {
	case c.conn != nil:
		return c.conn, netip.AddrPort{}, nil
	case c.Conn != nil:
		return transport.NewConnAdapter(c.Conn, transport.AdapterConfig{RemotePort: c.RemoteUDPPort}),
			netAddrPort(c.Conn.RemoteAddr()), nil
	case c.PacketConn != nil:
		return transport.NewAdapter(c.PacketConn, transport.AdapterConfig{RemotePort: c.RemoteUDPPort}),
			netip.AddrPort{}, nil
	case c.Transport == IP:
		conn, err := transport.ListenIP(transport.IPConfig{Addr: ip, BusyPoll: c.BusyPoll})
		if err != nil {
			return nil, netip.AddrPort{}, fmt.Errorf("sctp: raw IP: %w", err)
		}
		return conn, netip.AddrPort{}, nil
	}
	port := c.UDPPort
	switch {
	case port == 0:
		port = transport.DefaultUDPPort
	case port < 0:
		port = 0
	case port > 65535:
		return nil, netip.AddrPort{}, fmt.Errorf("sctp: UDP port %d", port)
	}
	if !ip.IsValid() {
		ip = netip.IPv6Unspecified()
	}
	conn, err := transport.ListenUDP(transport.UDPConfig{Addr: netip.AddrPortFrom(ip, uint16(port)),
		RemotePort: c.RemoteUDPPort, GRO: true, BusyPoll: c.BusyPoll})
	if err != nil {
		return nil, netip.AddrPort{}, fmt.Errorf("sctp: UDP encapsulation: %w", err)
	}
	return conn, netip.AddrPort{}, nil
}

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

// Accept waits for the next association on the listening port.
func (e *Endpoint) Accept() (*Association, error) {
	return e.AcceptContext(context.Background())
}

// AcceptContext waits for the next association until ctx is done.
func (e *Endpoint) AcceptContext(ctx context.Context) (*Association, error) {
	e.mu.Lock()
	for {
		if len(e.acceptq) > 0 {
			as := e.acceptq[0]
			copy(e.acceptq, e.acceptq[1:])
			e.acceptq[len(e.acceptq)-1] = nil
			e.acceptq = e.acceptq[:len(e.acceptq)-1]
			e.mu.Unlock()
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
		if !e.block(&e.acceptWait, ctx.Done(), nil) {
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

// Dial starts an association to raddr ("HOST:PORT", the peer's IP
// address and SCTP port) on a new endpoint of its own, and waits until it
// is established or ctx is done. The endpoint closes with the association.
func Dial(ctx context.Context, raddr string, cfg *Config) (*Association, error) {
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
	e, err := NewEndpoint(ip, cfg)
	if err != nil {
		return nil, err
	}
	as, err := e.dial(ctx, peer, true)
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
	return e.dial(ctx, peer, false)
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
			return netip.AddrPort{}, fmt.Errorf("sctp: dial %s: %w", raddr, lerr)
		}
		ip = ips[0]
	}
	return netip.AddrPortFrom(ip.Unmap(), port), nil
}

// dial runs the ASSOCIATE primitive to peer (IP and SCTP port).
func (e *Endpoint) dial(ctx context.Context, peer netip.AddrPort, owned bool) (*Association, error) {
	to := e.transportAddr(peer.Addr())
	e.mu.Lock()
	if e.closed {
		err := e.closedErr()
		e.mu.Unlock()
		return nil, err
	}
	var a *assoc.Assoc
	var err error
	for range 16 {
		lport := e.cfg.LocalPort
		if lport == 0 {
			lport = uint16(49152 + rand.IntN(16384))
		}
		a, err = e.core.Connect(time.Now(), to, lport, peer.Port())
		if !errors.Is(err, assoc.ErrExists) || e.cfg.LocalPort != 0 {
			break
		}
	}
	if err != nil {
		e.mu.Unlock()
		return nil, fmt.Errorf("sctp: dial %v: %w", peer, err)
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
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
			return nil, fmt.Errorf("sctp: dial %v: %w", peer, err)
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
	case e.cfg.conn == nil && e.cfg.PacketConn == nil && e.cfg.Transport == IP:
		return netip.AddrPortFrom(ip, 0)
	}
	return netip.AddrPortFrom(ip, e.cfg.RemoteUDPPort)
}

// poke wakes the owner goroutine to send what the core has queued.
func (e *Endpoint) poke() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// readLoop reads packets in batches and feeds them to the core while it
// holds the reader role.
func (e *Endpoint) readLoop() {
	defer e.wg.Done()
	for {
		if !e.awaitReader() {
			return
		}
		n, err := e.readSocket()
		if err != nil {
			select {
			case <-e.done:
				return
			default:
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				e.fail(err)
				return
			}
			continue // a transient socket error (for example ICMP)
		}
		e.process(n, true)
	}
}

// initRead sets up the reads of the socket: as views of the socket's GRO
// buffers when it has them (one copy less, no buffers of ours, and a
// batch as large as one recvmmsg brings), else into buffers of our own.
func (e *Endpoint) initRead() {
	e.read = e.conn.ReadBatch
	batch := readBatch
	if v, ok := e.conn.(interface {
		ReadBatchView([]transport.Packet) (int, error)
		GRO() bool
	}); ok && v.GRO() {
		e.read, batch = v.ReadBatchView, viewBatch
	} else {
		e.rbufs = make([][]byte, batch)
		for i := range e.rbufs {
			e.rbufs[i] = make([]byte, maxPacket)
		}
	}
	e.rpkts = make([]transport.Packet, batch)
}

// readSocket reads one batch into e.rpkts. Called by the holder of the
// reader role.
func (e *Endpoint) readSocket() (int, error) {
	for i, b := range e.rbufs {
		e.rpkts[i].Buf = b // ReadBatch may have swapped them
	}
	return e.read(e.rpkts)
}

// process feeds the core the n packets read into e.rpkts, sends what they
// caused and wakes the goroutines they concern. Called by the holder of
// the reader role (loop: readLoop, which may yield the role here).
func (e *Endpoint) process(n int, loop bool) {
	e.nReads.Add(1)
	now := time.Now()
	e.wmu.Lock()
	e.mu.Lock()
	e.core.BeginBatch() // one SACK per batch (endpoint_batch.go)
	pkts := e.rpkts
	var last *assoc.Assoc
	for i := range pkts[:n] {
		// Note the association the packet reached, to wake its
		// waiters below without visiting every association.
		if a := e.core.Receive(now, pkts[i].Addr, pkts[i].Data()); a != nil && a != last {
			last = a
			if as := e.assocs[a]; as != nil && !as.touched {
				as.touched = true
				e.touched = append(e.touched, as)
			}
		}
		// Collect what this packet caused before the next one is
		// processed: each SACK is its own send opportunity (Max.Burst
		// packets), as if packets were processed one by one, while
		// everything still leaves in one WriteBatch.
		e.events() // first: an association refused here sends no COOKIE ACK
		if e.collect(now) {
			e.mu.Unlock()
			e.writeOut()
			e.mu.Lock()
		}
	}
	e.core.EndBatch()
	e.userWoke, e.wokeReaders = false, 0
	e.afterPackets()
	yield := loop && e.mayYield()
	if yield {
		e.reader = readerNone
		e.readerSeen = e.readerGen
		e.readerNext = now.Add(readerCheck)
	}
	e.mu.Unlock()
	e.flushHeld()
	e.unlockW()
	if yield {
		e.poke() // the owner starts its checks of the reader role
	}
}

// ownerLoop sends what user calls queued and runs the timers.
func (e *Endpoint) ownerLoop() {
	defer e.wg.Done()
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-e.kick:
		case <-t.C:
		case <-e.done:
			t.Stop()
			return
		}
		e.nOwnerWakes.Add(1)
		now := time.Now()
		e.mu.Lock()
		if d := e.core.Deadline(); !d.IsZero() && !d.After(now) {
			e.core.Expire(now)
			e.afterInput()
		}
		e.checkReader(now)
		e.mu.Unlock()
		e.flush()
		e.mu.Lock()
		d := e.core.Deadline()
		if e.reader != readerLoop && (d.IsZero() || e.readerNext.Before(d)) {
			d = e.readerNext
		}
		e.armed = d
		e.mu.Unlock()
		if !d.IsZero() {
			// A deadline the core could not serve must not make this
			// loop spin.
			t.Reset(max(time.Until(d), 50*time.Microsecond))
		} else {
			t.Stop()
		}
	}
}

// flush sends every packet the core has, in batches.
func (e *Endpoint) flush() {
	e.wmu.Lock()
	e.flushHeld()
	e.unlockW()
}

// sendNow sends what a user call just queued from the calling goroutine
// (write-through): no hand-off to the owner goroutine, so a request or a
// response leaves with one sendmmsg on the writer's thread. When another
// goroutine is flushing, that goroutine sends it instead (e.sendReq).
func (e *Endpoint) sendNow() {
	e.sendReq.Store(true)
	for e.sendReq.Load() && e.wmu.TryLock() {
		e.sendReq.Store(false)
		e.flushHeld()
		e.wmu.Unlock()
	}
}

// unlockW releases e.wmu, then flushes again for a sendNow that found it
// taken: a writer sets e.sendReq before its TryLock, and every holder
// looks at it after unlocking, so no request is left behind.
func (e *Endpoint) unlockW() {
	e.wmu.Unlock()
	for e.sendReq.Load() && e.wmu.TryLock() {
		e.sendReq.Store(false)
		e.flushHeld()
		e.wmu.Unlock()
	}
}

// flushHeld is flush with e.wmu held: it sends what is collected in e.out
// and everything the core has besides.
func (e *Endpoint) flushHeld() {
	for {
		now := time.Now()
		e.mu.Lock()
		full := e.collect(now)
		rearm := false
		if !full {
			if d := e.core.Deadline(); !d.IsZero() && (e.armed.IsZero() || d.Before(e.armed)) {
				rearm = true
			}
		}
		gone := e.ownerGone && !full
		e.mu.Unlock()
		e.writeOut()
		if rearm {
			e.poke()
		}
		if gone {
			e.stop()
		}
		if !full {
			return
		}
	}
}

// collect polls the core's packets into e.out after the e.nout already
// there; it reports whether e.out is full. Called with e.wmu and e.mu held.
func (e *Endpoint) collect(now time.Time) bool {
	for e.nout < len(e.out) {
		o := &e.out[e.nout]
		to, b, ok := e.core.Poll(now, o.Buf[:0])
		if !ok {
			return false
		}
		o.Buf, o.N, o.Addr = b[:cap(b)], len(b), to
		e.nout++
	}
	return true
}

// writeOut sends the packets collected in e.out with one WriteBatch.
// Called with e.wmu held and e.mu not held.
func (e *Endpoint) writeOut() {
	if e.nout > 0 {
		e.nWrites.Add(1)
		e.conn.WriteBatch(e.out[:e.nout]) // a lost packet is a lost packet
		e.nout = 0
	}
}

// stop ends the goroutines and closes the socket (the owner association
// ended, or Close).
func (e *Endpoint) stop() {
	e.closeOnce.Do(func() {
		close(e.done)
		e.conn.Close()
		if e.pcap != nil {
			e.pcap.Close() // later captures fail quietly
		}
	})
}

// fail ends every association after the socket failed.
func (e *Endpoint) fail(err error) {
	e.mu.Lock()
	if !e.closed {
		e.err = fmt.Errorf("sctp: endpoint socket: %w", err)
		e.closed = true
		for a := range e.assocs {
			a.Abort(time.Now(), []byte("socket failed"))
		}
		e.afterInput()
		e.acceptWait.wake()
	}
	e.mu.Unlock()
	e.stop()
}

// Close aborts every association of the endpoint (use Association.Shutdown
// first for a graceful end), closes its socket and waits for its
// goroutines.
func (e *Endpoint) Close() error {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		for a, as := range e.assocs {
			as.abortReason = "endpoint closed"
			a.Abort(time.Now(), []byte(as.abortReason))
		}
		e.afterInput()
		e.acceptWait.wake()
		e.acceptq = nil // aborted above with the others
	}
	e.mu.Unlock()
	e.flush()
	e.stop()
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
	return statsOf(&s)
}

// afterInput hands the core's events to the associations and wakes the
// goroutines waiting on any of them. Called with e.mu held.
func (e *Endpoint) afterInput() {
	e.events()
	for _, as := range e.assocs {
		as.progress()
	}
}

// afterPackets is afterInput for the associations that packets reached
// (e.touched). Called with e.mu held.
func (e *Endpoint) afterPackets() {
	e.events()
	for i, as := range e.touched {
		as.touched = false
		as.progress()
		e.touched[i] = nil
	}
	e.touched = e.touched[:0]
}

func (e *Endpoint) events() {
	for {
		ev, ok := e.core.NextEvent()
		if !ok {
			break
		}
		e.handle(ev)
	}
}

// handle turns one core event into the association's state and a user
// event.
func (e *Endpoint) handle(ev assoc.Event) {
	as := e.assocs[ev.Assoc]
	switch ev.Kind {
	case assoc.EventCommUp:
		if as == nil {
			as = e.accepted(ev.Assoc)
			if as == nil {
				return
			}
		}
		as.up = true
		as.swait.wake()
		as.emit(Event{Kind: EventUp})
		return
	}
	if as == nil {
		return
	}
	switch ev.Kind {
	case assoc.EventRestart:
		as.emit(Event{Kind: EventRestart})
	case assoc.EventPeerError:
		as.emit(Event{Kind: EventPeerError, Cause: uint16(ev.Cause)})
	case assoc.EventReconf:
		as.reconfDone(ev.Reconf)
	case assoc.EventPathDown, assoc.EventPathUp:
		peer, _ := ev.Assoc.Peer()
		as.emit(Event{Kind: EventPeerAddrChange, Addr: peer, Reachable: ev.Kind == assoc.EventPathUp})
	case assoc.EventShutdownComplete:
		as.terminate(nil)
	case assoc.EventCommLost, assoc.EventCantStart:
		ae := &AbortError{ByPeer: ev.Reason == assoc.ReasonPeerAbort, Reason: ev.Reason.String(), Cause: uint16(ev.Cause)}
		if ev.Reason == assoc.ReasonUserAbort {
			ae.UserReason = as.abortReason
		}
		as.terminate(ae)
	}
}

// accepted wraps a new passive association and queues it for Accept, or
// aborts it when nobody can take it.
func (e *Endpoint) accepted(a *assoc.Assoc) *Association {
	if e.closed || e.listenPort == 0 || len(e.acceptq) >= e.cfg.Backlog {
		a.Abort(time.Now(), []byte(ErrAcceptQueueFull.Error()))
		return nil
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
	e.acceptq = append(e.acceptq, as)
	e.acceptWait.wake()
	return as
}

// onDestroy is the core's hook as an association closes: keep its final
// counters and its receive side (unread messages stay readable), and
// report its unsent messages.
func (e *Endpoint) onDestroy(a *assoc.Assoc, r assoc.Reason) {
	as := e.assocs[a]
	if as == nil {
		return
	}
	s := a.Stats()
	final := statsOf(&s)
	as.final = &final
	as.takeFailed()
	if r != assoc.ReasonShutdown {
		a.DrainUnsent(func(m assoc.Unsent) {
			if as.eventRoom() > 0 {
				as.emit(Event{Kind: EventSendFailed, Stream: m.SID, PPID: m.PPID, Unordered: m.Unordered,
					Msg: append([]byte(nil), m.Payload...), Sent: m.Sent})
			}
		})
	}
}

// block waits on q until woken, or until stop1 or stop2 is closed (then it
// reports false). It is called and returns with e.mu held.
func (e *Endpoint) block(q *waitq, stop1, stop2 <-chan struct{}) bool {
	var c chan struct{}
	if n := len(e.free); n > 0 {
		c = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		c = make(chan struct{}, 1)
	}
	q.add(c)
	e.nblocked++
	if e.reader == readerNone {
		e.handToLoop() // someone must read the socket for this waiter
	}
	e.mu.Unlock()
	ok := true
	select {
	case <-c:
	case <-stop1:
		ok = false
	case <-stop2:
		ok = false
	}
	e.mu.Lock()
	e.nblocked--
	if !ok {
		q.cancel(c)
	}
	select {
	case <-c:
	default:
	}
	e.free = append(e.free, c)
	return ok
}
