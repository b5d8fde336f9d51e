//go:build linux

package netio

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDupSocketSendsAfterClose: a packet sent with SendOnSocket on the
// descriptor DupSocket returned leaves from the conn's own address and
// UDP port, also after the conn itself closed, through each wrapper of a
// socket (shared, captured) and from a dual-stack wildcard socket to an
// IPv4 peer with a chosen source; a conn with no socket of its own is
// refused with errors.ErrUnsupported.
func TestDupSocketSendsAfterClose(t *testing.T) {
	peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	to := peer.LocalAddr().(*net.UDPAddr).AddrPort()
	loop := netip.MustParseAddr("127.0.0.1")
	for _, tt := range []struct {
		name string
		open func() (Conn, error)
		src  netip.Addr
	}{
		{"udp", func() (Conn, error) { return ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loop, 0)}) }, netip.Addr{}},
		{"shared", func() (Conn, error) { return OpenSharedUDP(UDPConfig{Addr: netip.AddrPortFrom(loop, 0)}, 5000) }, netip.Addr{}},
		{"capture", func() (Conn, error) {
			c, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loop, 0)})
			if err != nil {
				return nil, err
			}
			w, err := CreatePcap(t.TempDir()+"/c.pcap", PcapOptions{})
			if err != nil {
				c.Close()
				return nil, err
			}
			return Capture(c, w), nil
		}, netip.Addr{}},
		{"wildcard", func() (Conn, error) {
			return ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(netip.IPv6Unspecified(), 0)})
		}, loop},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.open()
			if err != nil {
				t.Fatal(err)
			}
			port := c.LocalAddr().Port()
			fd, err := DupSocket(c)
			if err != nil {
				c.Close()
				t.Fatal(err)
			}
			defer unix.Close(fd)
			c.Close()
			pkt := []byte("an SCTP packet of sixteen+ bytes " + tt.name)
			if err := SendOnSocket(fd, pkt, to, tt.src); err != nil {
				t.Fatal(err)
			}
			peer.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 256)
			n, from, err := peer.ReadFromUDPAddrPort(buf)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf[:n], pkt) {
				t.Fatalf("got %q, want %q", buf[:n], pkt)
			}
			if from != netip.AddrPortFrom(loop, port) {
				t.Fatalf("from %v, want %v:%d", from, loop, port)
			}
		})
	}
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAdapter(pc, AdapterConfig{})
	defer a.Close()
	if _, err := DupSocket(a); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("DupSocket(adapter) = %v, want ErrUnsupported", err)
	}
}
