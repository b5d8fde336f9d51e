//go:build linux

package sctp_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// TestREADMEMultihoming runs the README's multi-homing example as written
// (Linux: every 127/8 address is the host's), then checks what its
// comments say: the client's paths are the server's two addresses, the
// one the INIT went to first is the primary, the other is confirmed by a
// HEARTBEAT, SetPrimary moves new data there, and the server's paths are
// the client's two addresses.
func TestREADMEMultihoming(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, buf := []byte("hello"), make([]byte, 1500)

	l, err := sctp.Listen("127.0.0.1,127.0.0.2:5000", nil) // a server on two addresses
	if errors.Is(err, syscall.EADDRINUSE) {
		t.Skipf("UDP port 9899 is taken by another program on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := sctp.Dial(ctx, "127.0.0.1,127.0.0.2:5000", &sctp.Config{ // INIT tries them in turn
		LocalAddrs: []netip.Addr{netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("127.0.0.4")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	as, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c.WriteMsg(msg, sctp.SendInfo{})
	n, _, err := as.ReadMsg(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("ReadMsg: %q %v", buf[:n], err)
	}
	for _, p := range c.Paths() { // 127.0.0.1:5000/udp:9899 active true; 127.0.0.2:5000/udp:9899 active false
		fmt.Println(p.Addr, p.State, p.Primary) // (unconfirmed until its HEARTBEAT is answered)
	}
	// The HEARTBEAT to the second address goes out as soon as the
	// association is up: wait for its answer (real sockets, real time).
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		p := c.Paths()
		if len(p) == 2 && p[1].State == sctp.PathActive {
			if p[0].Addr.String() != "127.0.0.1:5000/udp:9899" || !p[0].Primary || p[1].Addr.String() != "127.0.0.2:5000/udp:9899" || p[1].Primary {
				t.Fatalf("client paths %+v", p)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("second path never confirmed: %+v", p)
		}
	}
	if err := c.SetPrimary(netip.MustParseAddr("127.0.0.2")); err != nil { // once confirmed: new data goes there while it answers
		t.Fatal(err)
	}
	if p := c.Paths(); !p[1].Primary || !p[1].InUse {
		t.Errorf("after SetPrimary: %+v", p)
	}
	c.WriteMsg(msg, sctp.SendInfo{})
	if n, _, err := as.ReadMsg(buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("ReadMsg after SetPrimary: %q %v", buf[:n], err)
	}
	sp := as.Paths()
	if len(sp) != 2 || sp[0].Addr.IP != netip.MustParseAddr("127.0.0.3") || sp[1].Addr.IP != netip.MustParseAddr("127.0.0.4") {
		t.Errorf("server paths %+v: want the client's 127.0.0.3 and 127.0.0.4", sp)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
