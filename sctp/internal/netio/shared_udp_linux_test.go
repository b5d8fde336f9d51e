package netio

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestSharedUDPWildcardAndSpecific: the process's sockets of one port on
// 127.0.0.1, 0.0.0.0 and [::] bind side by side, for the process alone or
// in host groups; a packet to 127.0.0.1 goes to the endpoint serving its
// SCTP port on 127.0.0.1, else on 0.0.0.0 (its Local then 127.0.0.1),
// else on [::], as the kernel's SCTP picks the most specific listener;
// another process cannot bind beside a socket the process holds alone.
func TestSharedUDPWildcardAndSpecific(t *testing.T) {
	for _, exclusive := range []bool{true, false} {
		name := "alone"
		if !exclusive {
			name = "group"
		}
		t.Run(name, func(t *testing.T) {
			if !exclusive {
				needHostGroups(t)
			}
			// The first socket holds the port; the others join it or bind
			// beside it, which no other program can then do.
			specific, addr := onFreeLoopbackPort(t, func(addr netip.AddrPort) (*SharedConn, error) {
				return OpenSharedUDP(UDPConfig{Addr: addr, Exclusive: exclusive}, 5001)
			})
			t.Cleanup(func() { specific.Close() })
			port := addr.Port()
			open := func(ip string, sctpPort uint16) *SharedConn {
				t.Helper()
				c, err := OpenSharedUDP(UDPConfig{Addr: netip.AddrPortFrom(netip.MustParseAddr(ip), port), Exclusive: exclusive}, sctpPort)
				if err != nil {
					t.Fatalf("%s: %v", ip, err)
				}
				t.Cleanup(func() { c.Close() })
				return c
			}
			wild4 := open("0.0.0.0", 5002)
			wild6, err := OpenSharedUDP(UDPConfig{Addr: netip.AddrPortFrom(netip.IPv6Unspecified(), port), Exclusive: exclusive}, 5003)
			if err != nil {
				t.Skipf("no IPv6: %v", err)
			}
			defer wild6.Close()
			if exclusive {
				other, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(port)})
				if err == nil {
					other.Close()
					t.Fatal("another socket bound beside the process's")
				}
			}
			peer, err := net.DialUDP("udp4", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(port)})
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			for i, dst := range []uint16{5001, 5002, 5003, 6000} {
				if _, err := peer.Write(sctpTo(dst, byte(i+1))); err != nil {
					t.Fatal(err)
				}
			}
			// Nobody's (6000) goes to the default of the socket it reached.
			if got := readTags(t, specific, 2); string(got) != "\x01\x04" {
				t.Fatalf("127.0.0.1 endpoint read %v, want [1 4]", got)
			}
			pkts := []Packet{{Buf: make([]byte, 100)}}
			for i, c := range []*SharedConn{wild4, wild6} {
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				n, err := c.ReadBatch(pkts)
				if err != nil || n != 1 || pkts[0].Data()[15] != byte(i+2) {
					t.Fatalf("wildcard endpoint %d read %d %v", i, n, err)
				}
				if pkts[0].Local != netip.MustParseAddr("127.0.0.1") {
					t.Fatalf("wildcard endpoint %d: Local %v, want 127.0.0.1", i, pkts[0].Local)
				}
			}
		})
	}
}
