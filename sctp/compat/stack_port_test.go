package sctp

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	usctp "github.com/usctp/usctp/sctp"
)

// TestListenerNamesOneProcess: the listeners of ishidawataru/sctp's
// TestSCTPListenerName, open at once in one process on one UDP port: a
// specific address, the IPv4 wildcard (twice) and the dual-stack wildcard;
// each has a port, and a dial to 127.0.0.1 reaches each.
func TestListenerNamesOneProcess(t *testing.T) {
	for _, tc := range []struct {
		net   string
		laddr *SCTPAddr
	}{
		{"sctp4", &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}}},
		{"sctp4", &SCTPAddr{}},
		{"sctp4", nil},
		{"sctp", &SCTPAddr{Port: 7777}},
	} {
		ln, err := ListenSCTP(tc.net, tc.laddr)
		if err != nil {
			t.Fatalf("ListenSCTP(%q, %v): %v", tc.net, tc.laddr, err)
		}
		defer ln.Close()
		port := lnPort(ln)
		if port == 0 {
			t.Fatalf("ListenSCTP(%q, %v): address %v", tc.net, tc.laddr, ln.Addr())
		}
		acc := make(chan error, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				c.Close()
			}
			acc <- err
		}()
		c, err := DialSCTP("sctp", nil, loopAddr(port))
		if err != nil {
			t.Fatalf("dial the listener on %v: %v", ln.Addr(), err)
		}
		if err := <-acc; err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}

// TestListenPort0UDPInUse: a listener on port 0 whose UDP socket cannot
// bind (another program holds the address and port) fails with that
// error, not after trying every SCTP port.
func TestListenPort0UDPInUse(t *testing.T) {
	// The program holding the port: a socket of this test, on a port the
	// system picks, made the package's UDPPort for the test.
	hold, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 3, 0, 9)})
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	defer func(p uint16) { UDPPort = p }(UDPPort)
	UDPPort = uint16(hold.LocalAddr().(*net.UDPAddr).Port)
	_, err = ListenSCTP("sctp4", &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 3, 0, 9)}}})
	if !errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, usctp.ErrPortInUse) {
		t.Fatalf("listen: %v, want the UDP bind's EADDRINUSE", err)
	}
	if strings.Contains(err.Error(), "no free SCTP port") || !strings.Contains(err.Error(), "UDP 127.3.0.9:") {
		t.Fatalf("listen: %v, want the UDP bind's error", err)
	}
}

// TestRemoteUDPPorts: a dial reaches a peer on a UDP port other than
// UDPPort named in RemoteUDPPorts, by address and SCTP port, address or
// SCTP port; a malformed entry fails the dial.
func TestRemoteUDPPorts(t *testing.T) {
	l, err := usctp.Listen("127.0.0.1:5091", &usctp.Config{EphemeralUDPPort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	udp := l.Addr().UDPPort
	saved := RemoteUDPPorts
	defer func() { RemoteUDPPorts = saved }()
	for _, entries := range [][]string{
		{"127.0.0.1:5090/udp:1", fmt.Sprintf("127.0.0.1:5091/udp:%d", udp)},
		{fmt.Sprintf("127.0.0.1/udp:%d", udp)},
		{fmt.Sprintf(":5091/udp:%d", udp)},
	} {
		RemoteUDPPorts = entries
		c, err := DialSCTP("sctp", nil, loopAddr(5091))
		if err != nil {
			t.Fatalf("RemoteUDPPorts %q: %v", entries, err)
		}
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		c.Close()
	}
	for _, bad := range []string{"127.0.0.1:5091", "127.0.0.1/udp:0", "localhost/udp:9"} {
		RemoteUDPPorts = []string{bad}
		if _, err := DialSCTP("sctp", nil, loopAddr(5091)); err == nil || !strings.Contains(err.Error(), "RemoteUDPPorts") {
			t.Errorf("RemoteUDPPorts %q: %v, want an error naming it", bad, err)
		}
	}
}
