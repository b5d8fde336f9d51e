package sctp

import (
	"net"
	"syscall"
	"time"
)

// SCTPSndRcvInfoWrappedConn is a net.Conn whose every Read and Write
// starts with a struct sctp_sndrcvinfo (32 bytes, host byte order)
// describing the message that follows.
type SCTPSndRcvInfoWrappedConn struct {
	conn *SCTPConn
}

// NewSCTPSndRcvInfoWrappedConn wraps conn and subscribes it to
// SCTP_EVENT_DATA_IO (replacing its other subscriptions, as the original
// does).
func NewSCTPSndRcvInfoWrappedConn(conn *SCTPConn) *SCTPSndRcvInfoWrappedConn {
	conn.SubscribeEvents(SCTP_EVENT_DATA_IO)
	return &SCTPSndRcvInfoWrappedConn{conn}
}

// Write sends b[32:] as one message as the SndRcvInfo in b[:32] says; it
// returns the bytes of b consumed.
func (c *SCTPSndRcvInfoWrappedConn) Write(b []byte) (int, error) {
	if len(b) < sndRcvInfoSize {
		return 0, syscall.EINVAL
	}
	n, err := c.conn.SCTPWrite(b[sndRcvInfoSize:], parseSndRcvInfo(b))
	return n + sndRcvInfoSize, err
}

// Read reads a message into b[32:] and its SndRcvInfo into b[:32].
func (c *SCTPSndRcvInfoWrappedConn) Read(b []byte) (int, error) {
	if len(b) < sndRcvInfoSize {
		return 0, syscall.EINVAL
	}
	n, info, err := c.conn.SCTPRead(b[sndRcvInfoSize:])
	if err != nil {
		return n, err
	}
	if info == nil {
		info = &SndRcvInfo{}
	}
	appendSndRcvInfo(b[:0], info)
	return n + sndRcvInfoSize, nil
}

// Close closes the conn.
func (c *SCTPSndRcvInfoWrappedConn) Close() error { return c.conn.Close() }

// LocalAddr is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// RemoteAddr is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) RemoteAddr() net.Addr { return c.conn.RemoteAddr() }

// SetDeadline is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) SetDeadline(t time.Time) error { return c.conn.SetDeadline(t) }

// SetReadDeadline is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) SetReadDeadline(t time.Time) error {
	return c.conn.SetReadDeadline(t)
}

// SetWriteDeadline is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) SetWriteDeadline(t time.Time) error {
	return c.conn.SetWriteDeadline(t)
}

// SetWriteBuffer is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) SetWriteBuffer(bytes int) error {
	return c.conn.SetWriteBuffer(bytes)
}

// GetWriteBuffer is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) GetWriteBuffer() (int, error) { return c.conn.GetWriteBuffer() }

// SetReadBuffer is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) SetReadBuffer(bytes int) error {
	return c.conn.SetReadBuffer(bytes)
}

// GetReadBuffer is the conn's.
func (c *SCTPSndRcvInfoWrappedConn) GetReadBuffer() (int, error) { return c.conn.GetReadBuffer() }
