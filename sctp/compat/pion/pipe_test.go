package sctp_test

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// pipeConn is one end of an in-memory datagram pipe: what one end writes
// the other reads, one packet per read, as over DTLS. It has no
// deadlines (usctp then never lends its socket reader to ReadMsg
// callers), and a full pipe drops packets, as a network does.
type pipeConn struct {
	in, out   chan []byte
	done      chan struct{}
	closeOnce sync.Once
	local     net.Addr     // the addresses it reports; nil: pipeAddr
	remote    net.Addr     //
	largest   atomic.Int64 // the largest packet written
}

// pipe returns the two ends of a new pipe.
func pipe() (*pipeConn, *pipeConn) {
	ab, ba := make(chan []byte, 1024), make(chan []byte, 1024)
	return &pipeConn{in: ba, out: ab, done: make(chan struct{})},
		&pipeConn{in: ab, out: ba, done: make(chan struct{})}
}

var errNoDeadline = errors.New("pipe: no deadlines")

func (c *pipeConn) Read(b []byte) (int, error) {
	select {
	case p := <-c.in:
		return copy(b, p), nil
	case <-c.done:
		return 0, net.ErrClosed
	}
}

func (c *pipeConn) Write(b []byte) (int, error) {
	if n := int64(len(b)); n > c.largest.Load() {
		c.largest.Store(n)
	}
	select {
	case <-c.done:
		return 0, net.ErrClosed
	default:
	}
	select {
	case c.out <- append([]byte(nil), b...):
	default: // full: lost
	}
	return len(b), nil
}

func (c *pipeConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr {
	if c.local != nil {
		return c.local
	}
	return pipeAddr{}
}

func (c *pipeConn) RemoteAddr() net.Addr {
	if c.remote != nil {
		return c.remote
	}
	return pipeAddr{}
}

func (c *pipeConn) SetDeadline(t time.Time) error      { return errNoDeadline }
func (c *pipeConn) SetReadDeadline(t time.Time) error  { return errNoDeadline }
func (c *pipeConn) SetWriteDeadline(t time.Time) error { return errNoDeadline }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
