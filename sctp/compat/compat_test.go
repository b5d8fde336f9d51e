package sctp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// The tests' listeners share one UDP encapsulation port of their own,
	// away from 9899, which other programs on the host may hold: one the
	// system picks, held from the start by a listener of the run, whose
	// socket the tests' listeners on 127.0.0.1 share. The test binary run
	// by a test as a program of its own gets it from USCTP_UDP_PORT, as
	// UDPPort does.
	if os.Getenv("USCTP_UDP_PORT") != "" {
		os.Exit(m.Run())
	}
	hold, err := holdUDPPort()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("USCTP_UDP_PORT", fmt.Sprint(UDPPort))
	code := m.Run()
	hold.Close()
	os.Exit(code)
}

// holdUDPPort sets UDPPort to a port free a moment before and listens on
// it (127.0.0.1, an SCTP port of its own), trying another port when
// another program took it in between.
func holdUDPPort() (*SCTPListener, error) {
	for try := 1; ; try++ {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		UDPPort = uint16(c.LocalAddr().(*net.UDPAddr).Port)
		c.Close()
		ln, err := ListenSCTP("sctp", &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}})
		if err == nil {
			return ln, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) || try == 10 {
			return nil, fmt.Errorf("compat tests: UDP port %d: %w", UDPPort, err)
		}
	}
}

// listenLoop listens on 127.0.0.1 on an ephemeral SCTP port.
func listenLoop(t *testing.T, cfg *SocketConfig) *SCTPListener {
	t.Helper()
	if cfg == nil {
		cfg = &SocketConfig{InitMsg: InitMsg{NumOstreams: 8, MaxInstreams: 8}}
	}
	ln, err := cfg.Listen("sctp", &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func lnPort(ln *SCTPListener) int { return ln.Addr().(*SCTPAddr).Port }

func loopAddr(port int) *SCTPAddr {
	return &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, Port: port}
}

// TestEchoSndRcvInfo: a message written with SndRcvInfo arrives with its
// stream, PPID and unordered flag, and the answer on the stream it came
// on with PPID 60 too; SndRcvInfo is returned only with
// SCTP_EVENT_DATA_IO subscribed.
func TestEchoSndRcvInfo(t *testing.T) {
	ln := listenLoop(t, nil)
	type res struct {
		c   *SCTPConn
		err error
	}
	acc := make(chan res, 1)
	go func() {
		c, err := ln.AcceptSCTP()
		acc <- res{c, err}
	}()
	c, err := DialSCTPExt("sctp", nil, loopAddr(lnPort(ln)), InitMsg{NumOstreams: 4, MaxInstreams: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := <-acc
	if r.err != nil {
		t.Fatal(r.err)
	}
	s := r.c
	defer s.Close()
	if err := s.SubscribeEvents(SCTP_EVENT_DATA_IO); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SCTPWrite([]byte("ngap"), &SndRcvInfo{Stream: 3, PPID: 60, Flags: SCTP_UNORDERED}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, info, err := s.SCTPRead(buf)
	if err != nil || string(buf[:n]) != "ngap" {
		t.Fatalf("read %q %v", buf[:n], err)
	}
	if info == nil || info.Stream != 3 || info.PPID != 60 || info.Flags&SCTP_UNORDERED == 0 || info.AssocID == 0 {
		t.Fatalf("SndRcvInfo %+v", info)
	}
	if _, err := s.SCTPWrite([]byte("answer"), &SndRcvInfo{Stream: info.Stream, PPID: 60}); err != nil {
		t.Fatal(err)
	}
	n, info, err = c.SCTPRead(buf)
	if err != nil || string(buf[:n]) != "answer" || info != nil {
		t.Fatalf("client read %q %+v %v (no SCTP_EVENT_DATA_IO: no info)", buf[:n], info, err)
	}
	// Write uses the default send parameters.
	if err := c.SetDefaultSentParam(&SndRcvInfo{Stream: 2, PPID: 46}); err != nil {
		t.Fatal(err)
	}
	if d, err := c.GetDefaultSentParam(); err != nil || d.Stream != 2 || d.PPID != 46 {
		t.Fatalf("GetDefaultSentParam %+v %v", d, err)
	}
	if _, err := c.Write([]byte("default")); err != nil {
		t.Fatal(err)
	}
	n, info, err = s.SCTPRead(buf)
	if err != nil || string(buf[:n]) != "default" || info.Stream != 2 || info.PPID != 46 {
		t.Fatalf("read %q %+v %v", buf[:n], info, err)
	}
	// Read is SCTPRead without the info.
	s.Write([]byte("plain"))
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "plain" {
		t.Fatalf("Read %q %v", buf[:n], err)
	}
}

// TestNotifications: a client subscribed to association and shutdown
// events reads, in the kernel's layout, SCTP_SHUTDOWN_EVENT and
// SCTP_ASSOC_CHANGE SHUTDOWN_COMP when the server closes, then EOF; with
// a NotificationHandler they go to it instead.
func TestNotifications(t *testing.T) {
	for _, handled := range []bool{false, true} {
		ln := listenLoop(t, nil)
		var got [][]byte
		cfg := &SocketConfig{InitMsg: InitMsg{NumOstreams: 5, MaxInstreams: 6}}
		if handled {
			cfg.NotificationHandler = func(b []byte) error {
				got = append(got, append([]byte(nil), b...))
				return nil
			}
		}
		acc := make(chan *SCTPConn, 1)
		go func() {
			c, _ := ln.AcceptSCTP()
			acc <- c
		}()
		c, err := cfg.Dial("sctp", nil, loopAddr(lnPort(ln)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SubscribeEvents(SCTP_EVENT_ASSOCIATION | SCTP_EVENT_SHUTDOWN | SCTP_EVENT_DATA_IO); err != nil {
			t.Fatal(err)
		}
		if f, _ := c.SubscribedEvents(); f != SCTP_EVENT_ASSOCIATION|SCTP_EVENT_SHUTDOWN|SCTP_EVENT_DATA_IO {
			t.Fatalf("SubscribedEvents %#x", f)
		}
		s := <-acc
		if s == nil {
			t.Fatal("accept failed")
		}
		s.SCTPWrite([]byte("bye"), &SndRcvInfo{Stream: 1, PPID: 60})
		s.Close()
		buf := make([]byte, 256)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			n, info, err := c.SCTPRead(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if info == nil {
				got = append(got, append([]byte(nil), buf[:n]...))
			} else if string(buf[:n]) != "bye" {
				t.Fatalf("data %q", buf[:n])
			}
		}
		c.Close()
		var types []SCTPNotificationType
		for _, b := range got {
			var h NotificationHeader
			if err := binary.Read(bytes.NewReader(b), binary.NativeEndian, &h); err != nil {
				t.Fatal(err)
			}
			if int(h.Length) != len(b) {
				t.Fatalf("notification %#x: length %d, %d bytes", h.Type, h.Length, len(b))
			}
			types = append(types, SCTPNotificationType(h.Type))
			if SCTPNotificationType(h.Type) == SCTP_ASSOC_CHANGE {
				state := SCTPState(binary.NativeEndian.Uint16(b[8:]))
				out, in := binary.NativeEndian.Uint16(b[12:]), binary.NativeEndian.Uint16(b[14:])
				if state != SCTP_SHUTDOWN_COMP || out != 5 || in != 6 {
					t.Fatalf("assoc change state %d streams %d/%d", state, out, in)
				}
			}
		}
		if len(types) != 2 || types[0] != SCTP_SHUTDOWN_EVENT || types[1] != SCTP_ASSOC_CHANGE {
			t.Fatalf("handler %v: notifications %#x, want SHUTDOWN_EVENT, ASSOC_CHANGE", handled, types)
		}
	}
}

// TestStatusAndAddrs: GetStatus, the address calls and SCTP_STATUS-like
// values of an established association.
func TestStatusAndAddrs(t *testing.T) {
	ln := listenLoop(t, nil)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			buf := make([]byte, 10)
			c.Read(buf)
			c.Close()
		}
	}()
	c, err := DialSCTP("sctp4", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.GetStatus()
	if err != nil || st.State != SCTP_ESTABLISHED || st.Ostreams != 8 || st.Instreams != 8 || st.FragmentationPoint == 0 {
		t.Fatalf("GetStatus %+v %v", st, err)
	}
	if st.PrimaryPeerAddr.State != SCTP_ACTIVE || st.PrimaryPeerAddr.MTU == 0 {
		t.Fatalf("primary %+v", st.PrimaryPeerAddr)
	}
	if fam := binary.NativeEndian.Uint16(st.PrimaryPeerAddr.Address[:]); fam != afInet {
		t.Fatalf("primary address family %d", fam)
	}
	p, err := c.SCTPGetPrimaryPeerAddr()
	if err != nil || p.Port != lnPort(ln) || !p.IPAddrs[0].IP.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Fatalf("primary %v %v", p, err)
	}
	r := c.RemoteAddr().(*SCTPAddr)
	l := c.LocalAddr().(*SCTPAddr)
	if r.Port != lnPort(ln) || l.Port == 0 || r.Network() != "sctp" {
		t.Fatalf("remote %v local %v", r, l)
	}
	if a, err := c.SCTPLocalAddr(0); err != nil || a.Port != l.Port {
		t.Fatalf("SCTPLocalAddr %v %v", a, err)
	}
	if a, err := c.SCTPRemoteAddr(int(st.AssocID)); err != nil || a.Port != r.Port {
		t.Fatalf("SCTPRemoteAddr %v %v", a, err)
	}
	if _, err := c.SCTPRemoteAddr(int(st.AssocID) + 1000); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("SCTPRemoteAddr of another id: %v", err)
	}
	if err := c.SetInitMsg(3, 3, 2, 1000); err != nil {
		t.Fatal(err)
	}
	if st, err := c.GetSackTimer(); err != nil || st.SackDelay != 200 {
		t.Fatalf("GetSackTimer %+v %v", st, err)
	}
	if n, err := c.GetReadBuffer(); err != nil || n <= 0 {
		t.Fatal(n, err)
	}
	if n, err := c.GetWriteBuffer(); err != nil || n <= 0 {
		t.Fatal(n, err)
	}
	a := ln.Addr().(*SCTPAddr)
	if a.Port != lnPort(ln) || a.String() != "127.0.0.1:"+strconv.Itoa(a.Port) {
		t.Fatalf("listener Addr %v", a)
	}
}

// TestDeadlines: SetReadDeadline ends a read with os.ErrDeadlineExceeded
// (the kernel-backed original returns EOPNOTSUPP: going beyond it).
func TestDeadlines(t *testing.T) {
	ln := listenLoop(t, nil)
	go func() {
		c, err := ln.AcceptSCTP()
		if err == nil {
			defer c.Close()
			buf := make([]byte, 10)
			c.Read(buf)
		}
	}()
	c, err := DialSCTP("sctp", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(50 * time.Millisecond))
	start := time.Now()
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("deadline took %v", d)
	}
	if err := c.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
}
