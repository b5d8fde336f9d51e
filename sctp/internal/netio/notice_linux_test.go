//go:build linux

package netio

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// closedUDPPort returns a loopback address and UDP port that answers
// with ICMP port unreachable and that no other program can take while
// the test runs: a socket the test holds is bound to it and connected
// elsewhere (port 9), so the kernel delivers it nothing from anyone else
// and answers their datagrams as for a port nobody holds.
func closedUDPPort(t testing.TB, v6 bool) netip.AddrPort {
	t.Helper()
	c, err := net.DialUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(loopback(v6), 0)),
		net.UDPAddrFromAddrPort(netip.AddrPortFrom(loopback(v6), 9)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return netip.AddrPortFrom(loopback(v6), netAddrPort(c.LocalAddr()).Port())
}

// readNotice calls send, then reads from c until a notice arrives and
// returns it; received packets fail the test. ICMP errors are rate-limited
// by the kernel (per destination and host-wide, which other tests share),
// so send runs again every 500 ms, 10 times at most.
func readNotice(t testing.TB, c Conn, send func()) Packet {
	t.Helper()
	defer c.SetReadDeadline(time.Time{})
	pkts := newPackets(8, 2048)
	for try := 0; ; try++ {
		send()
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := c.ReadBatch(pkts)
		if errors.Is(err, os.ErrDeadlineExceeded) && try < 10 {
			continue
		}
		if err != nil {
			t.Fatalf("ReadBatch after %d sends: %v", try+1, err)
		}
		for _, p := range pkts[:n] {
			if p.Notice == NoticeNone {
				t.Fatalf("a packet from %v, want a notice", p.Addr)
			}
		}
		return pkts[0]
	}
}

// TestUDPNoticeRefused: a datagram to a UDP port where nothing listens
// comes back as ICMP port unreachable, which a conn with Notices reads as
// NoticeRefused for the destination, quoting the SCTP packet sent, with
// the kernel's errno for it (ECONNREFUSED).
func TestUDPNoticeRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		local netip.AddrPort
		v6    bool
	}{
		{"v4", netip.AddrPortFrom(loopback(false), 0), false},
		{"v6", netip.AddrPortFrom(loopback(true), 0), true},
		{"dual-stack-to-v4", netip.AddrPortFrom(netip.IPv6Unspecified(), 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, gro := range []bool{false, true} {
				c, err := ListenUDP(UDPConfig{Addr: tc.local, Notices: true, GRO: gro})
				if err != nil {
					t.Fatal(err)
				}
				dst := closedUDPPort(t, tc.v6)
				pkts := newPackets(1, 2048)
				fill(pkts, 7, 100, dst)
				p := readNotice(t, c, func() {
					if n, err := c.WriteBatch(pkts); n != 1 {
						t.Fatalf("WriteBatch = %d, %v", n, err)
					}
				})
				if p.Notice != NoticeRefused || p.Addr != dst || p.Errno != unix.ECONNREFUSED {
					t.Errorf("gro %v: notice %v (%v) for %v, want refused (ECONNREFUSED) for %v", gro, p.Notice, p.Errno, p.Addr, dst)
				}
				if want := pkts[0].Buf[:min(100, maxNoticeQuote)]; !bytes.Equal(p.Data(), want) {
					t.Errorf("gro %v: quoted %x, want %x", gro, p.Data(), want)
				}
				if st := c.Stats(); st.Notices == 0 {
					t.Errorf("gro %v: Stats.Notices = 0", gro)
				}
				// The conn goes on receiving packets after the notice.
				peer, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(tc.v6), 0)})
				if err != nil {
					t.Fatal(err)
				}
				fill(pkts, 9, 64, netip.AddrPortFrom(loopback(tc.v6), c.LocalAddr().Port()))
				if n, err := peer.WriteBatch(pkts); n != 1 {
					t.Fatalf("peer WriteBatch = %d, %v", n, err)
				}
				recvAll(t, c, 1, 64, peer.LocalAddr())
				peer.Close()
				c.Close()
			}
		})
	}
}

// TestUDPNoNoticesByDefault: without Notices the kernel keeps ICMP errors
// from an unconnected UDP socket, and reads see only packets.
func TestUDPNoNoticesByDefault(t *testing.T) {
	a, b := udpPair(t, false, UDPConfig{})
	pkts := newPackets(1, 2048)
	fill(pkts, 1, 64, closedUDPPort(t, false))
	if n, err := a.WriteBatch(pkts); n != 1 {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	fill(pkts, 2, 64, b.LocalAddr())
	if n, err := a.WriteBatch(pkts); n != 1 {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	fill(pkts, 3, 64, a.LocalAddr())
	if n, err := b.WriteBatch(pkts); n != 1 {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	recvAll(t, a, 1, 64, b.LocalAddr())
}

// TestNoticeClassify checks the meaning given to each ICMP and ICMPv6
// error (RFC 792, RFC 1191, RFC 4443) and to local errors.
func TestNoticeClassify(t *testing.T) {
	for _, c := range []struct {
		origin, typ, code uint8
		errno, info       uint32
		kind              NoticeKind
		mtu               int
	}{
		{unix.SO_EE_ORIGIN_ICMP, 3, 3, 0, 0, NoticeRefused, 0},      // port unreachable
		{unix.SO_EE_ORIGIN_ICMP, 3, 2, 0, 0, NoticeRefused, 0},      // protocol unreachable
		{unix.SO_EE_ORIGIN_ICMP, 3, 1, 0, 0, NoticeUnreachable, 0},  // host unreachable
		{unix.SO_EE_ORIGIN_ICMP, 3, 13, 0, 0, NoticeUnreachable, 0}, // administratively prohibited
		{unix.SO_EE_ORIGIN_ICMP, 3, 4, 0, 1400, NoticeTooBig, 1400}, // fragmentation needed
		{unix.SO_EE_ORIGIN_ICMP, 11, 0, 0, 0, NoticeUnreachable, 0}, // time exceeded
		{unix.SO_EE_ORIGIN_ICMP, 12, 0, 0, 0, NoticeNone, 0},        // parameter problem
		{unix.SO_EE_ORIGIN_ICMP6, 1, 4, 0, 0, NoticeRefused, 0},     // port unreachable
		{unix.SO_EE_ORIGIN_ICMP6, 1, 0, 0, 0, NoticeUnreachable, 0}, // no route
		{unix.SO_EE_ORIGIN_ICMP6, 2, 0, 0, 1280, NoticeTooBig, 1280},
		{unix.SO_EE_ORIGIN_ICMP6, 3, 0, 0, 0, NoticeUnreachable, 0},
		{unix.SO_EE_ORIGIN_ICMP6, 4, 1, 0, 0, NoticeRefused, 0}, // unrecognized next header: no SCTP
		{unix.SO_EE_ORIGIN_ICMP6, 4, 0, 0, 0, NoticeNone, 0},
		{unix.SO_EE_ORIGIN_LOCAL, 0, 0, uint32(unix.EMSGSIZE), 1500, NoticeLocalTooBig, 1500},
		{unix.SO_EE_ORIGIN_LOCAL, 0, 0, uint32(unix.ENOBUFS), 0, NoticeNone, 0},
	} {
		kind, mtu := classify(c.origin, c.typ, c.code, c.errno, c.info)
		if kind != c.kind || mtu != c.mtu {
			t.Errorf("origin %d type %d code %d errno %d: %v %d, want %v %d", c.origin, c.typ, c.code, c.errno, kind, mtu, c.kind, c.mtu)
		}
	}
}

// TestRawIPNoticeRefused: over raw IP, a host with no SCTP socket answers
// ICMP protocol unreachable, which a conn with Notices reads as
// NoticeRefused (namespace b has no raw SCTP socket open).
func TestRawIPNoticeRefused(t *testing.T) {
	nsA, _ := netnsPair(t)
	for _, tc := range []struct{ name, local, remote string }{
		{"v4", "10.201.0.1", "10.201.0.2"},
		{"v6", "fd00:201::1", "fd00:201::2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a *IPConn
			var err error
			inNetns(t, nsA, func() { a, err = ListenIP(IPConfig{Addr: netip.MustParseAddr(tc.local), Notices: true}) })
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			dst := netip.AddrPortFrom(netip.MustParseAddr(tc.remote), 0)
			pkts := newPackets(1, 2048)
			fill(pkts, 5, 80, dst)
			p := readNotice(t, a, func() {
				if n, err := a.WriteBatch(pkts); n != 1 {
					t.Fatalf("WriteBatch = %d, %v", n, err)
				}
			})
			if p.Notice != NoticeRefused || p.Addr != dst {
				t.Errorf("notice %v for %v, want refused for %v", p.Notice, p.Addr, dst)
			}
			if want := pkts[0].Buf[:80]; !bytes.Equal(p.Data(), want) {
				t.Errorf("quoted %x, want %x", p.Data(), want)
			}
		})
	}
}

// TestUDPNoticeAfterQueuedPackets: the kernel reports an ICMP error to
// the next recvmmsg ahead of the datagrams queued before it came; a conn
// with Notices still returns those datagrams first, then the notice. (An
// SCTP endpoint whose peer sent SHUTDOWN COMPLETE and closed its socket
// must complete the shutdown, not abort the association for the port
// unreachable of a retransmission that crossed it.)
func TestUDPNoticeAfterQueuedPackets(t *testing.T) {
	for _, gro := range []bool{false, true} {
		c, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), Notices: true, GRO: gro})
		if err != nil {
			t.Fatal(err)
		}
		peer, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0)})
		if err != nil {
			t.Fatal(err)
		}
		dst := closedUDPPort(t, false)
		pkts := newPackets(2, 2048)
		for try := 0; ; try++ {
			// A datagram queued, then the error of a send to dst.
			fill(pkts[:1], 9, 64, c.LocalAddr())
			if n, err := peer.WriteBatch(pkts[:1]); n != 1 {
				t.Fatalf("peer WriteBatch = %d, %v", n, err)
			}
			fill(pkts[:1], 7, 100, dst)
			if n, err := c.WriteBatch(pkts[:1]); n != 1 {
				t.Fatalf("WriteBatch = %d, %v", n, err)
			}
			// Wait until the error is queued: POLLERR (ICMP errors are
			// rate-limited: the send is tried again).
			var revents int16
			c.b.(*batchIO).rc.Control(func(fd uintptr) {
				fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
				if n, _ := unix.Poll(fds, 500); n == 1 {
					revents = fds[0].Revents
				}
			})
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			in := newPackets(1, 2048)
			n, err := c.ReadBatch(in)
			if err != nil || n != 1 || in[0].Notice != NoticeNone || in[0].Addr != peer.LocalAddr() {
				t.Fatalf("gro %v: read %d %v (%v from %v), want the datagram queued before the error first",
					gro, n, err, in[0].Notice, in[0].Addr)
			}
			if revents&unix.POLLERR == 0 {
				if try == 10 {
					t.Fatalf("gro %v: no ICMP error in 10 sends", gro)
				}
				continue
			}
			if n, err = c.ReadBatch(in); err != nil || n != 1 || in[0].Notice != NoticeRefused || in[0].Addr != dst {
				t.Fatalf("gro %v: then read %d %v (%v from %v), want the notice for %v", gro, n, err, in[0].Notice, in[0].Addr, dst)
			}
			break
		}
		peer.Close()
		c.Close()
	}
}
