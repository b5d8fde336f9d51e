//go:build linux

package netio

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestListenIPWithoutCapNetRaw(t *testing.T) {
	var err error
	withoutNetRaw(t, func() {
		var c *IPConn
		c, err = ListenIP(IPConfig{})
		if err == nil {
			c.Close()
		}
	})
	if !errors.Is(err, os.ErrPermission) || !errors.Is(err, ErrNeedRaw) {
		t.Fatalf("ListenIP without CAP_NET_RAW: %v; want os.ErrPermission and ErrNeedRaw", err)
	}
	t.Log(err)
}

// TestRawIPNetns sends SCTP-sized packets over raw IP between two network
// namespaces joined by veth, over IPv4 and IPv6, batched and not.
func TestRawIPNetns(t *testing.T) {
	nsA, nsB := netnsPair(t)
	for _, tc := range []struct {
		name        string
		addrA, addr netip.Addr
		noBatch     bool
		ipOptions   []byte // IPv4 options the sender puts in its headers
	}{
		{"v4", netip.MustParseAddr("10.201.0.1"), netip.MustParseAddr("10.201.0.2"), false, nil},
		{"v6", netip.MustParseAddr("fd00:201::1"), netip.MustParseAddr("fd00:201::2"), false, nil},
		{"v4-single", netip.MustParseAddr("10.201.0.1"), netip.MustParseAddr("10.201.0.2"), true, nil},
		{"v6-single", netip.MustParseAddr("fd00:201::1"), netip.MustParseAddr("fd00:201::2"), true, nil},
		// NOP, NOP, NOP, end of options: a 24-byte IPv4 header that the
		// receiver must strip past its 20-byte scratch iovec.
		{"v4-options", netip.MustParseAddr("10.201.0.1"), netip.MustParseAddr("10.201.0.2"), false, []byte{1, 1, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b *IPConn
			var errA, errB error
			inNetns(t, nsA, func() { a, errA = ListenIP(IPConfig{Addr: tc.addrA, NoBatch: tc.noBatch}) })
			inNetns(t, nsB, func() { b, errB = ListenIP(IPConfig{Addr: tc.addr, NoBatch: tc.noBatch}) })
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			defer a.Close()
			defer b.Close()
			if tc.ipOptions != nil {
				rc, _ := a.c.SyscallConn()
				var serr error
				rc.Control(func(fd uintptr) {
					serr = unix.SetsockoptString(int(fd), unix.IPPROTO_IP, unix.IP_OPTIONS, string(tc.ipOptions))
				})
				if serr != nil {
					t.Fatal(serr)
				}
			}
			if got, want := a.Overhead(tc.addr), ipHeaderLen(tc.addr); got != want {
				t.Errorf("Overhead = %d, want %d", got, want)
			}
			const total, size = 300, 1400 // veth MTU 1500
			pkts := newPackets(50, 2048)
			for seq := 0; seq < total; seq += len(pkts) {
				fill(pkts, seq, size, netip.AddrPortFrom(tc.addr, 0))
				if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
					t.Fatalf("WriteBatch = %d, %v", n, err)
				}
				recvAll(t, b, len(pkts), size, netip.AddrPortFrom(tc.addrA, 0))
			}
			if tc.ipOptions != nil {
				if ihl := b.b.(*batchIO).r.hdr[0] & 0x0f; ihl != 6 {
					t.Errorf("received IHL %d, want 6: options not exercised", ihl)
				}
			}
			// And one back, so both directions work.
			fill(pkts[:1], 9, 100, netip.AddrPortFrom(tc.addrA, 0))
			if _, err := b.WriteBatch(pkts[:1]); err != nil {
				t.Fatal(err)
			}
			recvAll(t, a, 1, 100, netip.AddrPortFrom(tc.addr, 0))
		})
	}
}

// TestGSOFallbackOverMTU makes the kernel refuse GSO sends: segments of
// 1480 bytes plus 28 bytes of headers exceed the veth MTU of 1500, so
// sendmmsg fails with EINVAL. WriteBatch must resend them one datagram
// per message (the kernel fragments those) and lose nothing.
func TestGSOFallbackOverMTU(t *testing.T) {
	nsA, nsB := netnsPair(t)
	var a, b *UDPConn
	var errA, errB error
	inNetns(t, nsA, func() {
		a, errA = ListenUDP(UDPConfig{Addr: netip.MustParseAddrPort("10.201.0.1:9899")})
	})
	inNetns(t, nsB, func() {
		b, errB = ListenUDP(UDPConfig{Addr: netip.MustParseAddrPort("10.201.0.2:9899")})
	})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	defer a.Close()
	defer b.Close()
	if !a.GSO() {
		t.Skip("no UDP GSO on this kernel")
	}
	const size = 1480
	pkts := newPackets(20, 2048)
	fill(pkts, 0, size, b.LocalAddr())
	if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	recvAll(t, b, len(pkts), size, a.LocalAddr())
	if st := a.Stats(); st.GSOFailure == 0 {
		t.Errorf("expected a refused GSO send: %+v", st)
	}
	if !a.GSO() {
		t.Errorf("EINVAL must not disable GSO for good")
	}
	// Packets that fit the MTU still go out with GSO.
	before := a.Stats()
	fill(pkts, 100, 1400, b.LocalAddr())
	if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	recvAll(t, b, len(pkts), 1400, a.LocalAddr())
	if after := a.Stats(); after.GSOSends == before.GSOSends || after.GSOFailure != before.GSOFailure {
		t.Errorf("stats before %+v after %+v", before, after)
	}
}

// TestUDPLinkLocal exchanges packets between link-local IPv6 addresses
// over the veth pair: the zone must survive the round trip.
func TestUDPLinkLocal(t *testing.T) {
	nsA, nsB := netnsPair(t)
	var a, b *UDPConn
	var errA, errB error
	la := netip.MustParseAddr("fe80::1").WithZone("usctp0")
	lb := netip.MustParseAddr("fe80::2").WithZone("usctp0")
	for i, ns := range []string{nsA, nsB} {
		addr, peer := []netip.Addr{la, lb}[i], []netip.Addr{lb, la}[i]
		mac := fmt.Sprintf("02:00:00:00:00:%02d", 2-i)
		for _, args := range [][]string{
			{"-n", ns, "addr", "add", addr.WithZone("").String() + "/64", "dev", "usctp0", "nodad"},
			{"-n", ns, "neigh", "replace", peer.WithZone("").String(), "lladdr", mac, "dev", "usctp0", "nud", "permanent"},
		} {
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				t.Fatalf("ip %v: %v: %s", args, err, out)
			}
		}
	}
	inNetns(t, nsA, func() { a, errA = ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(la, 0)}) })
	inNetns(t, nsB, func() { b, errB = ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(lb, 0)}) })
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	defer a.Close()
	defer b.Close()
	// The zone as the interface index in nsA, named the way received
	// packets name it.
	var idx int
	inNetns(t, nsA, func() {
		if ifi, err := net.InterfaceByName("usctp0"); err == nil {
			idx = ifi.Index
		}
	})
	if idx == 0 {
		t.Fatal("no usctp0 in", nsA)
	}
	dst := netip.AddrPortFrom(lb.WithZone(zoneName(uint32(idx))), b.LocalAddr().Port())
	pkts := newPackets(4, 2048)
	in := newPackets(4, 2048)
	// UDP may lose the first datagrams while the new veth link settles
	// (seen on a loaded machine): each direction sends until it is heard,
	// for up to 10 s.
	exchange := func(from, to *UDPConn, out []Packet) int {
		t.Helper()
		end := time.Now().Add(10 * time.Second)
		for {
			if n, err := from.WriteBatch(out); err != nil || n != len(out) {
				t.Fatalf("WriteBatch = %d, %v", n, err)
			}
			to.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			n, err := to.ReadBatch(in)
			if err == nil {
				return n
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) || time.Now().After(end) {
				t.Fatal(err)
			}
		}
	}
	fill(pkts, 0, 200, dst)
	exchange(a, b, pkts)
	from := in[0].Addr
	if from.Addr().WithZone("") != la.WithZone("") || from.Addr().Zone() == "" {
		t.Fatalf("from %v", from)
	}
	// Reply to the address as received, zone included. Datagrams of the
	// first exchange still queued at b are read and dropped first.
	b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	for {
		if _, err := b.ReadBatch(in); err != nil {
			break
		}
	}
	fill(pkts[:1], 50, 100, from)
	if n := exchange(b, a, pkts[:1]); n < 1 || in[0].N != 100 {
		t.Fatalf("reply: %d packets, first %d bytes", n, in[0].N)
	}
}

// TestDontFragment: with DontFragment a packet over the veth MTU fails
// alone with ErrPacketTooBig, and the caller goes on with the rest.
func TestDontFragment(t *testing.T) {
	nsA, nsB := netnsPair(t)
	open := func(udp bool, ns string, addr netip.Addr) Conn {
		var c Conn
		var err error
		inNetns(t, ns, func() {
			if udp {
				c, err = ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(addr, 9899), DontFragment: true})
			} else {
				c, err = ListenIP(IPConfig{Addr: addr, DontFragment: true})
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	for _, tc := range []struct {
		name string
		udp  bool
		a, b netip.Addr
	}{
		{"udp4", true, netip.MustParseAddr("10.201.0.1"), netip.MustParseAddr("10.201.0.2")},
		{"udp6", true, netip.MustParseAddr("fd00:201::1"), netip.MustParseAddr("fd00:201::2")},
		{"ip4", false, netip.MustParseAddr("10.201.0.1"), netip.MustParseAddr("10.201.0.2")},
		{"ip6", false, netip.MustParseAddr("fd00:201::1"), netip.MustParseAddr("fd00:201::2")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := open(tc.udp, nsA, tc.a), open(tc.udp, nsB, tc.b)
			max := 1500 - a.Overhead(tc.b)
			pkts := newPackets(3, 2048)
			fill(pkts, 0, max, b.LocalAddr())
			pkts[1].N = max + 1
			n, err := a.WriteBatch(pkts)
			if n != 1 || !errors.Is(err, ErrPacketTooBig) {
				t.Fatalf("WriteBatch = %d, %v; want 1, ErrPacketTooBig", n, err)
			}
			if n, err := a.WriteBatch(pkts[2:]); n != 1 || err != nil {
				t.Fatalf("WriteBatch of the rest = %d, %v", n, err)
			}
			b.SetReadDeadline(time.Now().Add(5 * time.Second))
			in := newPackets(4, 2048)
			for got := 0; got < 2; {
				k, err := b.ReadBatch(in)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range in[:k] {
					if p.N != max {
						t.Errorf("received %d bytes, want %d", p.N, max)
					}
				}
				got += k
			}
		})
	}
}

// BenchmarkRawIPRoundTrip writes 32 packets of 1452 bytes over raw IPv4
// between two network namespaces (veth) and reads them all back on one
// goroutine: the ceiling for plain SCTP on the wire.
func BenchmarkRawIPRoundTrip(b *testing.B) {
	nsA, nsB := netnsPair(b)
	for _, nb := range []bool{true, false} {
		name := "mmsg"
		if nb {
			name = "single"
		}
		b.Run(name, func(b *testing.B) {
			var tx, rx *IPConn
			var errA, errB error
			inNetns(b, nsA, func() { tx, errA = ListenIP(IPConfig{Addr: netip.MustParseAddr("10.201.0.1"), NoBatch: nb}) })
			inNetns(b, nsB, func() { rx, errB = ListenIP(IPConfig{Addr: netip.MustParseAddr("10.201.0.2"), NoBatch: nb}) })
			if errA != nil || errB != nil {
				b.Fatal(errA, errB)
			}
			defer tx.Close()
			defer rx.Close()
			benchRoundTrip(b, tx, rx)
		})
	}
}
