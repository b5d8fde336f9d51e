package perf

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// tcpStack is the host kernel's TCP, the reference a user would otherwise
// pick for moving bytes between two hosts: one TCP connection per
// association, each message framed by a 12-byte header (length, stream
// id, PPID), so that the same tests run on it as on the SCTP stacks. The
// frame costs 12 bytes a message (0.02% of a 64 KiB message); TCP_NODELAY
// is on (Go's default), as SCTP sends a message without waiting to bundle
// it. Streams, schedulers and interleaving do not exist in TCP: a test
// that asks for a scheduler, I-DATA or several hosts fails with
// ErrUnsupported, and stream ids are carried only as labels. The transport
// is TCP whatever Config.Transport says.
type tcpStack struct{}

func init() { Register(tcpStack{}) }

func (tcpStack) Name() string    { return "tcp" }
func (tcpStack) InProcess() bool { return false }

// tcpHeader is the length of a message's frame header: the payload's
// length (4 bytes), its stream id (2), 2 bytes of zero and its PPID (4),
// in network byte order.
const tcpHeader = 12

// Check reports whether TCP can run cfg (Checker).
func (tcpStack) Check(cfg *Config) error {
	switch {
	case cfg.Sched != "":
		return fmt.Errorf("tcp: scheduler %q: %w (one byte stream)", cfg.Sched, ErrUnsupported)
	case cfg.Interleave:
		return fmt.Errorf("tcp: interleaving: %w (one byte stream)", ErrUnsupported)
	case len(cfg.Hosts) > 1:
		return fmt.Errorf("tcp: %d hosts: %w (one path per connection)", len(cfg.Hosts), ErrUnsupported)
	}
	return nil
}

func (s tcpStack) Listen(ctx context.Context, addr string, cfg *Config) (Listener, error) {
	if err := s.Check(cfg); err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", err)
	}
	return &tcpListener{ln: ln, cfg: *cfg}, nil
}

type tcpListener struct {
	ln   net.Listener
	cfg  Config
	once sync.Once
}

func (l *tcpListener) Accept(ctx context.Context) (Conn, error) {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	c, err := l.ln.Accept()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return newTCPConn(c.(*net.TCPConn), &l.cfg), nil
}

func (l *tcpListener) Addr() string { return l.ln.Addr().String() }

func (l *tcpListener) Close() error {
	var err error
	l.once.Do(func() { err = l.ln.Close() })
	return err
}

func (s tcpStack) Dial(ctx context.Context, addr string, cfg *Config) (Conn, error) {
	if err := s.Check(cfg); err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", err)
	}
	return newTCPConn(c.(*net.TCPConn), cfg), nil
}

// tcpConn is one framed TCP connection. Send writes a message's header
// and payload with one writev; Recv reads through a buffer as large as
// the largest message, which a message that large bypasses.
type tcpConn struct {
	c    *net.TCPConn
	r    *bufio.Reader
	shdr [tcpHeader]byte
	rhdr [tcpHeader]byte
	bufs net.Buffers
	vec  [2][]byte
}

func newTCPConn(c *net.TCPConn, cfg *Config) *tcpConn {
	if cfg.SndBuf > 0 {
		c.SetWriteBuffer(cfg.SndBuf)
	}
	if cfg.RcvBuf > 0 {
		c.SetReadBuffer(cfg.RcvBuf)
	}
	size := max(cfg.MaxMsg+tcpHeader, 64<<10)
	return &tcpConn{c: c, r: bufio.NewReaderSize(c, size)}
}

func (t *tcpConn) Send(p []byte, sid uint16, ppid uint32) error {
	if uint64(len(p)) > 1<<32-1 {
		return fmt.Errorf("tcp: message of %d bytes: %w", len(p), ErrUnsupported)
	}
	binary.BigEndian.PutUint32(t.shdr[0:], uint32(len(p)))
	binary.BigEndian.PutUint16(t.shdr[4:], sid)
	binary.BigEndian.PutUint32(t.shdr[8:], ppid)
	// WriteTo consumes the slice it is given: rebuild it from the
	// connection's own array each time, so that no message allocates.
	t.vec = [2][]byte{t.shdr[:], p}
	t.bufs = t.vec[:]
	_, err := t.bufs.WriteTo(t.c)
	return err
}

// errTCPFrame is returned by Recv for a frame longer than the buffer it is
// given.
var errTCPFrame = errors.New("tcp: message longer than the receive buffer")

func (t *tcpConn) Recv(p []byte) (int, uint16, uint32, error) {
	if _, err := io.ReadFull(t.r, t.rhdr[:]); err != nil {
		return 0, 0, 0, err
	}
	n := binary.BigEndian.Uint32(t.rhdr[0:])
	sid := binary.BigEndian.Uint16(t.rhdr[4:])
	ppid := binary.BigEndian.Uint32(t.rhdr[8:])
	if uint64(n) > uint64(len(p)) {
		return 0, sid, ppid, fmt.Errorf("%w: %d > %d", errTCPFrame, n, len(p))
	}
	if _, err := io.ReadFull(t.r, p[:n]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, sid, ppid, err
	}
	return int(n), sid, ppid, nil
}

func (t *tcpConn) Close() error { return t.c.Close() }
