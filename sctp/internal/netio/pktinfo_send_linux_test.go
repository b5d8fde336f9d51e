//go:build linux

package netio

import (
	"net/netip"
	"os/exec"
	"testing"
	"time"
)

// A socket bound to the wildcard address sends each packet from the local
// address in its Packet.Local (IP_PKTINFO / IPV6_PKTINFO per message):
// one batch mixes sources, equal-size packets of one source still go out
// as GSO runs, and the receiver sees each packet come from the address
// asked for. The zero Local leaves the choice to the kernel.
func TestSendFromLocalAddr(t *testing.T) {
	for _, bind := range []string{"0.0.0.0:0", "[::]:0"} {
		for _, gso := range []bool{false, true} {
			snd, err := ListenUDP(UDPConfig{Addr: netip.MustParseAddrPort(bind), NoGSO: !gso})
			if err != nil {
				t.Skipf("%s: %v", bind, err)
			}
			rcv, err := ListenUDP(UDPConfig{Addr: netip.MustParseAddrPort("0.0.0.0:0")})
			if err != nil {
				t.Fatal(err)
			}
			to := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), rcv.LocalAddr().Port())
			srcs := []netip.Addr{
				netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.2"),
				netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("127.0.0.3"),
				{}, // the kernel's choice: 127.0.0.1 to 127.0.0.1
				netip.MustParseAddr("127.0.0.2"),
			}
			pkts := newPackets(len(srcs), 2048)
			fill(pkts, 0, 1000, to)
			for i := range pkts {
				pkts[i].Local = srcs[i]
			}
			if n, err := snd.WriteBatch(pkts); n != len(pkts) || err != nil {
				t.Fatalf("%s: WriteBatch %d %v", bind, n, err)
			}
			rcv.SetReadDeadline(time.Now().Add(5 * time.Second))
			got := 0
			for got < len(srcs) {
				in := newPackets(len(srcs), 2048)
				n, err := rcv.ReadBatch(in)
				if err != nil {
					t.Fatalf("%s: read after %d: %v", bind, got, err)
				}
				for _, p := range in[:n] {
					seq := int(seqOf(p.Buf))
					want := srcs[seq]
					if !want.IsValid() {
						want = netip.MustParseAddr("127.0.0.1")
					}
					if p.Addr.Addr() != want || p.Addr.Port() != snd.LocalAddr().Port() || p.N != 1000 {
						t.Errorf("%s GSO %v: packet %d from %v (%d bytes), want %v", bind, gso, seq, p.Addr, p.N, want)
					}
					got++
				}
			}
			snd.Close()
			rcv.Close()
		}
	}
}

// A raw IP socket bound to the wildcard address sends from the Local of
// each packet too, over IPv4 and IPv6: host a of a namespace pair has a
// second address on its link, and b sees packets from each.
func TestRawIPSendFromLocalAddr(t *testing.T) {
	nsA, nsB := netnsPair(t)
	for _, tc := range []struct{ bind, second, first, to, bindB string }{
		{"0.0.0.0", "10.201.0.11", "10.201.0.1", "10.201.0.2", "10.201.0.2"},
		{"::", "fd00:201::11", "fd00:201::1", "fd00:201::2", "fd00:201::2"},
	} {
		plen := "/24"
		if netip.MustParseAddr(tc.second).Is6() {
			plen = "/64"
		}
		if out, err := exec.Command("ip", "-n", nsA, "addr", "add", tc.second+plen, "dev", "usctp0", "nodad").CombinedOutput(); err != nil {
			t.Fatalf("ip addr add: %v %s", err, out)
		}
		var a, b *IPConn
		var errA, errB error
		inNetns(t, nsA, func() { a, errA = ListenIP(IPConfig{Addr: netip.MustParseAddr(tc.bind)}) })
		inNetns(t, nsB, func() { b, errB = ListenIP(IPConfig{Addr: netip.MustParseAddr(tc.bindB)}) })
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		srcs := []netip.Addr{netip.MustParseAddr(tc.second), netip.MustParseAddr(tc.first), netip.MustParseAddr(tc.second)}
		pkts := newPackets(len(srcs), 2048)
		fill(pkts, 0, 100, netip.AddrPortFrom(netip.MustParseAddr(tc.to), 0))
		for i := range pkts {
			pkts[i].Local = srcs[i]
		}
		if n, err := a.WriteBatch(pkts); n != len(pkts) || err != nil {
			t.Fatalf("%s: WriteBatch %d %v", tc.bind, n, err)
		}
		b.SetReadDeadline(time.Now().Add(5 * time.Second))
		for got := 0; got < len(srcs); {
			in := newPackets(4, 2048)
			n, err := b.ReadBatch(in)
			if err != nil {
				t.Fatalf("%s: read after %d: %v", tc.bind, got, err)
			}
			for _, p := range in[:n] {
				seq := int(seqOf(p.Buf))
				if seq >= len(srcs) || p.Addr.Addr() != srcs[seq] {
					t.Errorf("%s: packet %d from %v, want %v", tc.bind, seq, p.Addr, srcs[min(seq, len(srcs)-1)])
				}
				got++
			}
		}
		a.Close()
		b.Close()
	}
}
