package sctp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// udpPeer is a UDP socket that writes to one peer: a connected datagram
// connection (as a DTLS connection is) made from a socket that is already
// bound, so that two of them can face each other.
type udpPeer struct {
	*net.UDPConn
	peer *net.UDPAddr
}

func (c udpPeer) Write(b []byte) (int, error) { return c.WriteToUDP(b, c.peer) }
func (c udpPeer) RemoteAddr() net.Addr        { return c.peer }

// TestConfigConnCarriesAssociation runs an association over Config.Conn,
// a connected datagram connection of the user's (here two UDP sockets on
// loopback that face each other): the handshake, ordered and unordered
// messages on several streams both ways with their PPIDs, and a graceful
// shutdown.
func TestConfigConnCarriesAssociation(t *testing.T) {
	u2, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := net.DialUDP("udp", nil, u2.LocalAddr().(*net.UDPAddr))
	if err != nil {
		u2.Close()
		t.Fatal(err)
	}
	p2 := udpPeer{u2, p1.LocalAddr().(*net.UDPAddr)}
	l, err := Listen("127.0.0.1:5000", &Config{Conn: p2, OutStreams: 4, InStreams: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.cfg.MTU != 1500 {
		t.Errorf("over a Conn: Config.MTU %d, want 1500", l.cfg.MTU)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, "127.0.0.1:5000", &Config{Conn: p1, OutStreams: 4, InStreams: 4})
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.AcceptContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Each side sends messages of several sizes, the larger ones
	// fragmented, on streams 0 to 3, every other one unordered.
	send := func(a *Association, tag string) {
		for i := range 12 {
			msg := bytes.Repeat([]byte(fmt.Sprintf("%s%d.", tag, i)), 1+i*300)
			info := SendInfo{Stream: uint16(i % 4), PPID: uint32(100 + i), Unordered: i%2 == 1}
			if _, err := a.WriteMsg(msg, info); err != nil {
				t.Errorf("%s: WriteMsg %d: %v", tag, i, err)
				return
			}
		}
	}
	recv := func(a *Association, tag string) {
		got := map[uint32]bool{}
		buf := make([]byte, 1<<16)
		for range 12 {
			n, info, err := a.ReadMsg(buf)
			if err != nil {
				t.Errorf("ReadMsg of %s: %v", tag, err)
				return
			}
			i := int(info.PPID) - 100
			want := bytes.Repeat([]byte(fmt.Sprintf("%s%d.", tag, i)), 1+i*300)
			if i < 0 || i >= 12 || got[info.PPID] || !info.EOR || !bytes.Equal(buf[:n], want) ||
				info.Stream != uint16(i%4) || info.Unordered != (i%2 == 1) {
				t.Errorf("ReadMsg of %s: %d bytes, %+v", tag, n, info)
			}
			got[info.PPID] = true
		}
	}
	go send(c, "c")
	go send(s, "s")
	done := make(chan struct{})
	go func() { recv(c, "s"); close(done) }()
	recv(s, "c")
	<-done
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, _, err := s.ReadMsg(make([]byte, 10)); err != io.EOF {
		t.Errorf("server read after the shutdown: %v, want io.EOF", err)
	}
}
