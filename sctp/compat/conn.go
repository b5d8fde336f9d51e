package sctp

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// SCTPConn is one association, as a one-to-one (SOCK_STREAM) SCTP socket
// holds it: messages are read and written with their SndRcvInfo, and the
// notifications the program subscribed to are read in the same stream.
type SCTPConn struct {
	as      *usctp.Association // nil: NewSCTPConn's, which has no association
	ep      *usctp.Endpoint    // closed with the conn: its own endpoint (a local address was given)
	ln      *SCTPListener      // the listener that accepted it
	id      SCTPAssocID
	handler NotificationHandler

	mu          sync.Mutex
	events      int        // the SubscribeEvents flags
	defSent     SndRcvInfo // SetDefaultSentParam's
	init        InitMsg
	notes       [][]byte  // notifications not yet read
	readDL      time.Time // the program's read deadline
	reading     bool      // an SCTPRead waits in ReadMsg
	interrupted bool      // a notification cut that wait short
	shutSeen    bool      // the SCTP_SHUTDOWN_EVENT was queued
	shutSent    bool      // this side began the shutdown (SCTP_EOF, Close)
	closed      bool

	pumpDone chan struct{} // closed when the association's events have all been taken
}

var lastAssocID atomic.Int32

// newConn wraps as and starts taking its events.
func newConn(as *usctp.Association, ep *usctp.Endpoint, handler NotificationHandler, init InitMsg) *SCTPConn {
	c := &SCTPConn{as: as, ep: ep, id: SCTPAssocID(lastAssocID.Add(1)), handler: handler, init: init,
		pumpDone: make(chan struct{})}
	go c.pump()
	return c
}

// pump turns the association's events into the notifications the
// program subscribed to, in the layout of <linux/sctp.h>, and interrupts
// a waiting read to deliver them.
func (c *SCTPConn) pump() {
	defer close(c.pumpDone)
	first := true
	for ev := range c.as.Events() {
		if first && ev.Kind == usctp.EventUp {
			// The handshake's COMM_UP: the kernel queues it when the
			// association is established, before DialSCTP or Accept
			// returns a socket the program could subscribe on.
			first = false
			continue
		}
		first = false
		c.mu.Lock()
		if ev.Kind == usctp.EventShutdown && !c.shutSeen && !c.shutSent {
			// The peer's SHUTDOWN came first (RFC 6458 section 6.1.5).
			c.shutSeen = true
			if c.events&SCTP_EVENT_SHUTDOWN != 0 {
				c.notes = append(c.notes, shutdownEvent(c.id))
			}
		}
		n := c.notification(&ev)
		if n != nil {
			c.notes = append(c.notes, n)
			if c.reading && !c.interrupted {
				c.interrupted = true
				c.as.SetReadDeadline(time.Unix(1, 0))
			}
		}
		c.mu.Unlock()
	}
}

// errNoAssoc is the error of the calls of a conn made by NewSCTPConn.
var errNoAssoc = ErrUnsupported

// Read reads the next message (or part of it); notifications are read as
// SCTPRead says.
func (c *SCTPConn) Read(b []byte) (int, error) {
	n, _, err := c.SCTPRead(b)
	return n, err
}

// Write sends b as one message with the default send parameters
// (SetDefaultSentParam).
func (c *SCTPConn) Write(b []byte) (int, error) { return c.SCTPWrite(b, nil) }

// SCTPRead reads the next message into b (the rest of it by the next
// calls when it does not fit) and how it was received: the SndRcvInfo is
// returned when SCTP_EVENT_DATA_IO is subscribed, nil otherwise, as the
// kernel adds it only then. A notification the program subscribed to is
// passed to the NotificationHandler when there is one and the read goes
// on, else it is returned as the data read, with a nil SndRcvInfo. After
// the peer shut the association down, it returns io.EOF; so does a read
// that waits when the conn is closed (later reads return EBADF).
func (c *SCTPConn) SCTPRead(b []byte) (int, *SndRcvInfo, error) {
	if c.as == nil {
		return 0, nil, errNoAssoc
	}
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, nil, syscall.EBADF
		}
		if len(c.notes) > 0 {
			// Data that arrived before the notification is read first, as
			// from the kernel's socket queue: the association is asked
			// for what it holds (a read that waits a microsecond).
			c.as.SetReadDeadline(time.Now().Add(time.Microsecond))
			n, ri, err := c.as.ReadMsg(b)
			c.as.SetReadDeadline(c.readDL)
			if err == nil {
				events := c.events
				c.mu.Unlock()
				return n, c.info(ri, events), nil
			}
			note := c.notes[0]
			c.notes[0] = nil
			c.notes = c.notes[1:]
			c.mu.Unlock()
			if c.handler != nil {
				if err := c.handler(note); err != nil {
					return 0, nil, err
				}
				continue
			}
			return copy(b, note), nil, nil
		}
		c.reading, c.interrupted = true, false
		events := c.events
		c.mu.Unlock()
		n, ri, err := c.as.ReadMsg(b)
		c.mu.Lock()
		c.reading = false
		intr, closed := c.interrupted, c.closed
		if intr {
			c.interrupted = false
			c.as.SetReadDeadline(c.readDL)
		}
		c.mu.Unlock()
		if err != nil {
			if closed {
				// Close ended the wait. The original's Close shuts the
				// socket down (SHUT_RDWR), which wakes a blocked recvmsg
				// with 0 bytes: the end of the stream.
				return 0, nil, io.EOF
			}
			if intr && errors.Is(err, os.ErrDeadlineExceeded) {
				continue // a notification to deliver
			}
			if errors.Is(err, io.EOF) && c.endNotes() {
				continue
			}
			return n, nil, err
		}
		return n, c.info(ri, events), nil
	}
}

// info is the SndRcvInfo of a message received, nil without
// SCTP_EVENT_DATA_IO in events.
func (c *SCTPConn) info(ri usctp.RecvInfo, events int) *SndRcvInfo {
	if events&SCTP_EVENT_DATA_IO == 0 {
		return nil
	}
	info := &SndRcvInfo{Stream: ri.Stream, SSN: ri.SSN, PPID: ri.PPID, TSN: ri.TSN, CumTSN: ri.TSN, AssocID: int32(c.id)}
	if ri.Unordered {
		info.Flags |= SCTP_UNORDERED
	}
	return info
}

// endNotes queues, once the peer shut the association down, the
// notifications the kernel gives before the end of the stream: the
// SCTP_SHUTDOWN_EVENT, and those of the association's end (it waits for
// that, at most 2 s). It reports whether there are some to read.
func (c *SCTPConn) endNotes() bool {
	c.mu.Lock()
	if !c.shutSeen {
		c.shutSeen = true
		if c.events&SCTP_EVENT_SHUTDOWN != 0 {
			c.notes = append(c.notes, shutdownEvent(c.id))
		}
		c.mu.Unlock()
		t := time.NewTimer(2 * time.Second)
		select {
		case <-c.pumpDone:
		case <-t.C:
		}
		t.Stop()
		c.mu.Lock()
	}
	have := len(c.notes) > 0
	c.mu.Unlock()
	return have
}

// SCTPWrite sends b as one message as info says (nil: the default send
// parameters): Stream, PPID, TTL in milliseconds (timed reliability,
// PR-SCTP) and Flags SCTP_UNORDERED; SCTP_EOF shuts the association down
// gracefully after b, SCTP_ABORT aborts it with b as the reason.
func (c *SCTPConn) SCTPWrite(b []byte, info *SndRcvInfo) (int, error) {
	if c.as == nil {
		return 0, errNoAssoc
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0, syscall.EBADF
	}
	si := c.defSent
	c.mu.Unlock()
	if info != nil {
		si = *info
	}
	if si.Flags&SCTP_ABORT != 0 {
		return 0, c.as.Abort(string(b))
	}
	n := 0
	if len(b) > 0 || si.Flags&SCTP_EOF == 0 {
		send := usctp.SendInfo{Stream: si.Stream, PPID: si.PPID, Unordered: si.Flags&SCTP_UNORDERED != 0}
		if si.TTL > 0 {
			send.PR = usctp.Lifetime(time.Duration(si.TTL) * time.Millisecond)
		}
		var err error
		if n, err = c.as.WriteMsg(b, send); err != nil {
			return n, err
		}
	}
	if si.Flags&SCTP_EOF != 0 {
		c.mu.Lock()
		c.shutSent = true
		c.mu.Unlock()
		go c.as.Shutdown(context.Background())
	}
	return n, nil
}

// Close shuts the association down gracefully (SCTP_EOF), waiting at most
// 5 s for the peer, then aborts it; a second Close returns EBADF. The
// kernel's close returns at once and finishes the shutdown after the
// process exits; a userspace stack cannot outlive its process, so Close
// waits for the handshake (one round trip with a live peer) and a program
// that exits after Close still ends its associations cleanly.
func (c *SCTPConn) Close() error {
	if c == nil || c.as == nil {
		return syscall.EBADF
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return syscall.EBADF
	}
	c.closed = true
	c.shutSent = true
	c.mu.Unlock()
	err := c.as.Close()
	if c.ep != nil {
		c.ep.Close()
	}
	if c.ln != nil {
		c.ln.connClosed()
	}
	return err
}

// SetInitMsg sets the streams and INIT retransmissions; on an
// established association, as on a connected kernel socket, it changes
// nothing of it.
func (c *SCTPConn) SetInitMsg(numOstreams, maxInstreams, maxAttempts, maxInitTimeout int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init = InitMsg{NumOstreams: uint16(numOstreams), MaxInstreams: uint16(maxInstreams),
		MaxAttempts: uint16(maxAttempts), MaxInitTimeout: uint16(maxInitTimeout)}
	return nil
}

// SubscribeEvents sets the notifications read from the connection from
// now on (SCTP_EVENT_* flags; SCTP_EVENT_DATA_IO adds the SndRcvInfo to
// SCTPRead's result).
func (c *SCTPConn) SubscribeEvents(flags int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = flags & SCTP_EVENT_ALL
	return nil
}

// SubscribedEvents returns the SubscribeEvents flags.
func (c *SCTPConn) SubscribedEvents() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.events, nil
}

// SetDefaultSentParam sets how Write (and SCTPWrite with a nil info)
// sends: Stream, PPID, Flags, TTL.
func (c *SCTPConn) SetDefaultSentParam(info *SndRcvInfo) error {
	if info == nil {
		return syscall.EINVAL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.defSent = *info
	return nil
}

// GetDefaultSentParam returns SetDefaultSentParam's parameters.
func (c *SCTPConn) GetDefaultSentParam() (*SndRcvInfo, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	info := c.defSent
	info.AssocID = int32(c.id)
	return &info, nil
}

// GetStatus returns the association's state (SCTP_STATUS).
func (c *SCTPConn) GetStatus() (*Status, error) {
	if c.as == nil {
		return nil, errNoAssoc
	}
	st := c.as.Stats()
	out, in := c.as.Streams()
	s := &Status{AssocID: c.id, State: SCTP_ESTABLISHED, Unackdata: uint16(min(st.Unacked, 0xffff)),
		Penddata: uint16(min(st.RecvBuffered, 0xffff)), Instreams: in, Ostreams: out}
	select {
	case <-c.as.Done():
		s.State = SCTP_CLOSED
	default:
	}
	for _, p := range c.as.Paths() {
		if !p.Primary {
			continue
		}
		s.FragmentationPoint = uint32(max(p.MTU-12-16, 0)) // common header, DATA chunk header
		s.PrimaryPeerAddr = peerAddrinfo(c.id, p)
	}
	return s, nil
}

// peerAddrinfo converts a path of package usctp.
func peerAddrinfo(id SCTPAssocID, p usctp.PathInfo) PeerAddrinfo {
	pi := PeerAddrinfo{AssocID: id, CWND: uint32(p.Cwnd), SRTT: uint32(p.SRTT.Milliseconds()),
		RTO: uint32(p.RTO.Milliseconds()), MTU: uint32(p.MTU)}
	copy(pi.Address[:], appendSockaddr(nil, net.IPAddr{IP: net.IP(p.Addr.IP.Unmap().AsSlice()), Zone: p.Addr.IP.Zone()}, p.Addr.Port))
	switch p.State {
	case usctp.PathUnconfirmed:
		pi.State = SCTP_UNCONFIRMED
	case usctp.PathInactive:
		pi.State = SCTP_INACTIVE
	default:
		pi.State = SCTP_ACTIVE
	}
	return pi
}

// SCTPGetPrimaryPeerAddr returns the peer's primary address.
func (c *SCTPConn) SCTPGetPrimaryPeerAddr() (*SCTPAddr, error) {
	if c.as == nil {
		return nil, errNoAssoc
	}
	for _, p := range c.as.Paths() {
		if p.Primary {
			return fromAddrs([]usctp.Addr{p.Addr}), nil
		}
	}
	return nil, syscall.ENOTCONN
}

// SCTPLocalAddr returns the association's local addresses; id is 0 or
// the association's (SndRcvInfo.AssocID).
func (c *SCTPConn) SCTPLocalAddr(id int) (*SCTPAddr, error) {
	if c.as == nil {
		return nil, errNoAssoc
	}
	if id != 0 && id != int(c.id) {
		return nil, syscall.EINVAL
	}
	return fromAddrs(c.as.LocalAddrs()), nil
}

// SCTPRemoteAddr returns the peer's addresses; id is 0 or the
// association's.
func (c *SCTPConn) SCTPRemoteAddr(id int) (*SCTPAddr, error) {
	if c.as == nil {
		return nil, errNoAssoc
	}
	if id != 0 && id != int(c.id) {
		return nil, syscall.EINVAL
	}
	return fromAddrs(c.as.RemoteAddrs()), nil
}

// LocalAddr returns the local addresses (an *SCTPAddr).
func (c *SCTPConn) LocalAddr() net.Addr {
	a, err := c.SCTPLocalAddr(0)
	if err != nil {
		return nil
	}
	return a
}

// RemoteAddr returns the peer's addresses (an *SCTPAddr).
func (c *SCTPConn) RemoteAddr() net.Addr {
	a, err := c.SCTPRemoteAddr(0)
	if err != nil {
		return nil
	}
	return a
}

// SetDeadline sets the read and write deadlines (net.Conn's meaning; the
// kernel-backed original returns EOPNOTSUPP).
func (c *SCTPConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// SetReadDeadline sets the deadline of SCTPRead and Read.
func (c *SCTPConn) SetReadDeadline(t time.Time) error {
	if c.as == nil {
		return errNoAssoc
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDL = t
	if c.interrupted {
		return nil // set again when the interrupted read returns
	}
	return c.as.SetReadDeadline(t)
}

// SetWriteDeadline sets the deadline of SCTPWrite and Write.
func (c *SCTPConn) SetWriteDeadline(t time.Time) error {
	if c.as == nil {
		return errNoAssoc
	}
	return c.as.SetWriteDeadline(t)
}

// SetReadBuffer fails with ErrUnsupported: an association's receive
// window is fixed when it is created.
func (c *SCTPConn) SetReadBuffer(bytes int) error { return ErrUnsupported }

// GetReadBuffer returns the receive window each association advertises.
func (c *SCTPConn) GetReadBuffer() (int, error) { return defaultBuffer, nil }

// SetWriteBuffer fails with ErrUnsupported: an association's send buffer
// is fixed when it is created.
func (c *SCTPConn) SetWriteBuffer(bytes int) error { return ErrUnsupported }

// GetWriteBuffer returns the send buffer of each association.
func (c *SCTPConn) GetWriteBuffer() (int, error) { return defaultBuffer, nil }

// defaultBuffer is package usctp's default send buffer and receive window.
const defaultBuffer = 1 << 20

// SetSackTimer sets the association's delayed SACK, as SCTP_DELAYED_SACK
// does: SackDelay in milliseconds (at most 500; 0 turns delayed SACK
// off) and SackFrequency, the packets acknowledged at once (0 keeps the
// current one, 1 turns delayed SACK off).
func (c *SCTPConn) SetSackTimer(timer *SackTimer) error {
	if c.as == nil {
		return errNoAssoc
	}
	if timer == nil || timer.SackDelay > 500 {
		return optErr("SCTP_DELAYED_SACK", syscall.EINVAL, "SackDelay over 500 ms")
	}
	return c.as.SetDelayedSACK(time.Duration(timer.SackDelay)*time.Millisecond, int(timer.SackFrequency))
}

// GetSackTimer returns the association's delayed SACK: the delay in
// milliseconds and the packets acknowledged at once (1: delayed SACK off).
func (c *SCTPConn) GetSackTimer() (*SackTimer, error) {
	if c.as == nil {
		return nil, errNoAssoc
	}
	d, f, err := c.as.DelayedSACK()
	if err != nil {
		return nil, err
	}
	return &SackTimer{AssocID: c.id, SackDelay: uint32(d / time.Millisecond), SackFrequency: uint32(f)}, nil
}

// Getsockopt fails with ErrUnsupported: there is no kernel socket. The
// options are not interpreted either: optval is a pointer passed as a
// uintptr, which only a system call may turn back into memory safely (a
// goroutine's stack moves). SCTP_STATUS, SCTP_PRIMARY_ADDR,
// SCTP_GET_PEER_ADDR_INFO, SCTP_PEER_ADDR_PARAMS and SCTP_PEER_ADDR_THLDS
// have methods: GetStatus, SCTPGetPrimaryPeerAddr, GetPeerAddrInfo,
// GetPeerAddrParams, GetPeerAddrThlds.
func (c *SCTPConn) Getsockopt(optname, optval, optlen uintptr) (uintptr, uintptr, error) {
	return 0, 0, ErrUnsupported
}

// Setsockopt fails with ErrUnsupported: there is no kernel socket, and
// optval is not interpreted (see Getsockopt). SCTP_PRIMARY_ADDR,
// SCTP_PEER_ADDR_PARAMS, SCTP_PEER_ADDR_THLDS and SCTP_DELAYED_SACK have
// methods: SCTPSetPrimaryPeerAddr, SetPeerAddrParams, SetPeerAddrThlds,
// SetSackTimer. SCTP_NODELAY succeeds: usctp never holds a message back
// to bundle it with later ones, which is what SCTP_NODELAY asks for.
func (c *SCTPConn) Setsockopt(optname, optval, optlen uintptr) (uintptr, uintptr, error) {
	if optname == SCTP_NODELAY {
		return 0, 0, nil
	}
	return 0, 0, ErrUnsupported
}

// SyscallConn fails with ErrUnsupported: there is no file descriptor.
func (c *SCTPConn) SyscallConn() (syscall.RawConn, error) { return nil, ErrUnsupported }

// PeelOff fails with ErrUnsupported: an SCTPConn holds one association
// already.
func (c *SCTPConn) PeelOff(id int) (*SCTPConn, error) { return nil, ErrUnsupported }

// NewSCTPConn would wrap a kernel socket: there is none here, so every
// call of the conn it returns fails with ErrUnsupported.
func NewSCTPConn(fd int, handler NotificationHandler) *SCTPConn {
	return &SCTPConn{handler: handler}
}
