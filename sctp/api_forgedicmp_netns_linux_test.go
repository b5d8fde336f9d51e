//go:build linux

package sctp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// TestForgedICMPNetns: one forged ICMP "fragmentation needed, MTU 68",
// which needs no verification tag (it quotes any UDP socket of the host),
// lowers the kernel's route MTU to the peer to 552 bytes. RFC 8899
// section 5.1.2: "a default BASE_PLPMTU of 1200 bytes", below which the
// search never goes, and section 4.6.1 has an ICMP message validated
// before it is used. A new association to that peer still starts its
// search at BASE_PLPMTU and settles on the link's 1500 bytes; with path
// MTU discovery off, it sends whole 1500-byte packets (the kernel
// fragments none of them).
func TestForgedICMPNetns(t *testing.T) {
	nsA, nsB := netnstest.Pair(t, "usctp-ficmp", "f0", 36)
	const client, server = "10.201.36.1", "10.201.36.2"
	var err error
	// Any UDP socket of the client host.
	var sock net.PacketConn
	inNs(t, nsA, func() { sock, err = net.ListenPacket("udp4", client+":40000") })
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	forgeFragNeeded(t, nsB, client, server, 40000, 9899, 68)
	var route int
	inNs(t, nsA, func() {
		r, err := netio.NewRouteProbe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// The kernel takes the ICMP in its own time: poll (real sockets).
		for start := time.Now(); time.Since(start) < time.Second; time.Sleep(5 * time.Millisecond) {
			if route = r.MTU(netip.MustParseAddr(server)); route < 1200 {
				break
			}
		}
	})
	if route >= 1200 {
		t.Skipf("the kernel did not take the forged ICMP (route MTU %d): nothing to test", route)
	}
	t.Logf("route MTU after the forged ICMP: %d", route)

	var l *Endpoint
	inNs(t, nsB, func() { l, err = Listen(server+":5000", &Config{UDPPort: 9899}) })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, pmtud := range []bool{true, false} {
		var c *Association
		inNs(t, nsA, func() {
			c, err = Dial(ctx, server+":5000", &Config{RemoteUDPPort: 9899, DisablePMTUDiscovery: !pmtud})
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.ep.cfg.MTU < 1200 {
			t.Errorf("discovery %v: Config.MTU %d from the poisoned route, want at least BASE_PLPMTU", pmtud, c.ep.cfg.MTU)
		}
		const want = 1500 - 28 // IPv4 and UDP headers
		if pmtud {
			start := time.Now()
			for c.Paths()[0].PMTU != PMTUSearchComplete { // polling real sockets
				if time.Since(start) > 20*time.Second {
					t.Fatalf("search not complete after 20 s: %+v", c.Paths())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if p := c.Paths()[0]; p.MTU != want {
				t.Errorf("PLPMTU %d, want the link's %d (BASE_PLPMTU is 1200)", p.MTU, want)
			}
		}
		var before int
		inNs(t, nsA, func() { before = fragCreates(t) })
		msg := bytes.Repeat([]byte{7}, 1400)
		buf := make([]byte, 65536)
		for range 20 {
			if _, err := c.WriteMsg(msg, SendInfo{}); err != nil {
				t.Fatal(err)
			}
			if n, _, err := s.ReadMsg(buf); err != nil || n != len(msg) {
				t.Fatalf("read %d, %v", n, err)
			}
		}
		var after int
		inNs(t, nsA, func() { after = fragCreates(t) })
		if after != before {
			t.Errorf("discovery %v: the client's kernel created %d IP fragments", pmtud, after-before)
		}
		c.Close()
		s.Close()
	}
}

// forgeFragNeeded sends, from namespace ns, an ICMP destination
// unreachable "fragmentation needed" with MTU mtu to src, quoting a UDP
// datagram from src:sport to dst:dport.
func forgeFragNeeded(t *testing.T, ns, src, dst string, sport, dport uint16, mtu int) {
	t.Helper()
	quote := make([]byte, 28)
	quote[0] = 0x45
	binary.BigEndian.PutUint16(quote[2:], 1500)
	binary.BigEndian.PutUint16(quote[6:], 0x4000) // DF
	quote[8], quote[9] = 64, 17
	copy(quote[12:], net.ParseIP(src).To4())
	copy(quote[16:], net.ParseIP(dst).To4())
	binary.BigEndian.PutUint16(quote[10:], inetChecksum(quote[:20]))
	binary.BigEndian.PutUint16(quote[20:], sport)
	binary.BigEndian.PutUint16(quote[22:], dport)
	binary.BigEndian.PutUint16(quote[24:], 1480)
	msg := []byte{3, 4, 0, 0, 0, 0, byte(mtu >> 8), byte(mtu)}
	msg = append(msg, quote...)
	binary.BigEndian.PutUint16(msg[2:], inetChecksum(msg))
	inNs(t, ns, func() {
		c, err := net.ListenPacket("ip4:icmp", "0.0.0.0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.WriteTo(msg, &net.IPAddr{IP: net.ParseIP(src)}); err != nil {
			t.Fatal(err)
		}
	})
}

// inetChecksum is the Internet checksum (RFC 1071) of b.
func inetChecksum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// fragCreates returns the IP fragments the calling thread's network
// namespace created (/proc/net/snmp's Ip FragCreates).
func fragCreates(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/thread-self/net/snmp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var names []string
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "Ip:" {
			continue
		}
		if names == nil {
			names = fields
			continue
		}
		for i, n := range names {
			if n == "FragCreates" && i < len(fields) {
				v, _ := strconv.Atoi(fields[i])
				return v
			}
		}
	}
	t.Fatal("no Ip FragCreates in /proc/net/snmp")
	return 0
}
