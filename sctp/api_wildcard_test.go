package sctp

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// An endpoint bound to the wildcard address learns the address each
// packet arrived on (IP_PKTINFO / IPV6_RECVPKTINFO): its associations'
// LocalAddrs and its capture show 127.0.0.1 or ::1 on loopback, not
// 0.0.0.0 or ::. Dial binds the wildcard address of the peer's family, so
// the dialing side learns it too.
func TestUDPWildcardLocalAddrs(t *testing.T) {
	for _, tc := range []struct{ bind, dial, want string }{
		{"0.0.0.0:5000", "127.0.0.1:5000", "127.0.0.1"},
		{"[::]:5000", "[::1]:5000", "::1"},
		{"[::]:5000", "127.0.0.1:5000", "127.0.0.1"}, // dual-stack, IPv4-mapped
	} {
		t.Run(tc.bind+">"+tc.dial, func(t *testing.T) {
			dir := t.TempDir()
			lc := loopCfg()
			lc.Pcap = filepath.Join(dir, "server.pcap")
			l, err := Listen(tc.bind, lc)
			if err != nil {
				t.Skip(err)
			}
			defer l.Close()
			dc := loopCfg()
			dc.RemoteUDPPort = l.Addr().UDPPort
			dc.Pcap = filepath.Join(dir, "client.pcap")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Dial(ctx, tc.dial, dc)
			if err != nil {
				t.Skip(err) // no IPv6 loopback
			}
			s := accept(t, l)
			want := netip.MustParseAddr(tc.want)
			for side, as := range map[string]*Association{"server": s, "client": c} {
				if got := as.LocalAddrs()[0].IP; got != want {
					t.Errorf("%s LocalAddrs %v, want %v", side, as.LocalAddrs(), want)
				}
			}
			if err := c.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			l.Close()
			for _, f := range []string{lc.Pcap, dc.Pcap} {
				n := 0
				for src, dst := range pcapAddrs(t, f) {
					if !src.IsLoopback() || !dst.IsLoopback() {
						t.Errorf("%s: packet %v > %v", filepath.Base(f), src, dst)
					}
					n++
				}
				if n < 4 {
					t.Errorf("%s: %d packets", filepath.Base(f), n)
				}
			}
		})
	}
}

// pcapAddrs yields the IP source and destination of each packet of a
// capture.
func pcapAddrs(t *testing.T, path string) func(func(src, dst netip.Addr) bool) {
	return func(yield func(src, dst netip.Addr) bool) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := pcapgo.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			data, _, err := r.ReadPacketData()
			if err != nil {
				return
			}
			var src, dst netip.Addr
			if len(data) > 0 && data[0]>>4 == 6 {
				p := gopacket.NewPacket(data, layers.LayerTypeIPv6, gopacket.Default).NetworkLayer().(*layers.IPv6)
				src, _ = netip.AddrFromSlice(p.SrcIP)
				dst, _ = netip.AddrFromSlice(p.DstIP)
			} else {
				p := gopacket.NewPacket(data, layers.LayerTypeIPv4, gopacket.Default).NetworkLayer().(*layers.IPv4)
				src, _ = netip.AddrFromSlice(p.SrcIP)
				dst, _ = netip.AddrFromSlice(p.DstIP)
			}
			if !yield(src.Unmap(), dst.Unmap()) {
				return
			}
		}
	}
}
