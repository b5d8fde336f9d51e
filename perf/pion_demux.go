package perf

import (
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

// udpDemux is the pion backend's server socket: one UDP socket whose
// datagrams are handed to a connection per remote address, the way
// pion/webrtc carries SCTP. It replaces pion/transport's udp listener,
// whose Accept can race its own shutdown (a sync.WaitGroup reused while
// its Wait runs: a panic under -race).
type udpDemux struct {
	pc     *net.UDPConn
	accept chan *demuxConn
	done   chan struct{}
	once   sync.Once
	bufs   sync.Pool // *[]byte datagram buffers

	mu    sync.Mutex
	conns map[netip.AddrPort]*demuxConn
}

// demuxBacklog bounds the datagrams waiting for one connection's reader,
// like a socket's receive buffer: more are dropped.
const demuxBacklog = 4096

func listenDemux(addr *net.UDPAddr, sockBuf int) (*udpDemux, error) {
	pc, err := net.ListenUDP("udp", addr)
	if err != nil {
		return nil, err
	}
	_ = pc.SetReadBuffer(sockBuf)
	_ = pc.SetWriteBuffer(sockBuf)
	d := &udpDemux{pc: pc, accept: make(chan *demuxConn, 64), done: make(chan struct{}),
		conns: map[netip.AddrPort]*demuxConn{}}
	d.bufs.New = func() any { b := make([]byte, 64<<10); return &b }
	go d.readLoop()
	return d, nil
}

func (d *udpDemux) readLoop() {
	for {
		bp := d.bufs.Get().(*[]byte)
		n, from, err := d.pc.ReadFromUDPAddrPort(*bp)
		if err != nil {
			d.Close()
			d.mu.Lock()
			for _, c := range d.conns {
				c.shut()
			}
			d.mu.Unlock()
			return
		}
		d.mu.Lock()
		c := d.conns[from]
		if c == nil {
			c = &demuxConn{d: d, peer: from, in: make(chan dgram, demuxBacklog), closed: make(chan struct{})}
			select {
			case d.accept <- c:
				d.conns[from] = c
			default:
				c = nil // backlog full: dropped, as a listen queue would
			}
		}
		d.mu.Unlock()
		if c == nil {
			d.bufs.Put(bp)
			continue
		}
		select {
		case c.in <- dgram{bp, n}:
		default:
			d.bufs.Put(bp) // the reader is behind: dropped
		}
	}
}

// Accept returns the connection of the next new remote address.
func (d *udpDemux) Accept() (net.Conn, error) {
	select {
	case c := <-d.accept:
		return c, nil
	case <-d.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and closes the socket.
func (d *udpDemux) Close() error {
	d.once.Do(func() {
		close(d.done)
		d.pc.Close()
	})
	return nil
}

// Addr returns the socket's address.
func (d *udpDemux) Addr() net.Addr { return d.pc.LocalAddr() }

type dgram struct {
	b *[]byte
	n int
}

// demuxConn is the net.Conn of one remote address on a udpDemux.
type demuxConn struct {
	d      *udpDemux
	peer   netip.AddrPort
	in     chan dgram
	closed chan struct{}
	once   sync.Once

	dmu     sync.Mutex
	expired chan struct{} // closed once the read deadline passed; nil: none yet
	gone    bool          // expired is closed
	timer   *time.Timer
}

// Read returns the next datagram from the peer.
func (c *demuxConn) Read(p []byte) (int, error) {
	c.dmu.Lock()
	if c.expired == nil {
		c.expired = make(chan struct{})
	}
	exp := c.expired
	c.dmu.Unlock()
	select {
	case g := <-c.in:
		n := copy(p, (*g.b)[:g.n])
		c.d.bufs.Put(g.b)
		return n, nil
	case <-c.closed:
		return 0, net.ErrClosed
	case <-exp:
		return 0, os.ErrDeadlineExceeded
	}
}

// SetReadDeadline sets the deadline of Read; pion sets it to now to stop
// its reader when it aborts.
func (c *demuxConn) SetReadDeadline(t time.Time) error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.expired == nil || c.gone {
		c.expired, c.gone = make(chan struct{}), false
	}
	if t.IsZero() {
		return nil
	}
	exp := c.expired
	fire := func() {
		c.dmu.Lock()
		if c.expired == exp && !c.gone {
			close(exp)
			c.gone = true
		}
		c.dmu.Unlock()
	}
	if d := time.Until(t); d > 0 {
		c.timer = time.AfterFunc(d, fire)
		return nil
	}
	close(exp)
	c.gone = true
	return nil
}

// Write sends p to the peer.
func (c *demuxConn) Write(p []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	return c.d.pc.WriteToUDPAddrPort(p, c.peer)
}

func (c *demuxConn) shut() { c.once.Do(func() { close(c.closed) }) }

// Close ends the connection; the socket stays with the demultiplexer.
func (c *demuxConn) Close() error {
	c.shut()
	c.d.mu.Lock()
	if c.d.conns[c.peer] == c {
		delete(c.d.conns, c.peer)
	}
	c.d.mu.Unlock()
	return nil
}

// LocalAddr returns the socket's address.
func (c *demuxConn) LocalAddr() net.Addr { return c.d.pc.LocalAddr() }

// RemoteAddr returns the peer's address.
func (c *demuxConn) RemoteAddr() net.Addr { return net.UDPAddrFromAddrPort(c.peer) }

// SetDeadline sets the read deadline (writes never block).
func (c *demuxConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetWriteDeadline does nothing: a UDP write does not block.
func (c *demuxConn) SetWriteDeadline(time.Time) error { return nil }
