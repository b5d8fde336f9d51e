package perf

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/pion/logging"
	pion "github.com/pion/sctp"
)

// pionStack runs github.com/pion/sctp over UDP sockets on loopback or a
// real network: each association has its own UDP socket on the client and
// a demultiplexed UDP "connection" on the server (udpDemux), which is how
// pion/webrtc carries it.
type pionStack struct {
	name  string
	tuned bool
}

func init() {
	Register(&pionStack{name: "pion"})
	Register(&pionStack{name: "pion-tuned", tuned: true})
}

func (s *pionStack) Name() string    { return s.name }
func (s *pionStack) InProcess() bool { return true }

const (
	pionDefaultSndBuf = 1 << 20 // pion queues without bound; perf caps the queue here
	pionTunedBuf      = 4 << 20
	pionTunedMTU      = 1452 // 1500-byte Ethernet path less IPv4 and UDP headers
	// pionSocketBuf is the kernel socket buffer each way of pion's UDP
	// sockets, as usctp sizes its own: with the host's default the
	// sockets overflow at benchmark rates and the run measures T3
	// timeouts rather than pion.
	pionSocketBuf = 4 << 20
)

func (s *pionStack) options(cfg *Config, conn net.Conn) ([]pion.AssociationOption, int, error) {
	if cfg.Transport != "" && cfg.Transport != "udp" {
		return nil, 0, fmt.Errorf("pion: transport %q: %w (pion runs over UDP only)", cfg.Transport, ErrUnsupported)
	}
	opts := []pion.AssociationOption{
		pion.WithNetConn(conn),
		pion.WithLoggerFactory(quietLogger{}),
		pion.WithEnableInterleaving(cfg.Interleave),
	}
	sndbuf := pionDefaultSndBuf
	if s.tuned {
		opts = append(opts, pion.WithMTU(pionTunedMTU), pion.WithMaxReceiveBufferSize(pionTunedBuf))
		sndbuf = pionTunedBuf
	}
	if cfg.RcvBuf > 0 {
		opts = append(opts, pion.WithMaxReceiveBufferSize(uint32(cfg.RcvBuf)))
	}
	if cfg.SndBuf > 0 {
		sndbuf = cfg.SndBuf
	}
	if cfg.MaxMsg > 65536 {
		opts = append(opts, pion.WithMaxMessageSize(uint32(cfg.MaxMsg)))
	}
	var il []pion.AssociationInterleavingOption
	switch cfg.Sched {
	case "":
	case "rr":
		il = append(il, pion.WithInterleavingRoundRobinScheduler())
	case "wfq":
		il = append(il, pion.WithInterleavingWeightedFairQueueingScheduler())
		for i, w := range cfg.Weights {
			il = append(il, pion.WithInterleavingWeightedFairQueueingWeight(uint16(i), w))
		}
	default:
		return nil, 0, fmt.Errorf("pion: scheduler %q: %w (pion has rr and wfq, with interleaving)", cfg.Sched, ErrUnsupported)
	}
	if len(il) > 0 {
		opts = append(opts, pion.WithInterleavingOptions(il...))
	}
	return opts, sndbuf, nil
}

func (s *pionStack) Listen(ctx context.Context, addr string, cfg *Config) (Listener, error) {
	if _, _, err := s.options(cfg, nil); err != nil {
		return nil, err
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	ln, err := listenDemux(ua, pionSocketBuf)
	if err != nil {
		return nil, err
	}
	l := &pionListener{s: s, cfg: *cfg, ln: ln, ready: make(chan pionAccepted, 64), done: make(chan struct{})}
	go l.acceptLoop()
	return l, nil
}

type pionAccepted struct {
	c   Conn
	err error
}

type pionListener struct {
	s     *pionStack
	cfg   Config
	ln    net.Listener
	ready chan pionAccepted
	done  chan struct{}
	once  sync.Once
}

// acceptLoop runs each server handshake on its own goroutine so that many
// associations can come up at once.
func (l *pionListener) acceptLoop() {
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			select {
			case l.ready <- pionAccepted{err: err}:
			case <-l.done:
			}
			return
		}
		go func() {
			opts, sndbuf, _ := l.s.options(&l.cfg, nc)
			so := make([]pion.ServerOption, len(opts))
			for i, o := range opts {
				so[i] = o
			}
			a, err := pion.ServerWithOptions(so...)
			if err != nil {
				nc.Close()
				return
			}
			c := newPionConn(a, &l.cfg, sndbuf)
			select {
			case l.ready <- pionAccepted{c: c}:
			case <-l.done:
				c.Close()
			}
		}()
	}
}

func (l *pionListener) Accept(ctx context.Context) (Conn, error) {
	select {
	case r := <-l.ready:
		return r.c, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pionListener) Addr() string { return l.ln.Addr().String() }

func (l *pionListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.ln.Close()
}

func (s *pionStack) Dial(ctx context.Context, addr string, cfg *Config) (Conn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	uc, err := net.DialUDP("udp", nil, ua)
	if err != nil {
		return nil, err
	}
	_ = uc.SetReadBuffer(pionSocketBuf)
	_ = uc.SetWriteBuffer(pionSocketBuf)
	opts, sndbuf, err := s.options(cfg, uc)
	if err != nil {
		uc.Close()
		return nil, err
	}
	co := make([]pion.ClientOption, len(opts))
	for i, o := range opts {
		co[i] = o
	}
	a, err := pion.ClientContext(ctx, co...)
	if err != nil {
		uc.Close()
		return nil, fmt.Errorf("pion: dial %s: %w", addr, err)
	}
	return newPionConn(a, cfg, sndbuf), nil
}

// pionConn adapts a pion Association, whose streams are separate objects
// each read by its own blocking call, to Conn. With one stream it reads
// that stream directly; with more it runs a reader goroutine per stream in
// use (pion's model) that hands messages over a channel.
type pionConn struct {
	a      *pion.Association
	sndbuf int
	multi  bool

	mu      sync.Mutex
	streams map[uint16]*pion.Stream
	single  *pion.Stream

	writable chan struct{} // a stream's buffered amount fell below the threshold
	msgs     chan pionMsg  // multi: messages from the stream readers
	closed   chan struct{}
	once     sync.Once
	bufSize  int
	poll     *time.Timer // Send's poll for queue space (one sender at a time)
}

type pionMsg struct {
	sid  uint16
	ppid uint32
	b    []byte
	err  error
	done chan struct{} // the reader may reuse b once this is signalled
}

func newPionConn(a *pion.Association, cfg *Config, sndbuf int) *pionConn {
	c := &pionConn{
		a:        a,
		sndbuf:   sndbuf,
		multi:    cfg.Streams > 1,
		streams:  map[uint16]*pion.Stream{},
		writable: make(chan struct{}, 1),
		closed:   make(chan struct{}),
		bufSize:  max(cfg.MaxMsg, 1),
	}
	if c.multi {
		c.msgs = make(chan pionMsg, 64)
		go c.acceptStreams()
	}
	return c
}

func (c *pionConn) acceptStreams() {
	for {
		st, err := c.a.AcceptStream()
		if err != nil {
			select {
			case c.msgs <- pionMsg{err: err}:
			case <-c.closed:
			}
			return
		}
		c.mu.Lock()
		if _, ok := c.streams[st.StreamIdentifier()]; !ok {
			c.addLocked(st)
		}
		c.mu.Unlock()
	}
}

// addLocked records a stream and arranges its flow control and reader.
func (c *pionConn) addLocked(st *pion.Stream) {
	c.streams[st.StreamIdentifier()] = st
	st.SetBufferedAmountLowThreshold(uint64(c.sndbuf / 2))
	st.OnBufferedAmountLow(func() {
		select {
		case c.writable <- struct{}{}:
		default:
		}
	})
	if c.multi {
		go c.readStream(st)
	}
}

func (c *pionConn) readStream(st *pion.Stream) {
	buf := make([]byte, c.bufSize)
	done := make(chan struct{})
	for {
		n, ppi, err := st.ReadSCTP(buf)
		m := pionMsg{sid: st.StreamIdentifier(), ppid: uint32(ppi), b: buf[:n], err: err, done: done}
		select {
		case c.msgs <- m:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
		select {
		case <-done:
		case <-c.closed:
			return
		}
	}
}

func (c *pionConn) stream(sid uint16) (*pion.Stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.streams[sid]; ok {
		return st, nil
	}
	st, err := c.a.OpenStream(sid, pion.PayloadTypeWebRTCBinary)
	if err != nil {
		return nil, err
	}
	c.addLocked(st)
	if !c.multi && c.single == nil {
		c.single = st
	}
	return st, nil
}

func (c *pionConn) Send(p []byte, sid uint16, ppid uint32) error {
	st, err := c.stream(sid)
	if err != nil {
		return err
	}
	// pion signals per stream when its queue falls below a threshold; with
	// many streams no single stream may cross it, so poll as well.
	for c.a.BufferedAmount() >= c.sndbuf {
		if c.poll == nil {
			c.poll = time.NewTimer(time.Millisecond)
		} else {
			c.poll.Reset(time.Millisecond)
		}
		select {
		case <-c.writable:
		case <-c.poll.C:
		case <-c.closed:
			return net.ErrClosed
		}
	}
	_, err = st.WriteSCTP(p, pion.PayloadProtocolIdentifier(ppid))
	return err
}

func (c *pionConn) Recv(p []byte) (int, uint16, uint32, error) {
	if c.multi {
		select {
		case m := <-c.msgs:
			if m.err != nil {
				return 0, m.sid, 0, m.err
			}
			n := copy(p, m.b)
			m.done <- struct{}{}
			return n, m.sid, m.ppid, nil
		case <-c.closed:
			return 0, 0, 0, net.ErrClosed
		}
	}
	c.mu.Lock()
	st := c.single
	c.mu.Unlock()
	if st == nil {
		var err error
		if st, err = c.a.AcceptStream(); err != nil {
			return 0, 0, 0, err
		}
		c.mu.Lock()
		if c.single == nil {
			c.single = st
			c.addLocked(st)
		} else {
			st = c.single
		}
		c.mu.Unlock()
	}
	n, ppi, err := st.ReadSCTP(p)
	return n, st.StreamIdentifier(), uint32(ppi), err
}

func (c *pionConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.a.Close()
		c.mu.Lock()
		for _, st := range c.streams {
			st.SetReadDeadline(time.Now()) // wake blocked readers
		}
		c.mu.Unlock()
		if errors.Is(err, pion.ErrAssociationClosed) {
			err = nil
		}
	})
	return err
}

// quietLogger silences pion's logging.
type quietLogger struct{}

func (quietLogger) NewLogger(string) logging.LeveledLogger { return quietLog{} }

type quietLog struct{}

func (quietLog) Trace(string)          {}
func (quietLog) Tracef(string, ...any) {}
func (quietLog) Debug(string)          {}
func (quietLog) Debugf(string, ...any) {}
func (quietLog) Info(string)           {}
func (quietLog) Infof(string, ...any)  {}
func (quietLog) Warn(string)           {}
func (quietLog) Warnf(string, ...any)  {}
func (quietLog) Error(string)          {}
func (quietLog) Errorf(string, ...any) {}

// StatsLine summarizes what pion exports about the association.
func (c *pionConn) StatsLine() string {
	return fmt.Sprintf("bytes sent %d received %d; SRTT %.3fms cwnd %d rwnd %d mtu %d",
		c.a.BytesSent(), c.a.BytesReceived(), c.a.SRTT(), c.a.CWND(), c.a.RWND(), c.a.MTU())
}
