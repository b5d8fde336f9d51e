package sctp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestResolveSCTPAddr(t *testing.T) {
	for _, c := range []struct {
		network, in string
		ips         []string
		port        int
		str         string
	}{
		{"sctp", "10.0.0.1/10.0.0.2:38412", []string{"10.0.0.1", "10.0.0.2"}, 38412, "10.0.0.1/10.0.0.2:38412"},
		{"sctp", "127.0.0.1:5000", []string{"127.0.0.1"}, 5000, "127.0.0.1:5000"},
		{"sctp6", "[::1]/[fe80::1%lo]:9", []string{"::1", "fe80::1"}, 9, "[::1]/[fe80::1%lo]:9"},
		{"sctp4", ":38412", nil, 38412, ":38412"},
		{"", "0.0.0.0:0", []string{"0.0.0.0"}, 0, "0.0.0.0:0"},
	} {
		a, err := ResolveSCTPAddr(c.network, c.in)
		if err != nil {
			t.Fatalf("%s %q: %v", c.network, c.in, err)
		}
		if a.Port != c.port || len(a.IPAddrs) != len(c.ips) || a.String() != c.str || a.Network() != "sctp" {
			t.Fatalf("%q: %+v %q", c.in, a, a.String())
		}
		for i, ip := range c.ips {
			if !a.IPAddrs[i].IP.Equal(net.ParseIP(ip)) {
				t.Fatalf("%q: address %d is %v", c.in, i, a.IPAddrs[i])
			}
		}
	}
	for _, c := range [][2]string{{"tcp", "1.2.3.4:5"}, {"sctp", "1.2.3.4"}, {"sctp4", "[::1]:5"}, {"sctp", "x/1.2.3.4:5:6"}} {
		if _, err := ResolveSCTPAddr(c[0], c[1]); err == nil {
			t.Fatalf("%s %q resolved", c[0], c[1])
		}
	}
}

// TestToRawSockAddrBuf: Linux's struct sockaddr_in and sockaddr_in6,
// packed, as sctp_bindx takes them.
func TestToRawSockAddrBuf(t *testing.T) {
	a, _ := ResolveSCTPAddr("sctp", "10.0.0.1/[2001:db8::1]:38412")
	b := a.ToRawSockAddrBuf()
	if len(b) != 16+28 {
		t.Fatalf("%d bytes", len(b))
	}
	if binary.NativeEndian.Uint16(b) != 2 || binary.BigEndian.Uint16(b[2:]) != 38412 || !bytes.Equal(b[4:8], []byte{10, 0, 0, 1}) {
		t.Fatalf("sockaddr_in % x", b[:16])
	}
	v6 := b[16:]
	if binary.NativeEndian.Uint16(v6) != 10 || binary.BigEndian.Uint16(v6[2:]) != 38412 || !net.IP(v6[8:24]).Equal(net.ParseIP("2001:db8::1")) {
		t.Fatalf("sockaddr_in6 % x", v6)
	}
	if b := (&SCTPAddr{Port: 7}).ToRawSockAddrBuf(); len(b) != 16 || binary.BigEndian.Uint16(b[2:]) != 7 {
		t.Fatalf("no address: % x", b)
	}
}

// TestConstants: the values of <linux/sctp.h> that programs compare with
// what they read.
func TestConstants(t *testing.T) {
	for _, c := range []struct {
		got, want int
	}{
		{int(SCTP_SN_TYPE_BASE), 0x8000}, {int(SCTP_ASSOC_CHANGE), 0x8001}, {int(SCTP_PEER_ADDR_CHANGE), 0x8002},
		{int(SCTP_SEND_FAILED), 0x8003}, {int(SCTP_REMOTE_ERROR), 0x8004}, {int(SCTP_SHUTDOWN_EVENT), 0x8005},
		{int(SCTP_PARTIAL_DELIVERY_EVENT), 0x8006}, {int(SCTP_ADAPTATION_INDICATION), 0x8007},
		{int(SCTP_AUTHENTICATION_INDICATION), 0x8008}, {int(SCTP_SENDER_DRY_EVENT), 0x8009},
		{SCTP_UNORDERED, 1}, {SCTP_ADDR_OVER, 2}, {SCTP_ABORT, 4}, {SCTP_SACK_IMMEDIATELY, 8}, {SCTP_EOF, 16},
		{int(SCTP_COMM_UP), 0}, {int(SCTP_COMM_LOST), 1}, {int(SCTP_RESTART), 2}, {int(SCTP_SHUTDOWN_COMP), 3},
		{int(SCTP_CANT_STR_ASSOC), 4}, {SCTP_EVENTS, 11}, {SCTP_STATUS, 14}, {SCTP_INITMSG, 2},
		{SCTP_DEFAULT_SENT_PARAM, 10}, {SCTP_DELAYED_SACK, 16}, {SCTP_GET_LOCAL_ADDRS, 109}, {SOL_SCTP, 132},
		{MSG_NOTIFICATION, 0x8000}, {SCTP_EVENT_ALL, 0x3ff}, {SCTP_MAX_STREAM, 65535}, {SCTP_CMSG_SNDRCV, 1},
		{int(SCTP_ESTABLISHED), 5}, {int(SCTP_INACTIVE), 2}, {SCTP_BINDX_REM_ADDR, 2}, {SCTP_SOCKOPT_CONNECTX3, 111},
	} {
		if c.got != c.want {
			t.Errorf("constant %#x, want %#x", c.got, c.want)
		}
	}
	if binary.Size(SndRcvInfo{}) != 32 || binary.Size(NotificationHeader{}) != 8 || binary.Size(InitMsg{}) != 8 ||
		binary.Size(EventSubscribe{}) != 10 || binary.Size(SndInfo{}) != 16 || binary.Size(SackTimer{}) != 12 {
		t.Fatal("a struct's size differs from the kernel's")
	}
	var s Status
	s.PrimaryPeerAddr = PeerAddrinfo{}
	_ = GetAddrsOld{}
}

// TestUnsupported: what needs a kernel socket fails with ErrUnsupported.
func TestUnsupported(t *testing.T) {
	ln := listenLoop(t, nil)
	go func() {
		if c, err := ln.Accept(); err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrUnsupported) || !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", what, err)
		}
	}
	_, _, err = c.Getsockopt(SCTP_STATUS, 0, 0)
	check("Getsockopt", err)
	_, _, err = c.Setsockopt(SCTP_EVENTS, 0, 0)
	check("Setsockopt", err)
	_, err = c.SyscallConn()
	check("SyscallConn", err)
	_, err = c.PeelOff(1)
	check("PeelOff", err)
	check("SetReadBuffer", c.SetReadBuffer(1<<16))
	check("SetWriteBuffer", c.SetWriteBuffer(1<<16))
	_, err = ln.SyscallConn()
	check("SCTPListener.SyscallConn", err)
	_, err = FileListener(os.Stdin)
	check("FileListener", err)
	check("SCTPBind", SCTPBind(3, loopAddr(1), SCTP_BINDX_ADD_ADDR))
	if err := SCTPBind(3, loopAddr(1), 7); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("SCTPBind with bad flags: %v", err)
	}
	_, err = SCTPConnect(3, loopAddr(1))
	check("SCTPConnect", err)
	nc := NewSCTPConn(3, nil)
	_, err = nc.Write([]byte("x"))
	check("NewSCTPConn's Write", err)
	_, err = nc.Read(make([]byte, 1))
	check("NewSCTPConn's Read", err)
	_, err = nc.GetStatus()
	check("NewSCTPConn's GetStatus", err)
	// SocketConfig.Control is called with a RawConn without a descriptor.
	called := false
	cfg := &SocketConfig{Control: func(network, address string, rc syscall.RawConn) error {
		called = true
		return rc.Control(func(uintptr) {})
	}}
	if _, err := cfg.Dial("sctp", nil, loopAddr(lnPort(ln))); !called || !errors.Is(err, ErrUnsupported) {
		t.Errorf("Control: called %v, Dial: %v", called, err)
	}
}

// TestWrappedConn: the SndRcvInfo travels at the head of every Read and
// Write.
func TestWrappedConn(t *testing.T) {
	ln := listenLoop(t, nil)
	srv := make(chan *SCTPSndRcvInfoWrappedConn, 1)
	go func() {
		c, err := ln.AcceptSCTP()
		if err != nil {
			srv <- nil
			return
		}
		srv <- NewSCTPSndRcvInfoWrappedConn(c)
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	w := NewSCTPSndRcvInfoWrappedConn(c)
	defer w.Close()
	s := <-srv
	defer s.Close()
	if f, _ := c.SubscribedEvents(); f != SCTP_EVENT_DATA_IO {
		t.Fatalf("subscribed %#x", f)
	}
	msg := appendSndRcvInfo(nil, &SndRcvInfo{Stream: 5, PPID: 60})
	msg = append(msg, "payload"...)
	if n, err := w.Write(msg); err != nil || n != len(msg) {
		t.Fatal(n, err)
	}
	buf := make([]byte, 100)
	s.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := s.Read(buf)
	if err != nil || n != 32+7 || string(buf[32:n]) != "payload" {
		t.Fatalf("read %d %v", n, err)
	}
	if info := parseSndRcvInfo(buf); info.Stream != 5 || info.PPID != 60 {
		t.Fatalf("info %+v", info)
	}
	if _, err := w.Write(make([]byte, 10)); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("short write: %v", err)
	}
	if _, err := w.Read(make([]byte, 10)); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("short read: %v", err)
	}
	if w.LocalAddr() == nil || w.RemoteAddr() == nil {
		t.Fatal("addresses")
	}
	if n, err := w.GetReadBuffer(); err != nil || n == 0 {
		t.Fatal(n, err)
	}
	if n, err := w.GetWriteBuffer(); err != nil || n == 0 {
		t.Fatal(n, err)
	}
	if !errors.Is(w.SetReadBuffer(1), ErrUnsupported) || !errors.Is(w.SetWriteBuffer(1), ErrUnsupported) {
		t.Fatal("buffer sizes")
	}
	if err := w.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	w.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := w.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
}

// TestEOFAbortTTL: SCTP_EOF shuts down after the message, SCTP_ABORT
// aborts with the message as the reason, a TTL gives the message up.
func TestEOFAbortTTL(t *testing.T) {
	ln := listenLoop(t, nil)
	acc := make(chan *SCTPConn, 2)
	go func() {
		for range 2 {
			c, _ := ln.AcceptSCTP()
			acc <- c
		}
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-acc
	defer s.Close()
	if _, err := c.SCTPWrite([]byte("last"), &SndRcvInfo{TTL: 10000, Flags: SCTP_EOF}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	s.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := s.Read(buf); err != nil || string(buf[:n]) != "last" {
		t.Fatalf("read %q %v", buf[:n], err)
	}
	if _, err := s.Read(buf); err != io.EOF {
		t.Fatalf("after SCTP_EOF: %v, want EOF", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("second Close: %v", err)
	}

	c2, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	s2 := <-acc
	defer s2.Close()
	if _, err := c2.SCTPWrite([]byte("going away"), &SndRcvInfo{Flags: SCTP_ABORT}); err != nil {
		t.Fatal(err)
	}
	s2.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := s2.Read(buf); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after the peer's abort: %v", err)
	}
}

// TestCloseEndsRead: a read waiting on a conn when the program closes it
// returns io.EOF, as the original's (its Close shuts the socket down,
// which wakes recvmsg with 0 bytes); reads after Close return EBADF.
func TestCloseEndsRead(t *testing.T) {
	ln := listenLoop(t, nil)
	acc := make(chan *SCTPConn, 1)
	go func() {
		c, _ := ln.AcceptSCTP()
		acc <- c
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-acc
	if s == nil {
		t.Fatal("accept failed")
	}
	read := make(chan error, 1)
	go func() {
		_, err := s.Read(make([]byte, 100))
		read <- err
	}()
	for {
		// Close once the read waits in the association.
		s.mu.Lock()
		waiting := s.reading
		s.mu.Unlock()
		if waiting {
			break
		}
		runtime.Gosched()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != io.EOF {
		t.Fatalf("read waiting at Close: %v, want io.EOF", err)
	}
	if _, err := s.Read(make([]byte, 100)); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("read after Close: %v, want EBADF", err)
	}
}

// TestListenerCloseKeepsAccepted: closing a listener leaves its accepted
// conns working, as accepted kernel sockets; later associations are
// refused, and a second Close fails.
func TestListenerCloseKeepsAccepted(t *testing.T) {
	ln, err := ListenSCTP("sctp4", &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}})
	if err != nil {
		t.Fatal(err)
	}
	acc := make(chan *SCTPConn, 1)
	go func() {
		c, _ := ln.AcceptSCTP()
		acc <- c
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-acc
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ln.Close(); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Fatal("Accept after Close")
	}
	c.Write([]byte("still"))
	buf := make([]byte, 10)
	s.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := s.Read(buf); err != nil || string(buf[:n]) != "still" {
		t.Fatalf("read %q %v", buf[:n], err)
	}
	s.Close()
}

// TestManyListenersOneProcess: listeners on different SCTP ports, and on
// port 0, all on the process's one UDP port, each reached by its dialer.
func TestManyListenersOneProcess(t *testing.T) {
	var lns []*SCTPListener
	for range 4 {
		lns = append(lns, listenLoop(t, nil))
	}
	ln5, err := ListenSCTPExt("sctp", loopAddr(38500), InitMsg{NumOstreams: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ln5.Close()
	if _, err := ListenSCTP("sctp", loopAddr(38500)); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second listener on port 38500: %v", err)
	}
	lns = append(lns, ln5)
	for i, ln := range lns {
		go func() {
			if c, err := ln.AcceptSCTP(); err == nil {
				c.SubscribeEvents(SCTP_EVENT_DATA_IO)
				buf := make([]byte, 10)
				n, info, err := c.SCTPRead(buf)
				if err == nil {
					c.SCTPWrite(buf[:n], info)
				}
				c.Close()
			}
		}()
		c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
		if err != nil {
			t.Fatalf("listener %d: %v", i, err)
		}
		c.Write([]byte{byte(i)})
		buf := make([]byte, 10)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := c.Read(buf); err != nil || n != 1 || buf[0] != byte(i) {
			t.Fatalf("listener %d: %v", i, err)
		}
		c.Close()
	}
}

// TestTransports: TransportIP (raw IP, root only) carries the demo's
// exchange on loopback; TransportAuto picks it when it can, else UDP.
func TestTransports(t *testing.T) {
	defer func(t Transport) { DefaultTransport = t }(DefaultTransport)
	for _, tr := range []Transport{TransportAuto, TransportIP} {
		DefaultTransport = tr
		ln, err := ListenSCTP("sctp4", &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}})
		if tr == TransportIP && errors.Is(err, os.ErrPermission) {
			t.Logf("raw IP: %v", err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		go func() {
			if c, err := ln.AcceptSCTP(); err == nil {
				io.Copy(c, c)
				c.Close()
			}
		}()
		c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		c.Write([]byte("raw"))
		buf := make([]byte, 10)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := c.Read(buf); err != nil || string(buf[:n]) != "raw" {
			t.Fatalf("%s: %q %v", tr, buf[:n], err)
		}
		c.Close()
		ln.Close()
	}
}

// TestMultiAddressListen: a listener on several addresses (the
// "10.0.0.1/10.0.0.2:38412" form) is reached on its first; its Addr lists
// them all.
func TestMultiAddressListen(t *testing.T) {
	laddr, err := ResolveSCTPAddr("sctp", "127.0.0.1/127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := ListenSCTP("sctp", laddr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a := ln.Addr().(*SCTPAddr)
	if len(a.IPAddrs) != 2 || a.Port == 0 {
		t.Fatalf("Addr %v", a)
	}
	go func() {
		if c, err := ln.AcceptSCTP(); err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	raddr, _ := ResolveSCTPAddr("sctp", "127.0.0.1/127.0.0.2:"+strconv.Itoa(a.Port))
	c, err := DialSCTP("sctp", nil, raddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("multi"))
	buf := make([]byte, 10)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "multi" {
		t.Fatalf("read %q %v", buf[:n], err)
	}
}

// TestOpErrors: DialSCTP and ListenSCTP fail with one *net.OpError, as
// the kernel-backed package does, naming the operation and the program's
// address once ("dial sctp ADDR: ...", not package usctp's own
// *net.OpError inside it), and matching the errno.
func TestOpErrors(t *testing.T) {
	ln := listenLoop(t, nil)
	_, lerr := ListenSCTP("sctp", loopAddr(lnPort(ln)))
	_, derr := DialSCTP("sctp", nil, loopAddr(lnPort(ln)+1)) // the process's UDP port, no listener on that SCTP port
	for _, tc := range []struct {
		err   error
		op    string
		port  int
		errno syscall.Errno
	}{
		{lerr, "listen", lnPort(ln), syscall.EADDRINUSE},
		{derr, "dial", lnPort(ln) + 1, syscall.ECONNREFUSED},
	} {
		oe, ok := tc.err.(*net.OpError)
		if !ok || oe.Op != tc.op || !errors.Is(tc.err, tc.errno) {
			t.Errorf("%s: %v (%T), want a *net.OpError matching %v", tc.op, tc.err, tc.err, tc.errno)
			continue
		}
		if inner := (*net.OpError)(nil); errors.As(oe.Err, &inner) {
			t.Errorf("%s: %v: a *net.OpError inside the *net.OpError", tc.op, tc.err)
		}
		prefix := fmt.Sprintf("%s sctp 127.0.0.1:%d: ", tc.op, tc.port)
		if s := tc.err.Error(); !strings.HasPrefix(s, prefix) || strings.Count(s, "sctp") != 1 {
			t.Errorf("%q, want %q and \"sctp\" once", s, prefix)
		}
	}
}

// TestSackTimer: SetSackTimer changes the association's delayed SACK, as
// SCTP_DELAYED_SACK does (a SackDelay of 0 turns it off: every packet is
// acknowledged at once), GetSackTimer and GetPeerAddrParams read it back,
// and Setsockopt(SCTP_NODELAY) succeeds (usctp never holds a message back
// to bundle it).
func TestSackTimer(t *testing.T) {
	ln := listenLoop(t, nil)
	go func() {
		if c, err := ln.Accept(); err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if st, err := c.GetSackTimer(); err != nil || st.SackDelay != 200 || st.SackFrequency != 2 {
		t.Fatalf("default: %+v, %v; want 200 ms, 2", st, err)
	}
	if err := c.SetSackTimer(&SackTimer{SackDelay: 40, SackFrequency: 3}); err != nil {
		t.Fatal(err)
	}
	if st, err := c.GetSackTimer(); err != nil || st.SackDelay != 40 || st.SackFrequency != 3 {
		t.Fatalf("after SetSackTimer(40, 3): %+v, %v", st, err)
	}
	if p, err := c.GetPeerAddrParams(nil); err != nil || p.SackDelay != 40 {
		t.Fatalf("GetPeerAddrParams: %+v, %v; want SackDelay 40", p, err)
	}
	if err := c.SetSackTimer(&SackTimer{SackDelay: 0}); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.GetSackTimer(); st.SackFrequency != 1 {
		t.Fatalf("SackDelay 0: %+v, want frequency 1 (off)", st)
	}
	if err := c.SetSackTimer(&SackTimer{SackDelay: 501}); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("SackDelay 501: %v, want EINVAL", err)
	}
	if _, _, err := c.Setsockopt(SCTP_NODELAY, 0, 4); err != nil {
		t.Fatalf("Setsockopt(SCTP_NODELAY): %v", err)
	}
}
