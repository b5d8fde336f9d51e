// Package simconn joins in-memory netio.Conn endpoints through a
// simnet.Network (delay, jitter, loss, duplication, reordering, MTU and a
// bottleneck rate from a seeded PRNG), for deterministic tests of
// goroutine code under testing/synctest.
//
// It owns no goroutine: deliveries run from one time.AfterFunc timer
// armed for the network's next delivery, and deadlines are timers too, so
// inside a synctest bubble virtual time jumps straight to the next event
// and a run with the same seed and inputs is the same run.
//
//	synctest.Test(t, func(t *testing.T) {
//		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 0.01}})
//		a, _ := n.Listen(netip.MustParseAddrPort("10.0.0.1:9899"))
//		b, _ := n.Listen(netip.MustParseAddrPort("10.0.0.2:9899"))
//		...
//	})
//
// Create the Network inside the bubble that uses it.
package simconn

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// Config configures a Network.
type Config struct {
	// Link is the behaviour of every one-way link not set with SetLink.
	Link simnet.LinkConfig
	// Overhead is what Conn.Overhead reports (for example 28 to model
	// UDP over IPv4).
	Overhead int
}

// pair names a one-way link by its ends.
type pair struct{ from, to netip.AddrPort }

// Network is a set of Conns and the links between them.
type Network struct {
	mu      sync.Mutex
	sim     *simnet.Network
	cfg     Config
	links   map[pair]int
	ends    []pair // by simnet link id
	conns   map[netip.AddrPort]*Conn
	timer   *time.Timer
	armed   time.Time // when timer fires; zero when idle
	bufs    [][]byte  // recycled delivery buffers
	noRoute uint64
	// unreach holds the destinations SetNoRoute and SetICMPUnreachable
	// made unreachable.
	unreach map[netip.Addr]unreachable
}

// unreachable is how sends to an unreachable destination fail.
type unreachable struct {
	errno syscall.Errno
	icmp  bool // the network answers with a notice; else the write fails
}

// noticeQuote is the bytes of a packet a simulated ICMP error quotes.
const noticeQuote = 128

// New returns an empty network whose randomness comes from seed.
func New(seed uint64, cfg Config) *Network {
	return &Network{
		sim:   simnet.New(seed),
		cfg:   cfg,
		links: make(map[pair]int),
		conns: make(map[netip.AddrPort]*Conn),
	}
}

// link returns the simnet link id from one address to another, creating
// it with the default configuration. n.mu is held.
func (n *Network) link(from, to netip.AddrPort) int {
	p := pair{from, to}
	if id, ok := n.links[p]; ok {
		return id
	}
	id := n.sim.AddLink(n.cfg.Link)
	n.links[p] = id
	n.ends = append(n.ends, p)
	return id
}

// SetLink sets the behaviour of the one-way link from one address to
// another for packets sent from now on.
func (n *Network) SetLink(from, to netip.AddrPort, cfg simnet.LinkConfig) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sim.Link(n.link(from, to)).SetConfig(cfg)
}

// LinkStats returns the counters of the one-way link from one address to
// another.
func (n *Network) LinkStats(from, to netip.AddrPort) simnet.LinkStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sim.Link(n.link(from, to)).Stats
}

// NoRoute returns how many packets arrived for an address with no Conn.
func (n *Network) NoRoute() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.noRoute
}

// SetNoRoute makes writes to the IP address dst fail with errno, as a
// host without a route to it refuses them (ENETUNREACH for no route,
// EHOSTUNREACH or EACCES for an unreachable or prohibit route): WriteBatch
// returns the packets before it as sent and an *os.SyscallError of
// errno. Errno 0 makes dst reachable again.
func (n *Network) SetNoRoute(dst netip.Addr, errno syscall.Errno) {
	n.setUnreachable(dst, unreachable{errno: errno})
}

// SetICMPUnreachable makes the network drop every packet sent to the IP
// address dst and answer it at once, as a router answers with an ICMP
// destination unreachable: its sender reads a notice of kind
// netio.NoticeUnreachable with Errno errno (ENETUNREACH, EHOSTUNREACH),
// quoting the packet's first 128 bytes. Errno 0 makes dst reachable again.
func (n *Network) SetICMPUnreachable(dst netip.Addr, errno syscall.Errno) {
	n.setUnreachable(dst, unreachable{errno: errno, icmp: true})
}

func (n *Network) setUnreachable(dst netip.Addr, u unreachable) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if u.errno == 0 {
		delete(n.unreach, dst)
		return
	}
	if n.unreach == nil {
		n.unreach = make(map[netip.Addr]unreachable)
	}
	n.unreach[dst] = u
}

// Listen returns a Conn at addr.
func (n *Network) Listen(addr netip.AddrPort) (*Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.conns[addr]; ok {
		return nil, errors.New("simconn: address in use: " + addr.String())
	}
	c := &Conn{n: n, addr: addr, notify: make(chan struct{}, 1), closed: make(chan struct{})}
	c.rd.cancel = make(chan struct{})
	n.conns[addr] = c
	return c, nil
}

// Alias has c receive the packets sent to addr as well, as a second
// address of a multi-homed host; c's packets still leave from its own
// address. The alias goes with c's Close.
func (n *Network) Alias(c *Conn, addr netip.AddrPort) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.conns[addr]; ok {
		return errors.New("simconn: address in use: " + addr.String())
	}
	n.conns[addr] = c
	c.aliases = append(c.aliases, addr)
	return nil
}

// send puts data on the link and arms the delivery timer. n.mu is held.
func (n *Network) send(now time.Time, from, to netip.AddrPort, data []byte, ecn uint8, frag bool) {
	if frag {
		n.sim.SendECNFragmentable(now, n.link(from, to), data, ecn)
	} else {
		n.sim.SendECN(now, n.link(from, to), data, ecn)
	}
	n.arm(now)
}

// arm makes the timer fire at the next delivery. n.mu is held.
func (n *Network) arm(now time.Time) {
	next, ok := n.sim.Next()
	if !ok || (!n.armed.IsZero() && !next.Before(n.armed)) {
		return
	}
	n.armed = next
	if n.timer == nil {
		n.timer = time.AfterFunc(next.Sub(now), n.deliver)
	} else {
		n.timer.Reset(next.Sub(now))
	}
}

// deliver hands every packet due now to its Conn.
func (n *Network) deliver() {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	n.armed = time.Time{}
	for p := n.sim.Pop(now); p != nil; p = n.sim.Pop(now) {
		e := n.ends[p.Link]
		if c := n.conns[e.to]; c != nil {
			buf := n.getBuf(len(p.Data))
			copy(buf, p.Data)
			c.queue = append(c.queue, delivered{from: e.from, data: buf, ecn: p.ECN})
			select {
			case c.notify <- struct{}{}:
			default:
			}
		} else {
			n.noRoute++
		}
		n.sim.Free(p)
	}
	n.arm(now)
}

func (n *Network) getBuf(size int) []byte {
	if k := len(n.bufs); k > 0 {
		b := n.bufs[k-1]
		n.bufs = n.bufs[:k-1]
		if cap(b) >= size {
			return b[:size]
		}
	}
	return make([]byte, size, max(size, 2048))
}

// delivered is a packet waiting in a Conn's queue.
type delivered struct {
	from netip.AddrPort
	data []byte
	ecn  uint8 // IP ECN field on arrival
	// notice and errno: a notice about a packet sent to from
	// (SetICMPUnreachable), data its quote.
	notice netio.NoticeKind
	errno  syscall.Errno
}

// Conn is one endpoint on a Network; it implements netio.Conn.
type Conn struct {
	n      *Network
	addr   netip.AddrPort
	queue  []delivered // guarded by n.mu
	head   int         // first undelivered in queue
	notify chan struct{}
	closed chan struct{}
	once   sync.Once
	rmu    sync.Mutex
	rd     deadline
	// aliases are the other addresses whose packets c receives; guarded by n.mu.
	aliases []netip.AddrPort
	// Dropped counts packets too large for the reader's buffer; guarded by n.mu.
	dropped uint64
}

var _ netio.Conn = (*Conn)(nil)

// ReadBatch implements netio.Conn.
func (c *Conn) ReadBatch(pkts []netio.Packet) (int, error) {
	if len(pkts) == 0 {
		return 0, errors.New("simconn: ReadBatch with no packets")
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for {
		select {
		case <-c.closed:
			return 0, net.ErrClosed
		default:
		}
		if k := c.take(pkts); k > 0 {
			return k, nil
		}
		select {
		case <-c.notify:
		case <-c.closed:
			return 0, net.ErrClosed
		case <-c.rd.wait():
			return 0, os.ErrDeadlineExceeded
		}
	}
}

// take moves queued packets into pkts.
func (c *Conn) take(pkts []netio.Packet) int {
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for k < len(pkts) && c.head < len(c.queue) {
		d := &c.queue[c.head]
		p := &pkts[k]
		if len(d.data) <= len(p.Buf) {
			p.N = copy(p.Buf, d.data)
			p.Addr, p.Notice, p.MTU, p.ECN, p.Errno = d.from, d.notice, 0, d.ecn, d.errno
			k++
		} else {
			c.dropped++
		}
		n.bufs = append(n.bufs, d.data)
		*d = delivered{}
		c.head++
	}
	if c.head == len(c.queue) {
		c.queue, c.head = c.queue[:0], 0
	}
	return k
}

// WriteBatch implements netio.Conn: every packet goes on the link
// from this Conn to its Addr at the current time, with the Don't
// Fragment bit (a link's MTU drops larger ones).
func (c *Conn) WriteBatch(pkts []netio.Packet) (int, error) { return c.write(pkts, false) }

// WriteFragmentable implements netio.FragmentWriter: the packets pass a
// link's MTU (simnet.Network.SendFragmentable).
func (c *Conn) WriteFragmentable(pkts []netio.Packet) (int, error) { return c.write(pkts, true) }

func (c *Conn) write(pkts []netio.Packet, frag bool) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	for i := range pkts {
		p := &pkts[i]
		if p.N < 0 || p.N > len(p.Buf) {
			return i, errors.New("simconn: packet length N outside its Buf")
		}
		if u, ok := n.unreach[p.Addr.Addr()]; ok {
			if !u.icmp {
				return i, os.NewSyscallError("sendmmsg", u.errno)
			}
			c.notice(p, u.errno)
			continue
		}
		n.send(now, c.addr, p.Addr, p.Data(), p.ECN, frag)
	}
	return len(pkts), nil
}

// notice queues for c a notice of kind netio.NoticeUnreachable about p.
// n.mu is held.
func (c *Conn) notice(p *netio.Packet, errno syscall.Errno) {
	q := p.Data()[:min(p.N, noticeQuote)]
	buf := c.n.getBuf(len(q))
	copy(buf, q)
	c.queue = append(c.queue, delivered{from: p.Addr, data: buf, notice: netio.NoticeUnreachable, errno: errno})
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// SetReadDeadline implements netio.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.rd.set(t)
	return nil
}

// LocalAddr implements netio.Conn.
func (c *Conn) LocalAddr() netip.AddrPort { return c.addr }

// Overhead implements netio.Conn: Config.Overhead.
func (c *Conn) Overhead(netip.Addr) int { return c.n.cfg.Overhead }

// Dropped returns how many delivered packets were too large for the
// reader's buffer.
func (c *Conn) Dropped() uint64 {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	return c.dropped
}

// Close implements netio.Conn: it unblocks ReadBatch and frees the
// address; packets still in flight to it are counted as NoRoute.
func (c *Conn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.n.mu.Lock()
		delete(c.n.conns, c.addr)
		for _, a := range c.aliases {
			delete(c.n.conns, a)
		}
		c.n.mu.Unlock()
		c.rd.set(time.Time{})
	})
	return nil
}

// deadline is a read deadline: a channel closed when it passes.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel chan struct{}
}

// set moves the deadline to t; the zero t means none.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.cancel // the timer fired: its function closes cancel
	}
	d.timer = nil
	expired := false
	select {
	case <-d.cancel:
		expired = true
	default:
	}
	if t.IsZero() {
		if expired {
			d.cancel = make(chan struct{})
		}
		return
	}
	dur := time.Until(t)
	if dur <= 0 {
		if !expired {
			close(d.cancel)
		}
		return
	}
	if expired {
		d.cancel = make(chan struct{})
	}
	ch := d.cancel
	d.timer = time.AfterFunc(dur, func() { close(ch) })
}

// wait returns a channel closed when the deadline passes.
func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancel
}
