//go:build linux

package netio

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEnableECNSendsECT0: after EnableECN, every datagram a UDP
// encapsulation socket sends, batched (sendmmsg, GSO runs) or not,
// leaves with ECT(0) in the IPv4 header, as a receiver reading the TOS
// byte (IP_RECVTOS) sees; without it, Not-ECT.
func TestEnableECNSendsECT0(t *testing.T) {
	for _, enable := range []bool{false, true} {
		rc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		sc, err := rc.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var serr error
		sc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVTOS, 1) })
		if serr != nil {
			t.Skip("IP_RECVTOS:", serr)
		}
		c, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if enable {
			if err := EnableECN(c); err != nil {
				t.Fatal(err)
			}
		}
		to := rc.LocalAddr().(*net.UDPAddr).AddrPort()
		pkts := make([]Packet, 4)
		for i := range pkts {
			pkts[i] = Packet{Buf: make([]byte, 200), N: 200, Addr: to}
		}
		if _, err := c.WriteBatch(pkts); err != nil {
			t.Fatal(err)
		}
		buf, oob := make([]byte, 2048), make([]byte, 64)
		rc.SetReadDeadline(time.Now().Add(5 * time.Second))
		for i := range pkts {
			_, oobn, _, _, err := rc.ReadMsgUDP(buf, oob)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				t.Fatal(err)
			}
			got := -1
			for _, m := range msgs {
				if m.Header.Level == unix.IPPROTO_IP && m.Header.Type == unix.IP_TOS && len(m.Data) > 0 {
					got = int(m.Data[0] & 3)
				}
			}
			want := NotECT
			if enable {
				want = ECT0
			}
			if got != want {
				t.Fatalf("EnableECN %v: datagram %d ECN field %d, want %d", enable, i, got, want)
			}
		}
	}
}

// TestEnableECNReadsField: after EnableECN a UDP encapsulation socket
// reports the ECN field of each datagram it reads (IP_RECVTOS), with
// plain batches, with GRO and with the local address (pktinfo) on a
// wildcard socket; datagrams sent CE read as CE and Not-ECT ones as 0.
func TestEnableECNReadsField(t *testing.T) {
	for _, tc := range []struct {
		name     string
		gro, any bool
	}{{"batch", false, false}, {"gro", true, false}, {"pktinfo", false, true}, {"gro+pktinfo", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			addr := netip.AddrPortFrom(loopback(false), 0)
			if tc.any {
				addr = netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
			}
			c, err := ListenUDP(UDPConfig{Addr: addr, GRO: tc.gro})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := EnableECN(c); err != nil {
				t.Fatal(err)
			}
			s, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sc, _ := s.SyscallConn()
			setTOS := func(tos int) {
				var serr error
				sc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS, tos) })
				if serr != nil {
					t.Fatal(serr)
				}
			}
			to := net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), c.LocalAddr().Port()))
			want := []uint8{CE, CE, NotECT, ECT0, CE}
			for _, e := range want {
				setTOS(int(e))
				if _, err := s.WriteToUDP(make([]byte, 100), to); err != nil {
					t.Fatal(err)
				}
			}
			pkts := make([]Packet, 8)
			for i := range pkts {
				pkts[i].Buf = make([]byte, 2048)
				pkts[i].ECN = 1 // stale: every read must overwrite it
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			var got []uint8
			for len(got) < len(want) {
				n, err := c.ReadBatch(pkts)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range pkts[:n] {
					got = append(got, p.ECN)
					if tc.any && !p.Local.IsValid() {
						t.Errorf("no local address with pktinfo")
					}
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("ECN fields %v, want %v", got, want)
				}
			}
		})
	}
}
