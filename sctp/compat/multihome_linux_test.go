package sctp

import (
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// ips returns the IP addresses of a, as strings.
func ips(a net.Addr) []string {
	var s []string
	if sa, ok := a.(*SCTPAddr); ok {
		for _, ip := range sa.IPAddrs {
			s = append(s, ip.IP.String())
		}
	}
	slices.Sort(s)
	return s
}

// TestMultihomedLoopback: a listener on two addresses (ListenSCTP with two
// IPAddrs) and a connection dialed to both, from one address or from two,
// over UDP encapsulation and raw IP: the association carries data both
// ways, each end sees the other's two addresses, and the second address
// becomes a confirmed, active path (RFC 9260 section 5.4) on both ends.
func TestMultihomedLoopback(t *testing.T) {
	defer func(t Transport) { DefaultTransport = t }(DefaultTransport)
	two := []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}, {IP: net.IPv4(127, 0, 0, 2)}}
	want := []string{"127.0.0.1", "127.0.0.2"}
	for _, tr := range []Transport{TransportUDP, TransportIP} {
		for _, laddr := range []*SCTPAddr{nil, {IPAddrs: two}} {
			name := map[Transport]string{TransportUDP: "udp", TransportIP: "ip"}[tr] + "/one-local"
			if laddr != nil {
				name = name[:len(name)-len("one-local")] + "two-local"
			}
			t.Run(name, func(t *testing.T) {
				DefaultTransport = tr
				ln, err := ListenSCTP("sctp", &SCTPAddr{IPAddrs: two})
				if tr == TransportIP && errors.Is(err, os.ErrPermission) {
					t.Skipf("raw IP: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				if got := ips(ln.Addr()); !slices.Equal(got, want) {
					t.Fatalf("listener addresses %v, want %v", got, want)
				}
				accepted := make(chan *SCTPConn, 1)
				go func() {
					c, err := ln.AcceptSCTP()
					if err != nil {
						close(accepted)
						return
					}
					accepted <- c
					io.Copy(c, c)
				}()
				c, err := DialSCTP("sctp", laddr, &SCTPAddr{IPAddrs: two, Port: lnPort(ln)})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				s := <-accepted
				if s == nil {
					t.Fatal("accept failed")
				}
				defer s.Close()
				if got := ips(c.RemoteAddr()); !slices.Equal(got, want) {
					t.Errorf("client sees the server at %v, want %v", got, want)
				}
				if got := ips(s.LocalAddr()); !slices.Equal(got, want) {
					t.Errorf("the server's local addresses %v, want %v", got, want)
				}
				if laddr != nil {
					if got := ips(s.RemoteAddr()); !slices.Equal(got, want) {
						t.Errorf("server sees the client at %v, want %v", got, want)
					}
				}
				// Both ends' second path is confirmed by a HEARTBEAT.
				deadline := time.Now().Add(10 * time.Second)
				for _, conn := range []*SCTPConn{c, s} {
					if conn == s && laddr == nil {
						continue // the client has one address: one path
					}
					for {
						ps := conn.as.Paths()
						if len(ps) == 2 && ps[1].State == usctp.PathActive {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("paths %+v", ps)
						}
						time.Sleep(10 * time.Millisecond)
					}
				}
				buf := make([]byte, 2000)
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				for i := range 50 {
					msg := slices.Repeat([]byte{byte(i)}, 1000+i)
					if _, err := c.Write(msg); err != nil {
						t.Fatalf("write %d: %v", i, err)
					}
					if n, err := c.Read(buf); err != nil || !slices.Equal(buf[:n], msg) {
						t.Fatalf("echo %d: %d bytes, %v", i, n, err)
					}
				}
			})
		}
	}
}

// TestDialTriesAddressesInTurn: DialSCTP to several addresses sends its
// INIT to each in turn, as sctp_connectx does: the first (where the
// multi-homed listener's socket drops everything, not its address) never
// answers, the second does.
func TestDialTriesAddressesInTurn(t *testing.T) {
	defer func(t Transport) { DefaultTransport = t }(DefaultTransport)
	DefaultTransport = TransportUDP
	two := []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}, {IP: net.IPv4(127, 0, 0, 2)}}
	ln, err := ListenSCTP("sctp", &SCTPAddr{IPAddrs: two})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.AcceptSCTP(); err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	raddr := &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv4(127, 0, 0, 3)}, {IP: net.IPv4(127, 0, 0, 2)}}, Port: lnPort(ln)}
	c, err := DialSCTPExt("sctp", nil, raddr, InitMsg{NumOstreams: 1, MaxAttempts: 3, MaxInitTimeout: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if p, err := c.SCTPGetPrimaryPeerAddr(); err != nil || ips(p)[0] != "127.0.0.2" {
		t.Fatalf("primary peer address %v %v, want 127.0.0.2", p, err)
	}
	c.Write([]byte("second"))
	buf := make([]byte, 10)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "second" {
		t.Fatalf("read %q %v", buf[:n], err)
	}
}
