package assoc

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

func addrs(s string) []netip.Addr {
	var out []netip.Addr
	for _, f := range strings.Fields(s) {
		out = append(out, netip.MustParseAddr(f))
	}
	return out
}

// A host with loopback, private, global, link-local and ULA addresses on
// two interfaces (zones 2 and 3).
var testHost = addrs("127.0.0.1 ::1 10.0.0.1 192.0.2.1 169.254.1.1 198.18.0.1 fd00::1 2001:db8::1 fe80::1%2 fe80::2%3 fec0::1 10.0.1.1")

// TestAnnouncedFilter: the host's addresses listed to a peer leave out the
// packet's own source, narrower scopes than the peer's, link-local
// addresses of other interfaces, families the peer or the socket cannot
// use, and to a loopback peer all but the loopback address of its family.
func TestAnnouncedFilter(t *testing.T) {
	for _, tt := range []struct {
		name      string
		peer, src string
		peerFam   AddrFamilies
		ours      AddrFamilies
		want      string
	}{
		{"global v4 peer", "203.0.113.9", "192.0.2.1", 0, 0, "fd00::1 2001:db8::1"},
		{"private v4 peer", "10.0.0.9", "10.0.0.1", 0, 0, "192.0.2.1 198.18.0.1 10.0.1.1 fd00::1 2001:db8::1 fec0::1"},
		{"private v4 peer, IPv4 only", "10.0.0.9", "10.0.0.1", FamilyIPv4, 0, "192.0.2.1 198.18.0.1 10.0.1.1"},
		{"private v4 peer, IPv4 socket", "10.0.0.9", "10.0.0.1", 0, FamilyIPv4, "192.0.2.1 198.18.0.1 10.0.1.1"},
		{"global v6 peer", "2001:db8:9::9", "2001:db8::1", 0, 0, "fd00::1 192.0.2.1"},
		{"global v6 peer, IPv6 only", "2001:db8:9::9", "2001:db8::1", FamilyIPv6, 0, "fd00::1"},
		{"link-local peer on interface 3", "fe80::9%3", "fe80::2%3", 0, 0,
			"fd00::1 2001:db8::1 fec0::1 10.0.0.1 192.0.2.1 169.254.1.1 198.18.0.1 10.0.1.1"},
		{"link-local peer on interface 2", "fe80::9%2", "fd00::1", 0, 0,
			"2001:db8::1 fe80::1 fec0::1 10.0.0.1 192.0.2.1 169.254.1.1 198.18.0.1 10.0.1.1"},
		{"IPv4 link-local peer", "169.254.9.9", "169.254.1.1", FamilyIPv4, 0, "10.0.0.1 192.0.2.1 198.18.0.1 10.0.1.1"},
		{"loopback v4 peer", "127.0.0.1", "127.0.0.1", 0, 0, ""},
		{"loopback v4 peer, other source", "127.0.0.1", "10.0.0.1", 0, 0, "127.0.0.1"},
		{"loopback v6 peer", "::1", "::1", 0, 0, ""},
		{"mapped peer", "::ffff:203.0.113.9", "::ffff:192.0.2.1", 0, 0, "fd00::1 2001:db8::1"},
	} {
		got := announced(nil, testHost, netip.MustParseAddr(tt.peer), netip.MustParseAddr(tt.src), tt.peerFam, tt.ours)
		if want := addrs(tt.want); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tt.name, got, want)
		}
		for _, ip := range got {
			if ip.Zone() != "" {
				t.Errorf("%s: %v listed with its zone", tt.name, ip)
			}
		}
	}
	// Each address once, however often the host's list has it.
	got := announced(nil, addrs("192.0.2.1 192.0.2.1 ::ffff:192.0.2.1 192.0.2.7"), netip.MustParseAddr("203.0.113.9"), netip.Addr{}, 0, 0)
	if want := addrs("192.0.2.1 192.0.2.7"); !slices.Equal(got, want) {
		t.Errorf("duplicates: %v, want %v", got, want)
	}
}

// hostConfig is a wildcard endpoint's configuration announcing host, the
// packets to every peer leaving from src.
func hostConfig(host []netip.Addr, src string, fam AddrFamilies) Config {
	cfg := testConfig()
	cfg.Multihoming = true
	cfg.Families = fam
	cfg.HostAddrs = func(netip.Addr) ([]netip.Addr, netip.Addr) { return host, netip.MustParseAddr(src) }
	return cfg
}

// initListed returns the addresses an INIT or INIT ACK lists.
func initListed(t *testing.T, c *rxChunk) []netip.Addr {
	in := initValue(t, c)
	return in.addrs[:in.naddrs]
}

// TestInitAckListsHostAddresses: a wildcard endpoint's INIT ACK lists the
// host's addresses that suit the peer (192.0.2.2, global: no private, no
// loopback), not the one it is sent from, within four times the INIT.
func TestInitAckListsHostAddresses(t *testing.T) {
	host := addrs("127.0.0.1 192.0.2.1 198.51.100.1 10.0.0.1 2001:db8::1")
	tc := newTestEndpoint(t, hostConfig(host, "192.0.2.1", 0))
	// An INIT the size of Linux's (ECN, Forward-TSN, Supported
	// Extensions, Supported Address Types: 80 bytes or so).
	pad := param(chunk.ParamPadding, make([]byte, 40))
	tc.writePacket(0, tc.peerInit(pad))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	if got, want := initListed(t, c), addrs("198.51.100.1 2001:db8::1"); !slices.Equal(got, want) {
		t.Fatalf("INIT ACK lists %v, want %v", got, want)
	}
	// The chunk is still well formed, its cookie usable.
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.wantChunk(chunk.TypeCookieAck)
}

// TestInitAckHostAddressesWithinFourTimesTheInit: the INIT ACK answers a
// source nobody verified, so the host's addresses it lists stop where the
// answer would pass four times the INIT: a minimal INIT (32 bytes) gets
// the 124-byte INIT ACK of an endpoint without the list.
func TestInitAckHostAddressesWithinFourTimesTheInit(t *testing.T) {
	var host []netip.Addr
	for i := range 30 {
		host = append(host, netip.AddrFrom4([4]byte{198, 51, 100, byte(i + 1)}))
	}
	for _, pad := range []int{0, 16, 40, 200} {
		tc := newTestEndpoint(t, hostConfig(host, "192.0.2.1", 0))
		var params [][]byte
		if pad > 0 {
			params = append(params, param(chunk.ParamPadding, make([]byte, pad-4)))
		}
		init := tc.peerInit(params...)
		tc.writePacket(0, init)
		p, c := tc.wantChunk(chunk.TypeInitAck)
		in, out := commonHeaderLen+len(init), len(p.raw)
		n := len(initListed(t, c))
		t.Logf("INIT %d bytes: INIT ACK %d bytes (%.2fx), %d addresses", in, out, float64(out)/float64(in), n)
		if out > 4*in {
			t.Errorf("INIT of %d bytes: INIT ACK of %d", in, out)
		}
		if out+8 <= 4*in && n < len(host) {
			t.Errorf("INIT of %d bytes: %d addresses in %d bytes, room for more", in, n, out)
		}
		if pad == 0 && n != 0 {
			t.Errorf("minimal INIT: %d addresses", n)
		}
	}
}

// TestInitAckOnlyPeerSupportedAddressTypes opens with RFC 4960 section
// 5.1.2's sentence, which RFC 9260 section 5.1.2 keeps (this stack does
// not abort: a source family is always usable): "The sender of INIT may
// include a 'Supported Address Types' parameter in the INIT to indicate
// what types of address are acceptable. When this parameter is present,
// the receiver of INIT (initiate) MUST either use one of the address types
// indicated in the Supported Address Types parameter when responding to
// the INIT, or abort the association with an "Unresolvable Address" error
// cause if it is unwilling or incapable of using any of the address types
// indicated by its peer."
func TestInitAckOnlyPeerSupportedAddressTypes(t *testing.T) {
	host := addrs("192.0.2.1 198.51.100.1 2001:db8::1 2001:db8:1::1")
	big := param(chunk.ParamPadding, make([]byte, 100))
	types := func(ts ...chunk.ParamType) []byte {
		var v []byte
		for _, t := range ts {
			v = append(v, byte(t>>8), byte(t))
		}
		return param(chunk.ParamSupportedAddressTypes, v)
	}
	for _, tt := range []struct {
		name   string
		params [][]byte
		want   string
	}{
		{"none", nil, "198.51.100.1 2001:db8::1 2001:db8:1::1"},
		{"IPv4", [][]byte{types(chunk.ParamIPv4Address)}, "198.51.100.1"},
		{"IPv6 from an IPv4 source", [][]byte{types(chunk.ParamIPv6Address)}, "198.51.100.1 2001:db8::1 2001:db8:1::1"},
		{"host name only", [][]byte{types(chunk.ParamHostNameAddress)}, "198.51.100.1"},
		{"IPv4, lists an IPv6 address", [][]byte{types(chunk.ParamIPv4Address), addrParam(t, "2001:db8:2::2")}, "198.51.100.1 2001:db8::1 2001:db8:1::1"},
	} {
		tc := newTestEndpoint(t, hostConfig(host, "192.0.2.1", 0))
		tc.writePacket(0, tc.peerInit(append(tt.params, big)...))
		_, c := tc.wantChunk(chunk.TypeInitAck)
		if got, want := initListed(t, c), addrs(tt.want); !slices.Equal(got, want) {
			t.Errorf("%s: INIT ACK lists %v, want %v", tt.name, got, want)
		}
	}
}

// TestInitListsHostAddresses: a wildcard endpoint's INIT lists the host's
// addresses that suit the address it goes to (each retransmission to the
// next of the peer's addresses is filtered for that one), and an endpoint
// of one family names it in a Supported Address Types parameter.
func TestInitListsHostAddresses(t *testing.T) {
	host := addrs("127.0.0.1 192.0.2.1 198.51.100.1 10.0.0.1 2001:db8::1")
	tc := newTestEndpoint(t, hostConfig(host, "192.0.2.1", FamilyIPv4))
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{tc.peer, netip.MustParseAddrPort("10.9.9.9:6000")}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	_, c := tc.wantChunk(chunk.TypeInit)
	if got, want := initListed(t, c), addrs("198.51.100.1"); !slices.Equal(got, want) {
		t.Errorf("INIT to %v lists %v, want %v", tc.peer, got, want)
	}
	in := initValue(t, c)
	if !in.typesSeen || in.types != FamilyIPv4 {
		t.Errorf("Supported Address Types: seen %v, %v; want IPv4", in.typesSeen, in.types)
	}
	tc.advanceToTimer()
	_, c = tc.wantChunk(chunk.TypeInit)
	if got, want := initListed(t, c), addrs("198.51.100.1 10.0.0.1"); !slices.Equal(got, want) {
		t.Errorf("INIT to 10.9.9.9 lists %v, want %v", got, want)
	}
}

// TestInitLoopbackPeerListsNoOtherAddress: to a peer on loopback the
// wildcard endpoint lists none of the host's other addresses (all of them
// would be paths through the same loopback device): its INIT is the one
// of an endpoint without the list.
func TestInitLoopbackPeerListsNoOtherAddress(t *testing.T) {
	host := addrs("127.0.0.1 ::1 192.0.2.1 10.0.0.1 2001:db8::1")
	lo := netip.MustParseAddrPort("127.0.0.1:6000")
	initTo := func(cfg Config) []byte {
		tc := newTestEndpoint(t, cfg)
		a, err := tc.ep.connect(tc.now, lo, tc.lport, tc.pport)
		if err != nil {
			t.Fatal(err)
		}
		tc.a = a
		_, c := tc.wantChunk(chunk.TypeInit)
		if got := initListed(t, c); len(got) != 0 {
			t.Errorf("INIT to a loopback peer lists %v", got)
		}
		return append([]byte(nil), c.raw...)
	}
	plain := testConfig()
	plain.Multihoming = true
	if with, without := initTo(hostConfig(host, "127.0.0.1", 0)), initTo(plain); string(with) != string(without) {
		t.Errorf("INIT to a loopback peer %x, without the host's addresses %x", with, without)
	}
	tc := newTestEndpoint(t, hostConfig(host, "127.0.0.1", 0))
	tc.peer = lo
	tc.writePacket(0, tc.peerInit(param(chunk.ParamPadding, make([]byte, 100))))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	if got := initListed(t, c); len(got) != 0 {
		t.Errorf("INIT ACK to a loopback peer lists %v", got)
	}
}

// BenchmarkInitAck: the cost of answering an INIT (Linux-sized: 80 bytes)
// without and with the host's addresses (four, three of them suiting the
// peer and fitting).
func BenchmarkInitAck(b *testing.B) {
	host := addrs("127.0.0.1 192.0.2.1 198.51.100.1 2001:db8::1 2001:db8:1::1")
	for _, tc := range []struct {
		name string
		cfg  Config
	}{{"plain", testConfig()}, {"host-addrs", hostConfig(host, "192.0.2.1", 0)}} {
		b.Run(tc.name, func(b *testing.B) {
			tc.cfg.InitRate = -1
			t := newTestEndpoint(b, tc.cfg)
			pkt := finishPacket(append(appendHeader(nil, t.pport, t.lport, 0), t.peerInit(param(chunk.ParamPadding, make([]byte, 44)))...), 0)
			buf := make([]byte, 0, 2048)
			b.ReportAllocs()
			for b.Loop() {
				t.ep.receive(t.now, t.peer, pkt)
				if _, ok := t.ep.Poll(t.now, buf); !ok {
					b.Fatal("no INIT ACK")
				}
			}
		})
	}
}

// FuzzInitAckHostAddrs: an arbitrary INIT from an arbitrary peer address
// to a wildcard endpoint announcing a host of every scope. Nothing panics;
// an INIT ACK parses, lists each address once, never its own source, no
// loopback address to a peer off loopback and no link-local one to a
// peer that is not link-local, and with any address listed stays within
// four times the INIT.
func FuzzInitAckHostAddrs(f *testing.F) {
	tc := newTestEndpoint(f, testConfig())
	f.Add([]byte{192, 0, 2, 2}, tc.peerInit(param(chunk.ParamPadding, make([]byte, 40))))
	f.Add([]byte{10, 0, 0, 9}, tc.peerInit(param(chunk.ParamSupportedAddressTypes, []byte{0, 5})))
	f.Add(netip.MustParseAddr("fe80::9").AsSlice(), tc.peerInit(param(chunk.ParamSupportedAddressTypes, []byte{0, 6, 0, 5, 0, 11})))
	f.Add([]byte{127, 0, 0, 1}, tc.peerInit(addrParam(f, "2001:db8::7")))
	f.Fuzz(func(t *testing.T, peerIP, init []byte) {
		ip, ok := netip.AddrFromSlice(peerIP)
		if !ok || !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast() {
			return
		}
		if ip.Is6() && ip.IsLinkLocalUnicast() {
			ip = ip.WithZone("3")
		}
		const src = "192.0.2.1"
		tc := newTestEndpoint(t, hostConfig(testHost, src, 0))
		tc.peer = netip.AddrPortFrom(ip, 9899)
		pkt := finishPacket(append(appendHeader(nil, tc.pport, tc.lport, 0), init...), 0)
		tc.ep.receive(tc.now, tc.peer, pkt)
		tc.readPackets()
		for _, p := range tc.sent {
			if p.p.chunks[0].typ != chunk.TypeInitAck {
				continue
			}
			var in initInfo
			if !parseInit(&p.p.chunks[0], &in) {
				t.Fatalf("INIT ACK does not parse: %x", p.raw)
			}
			listed := in.addrs[:in.naddrs]
			for i, a := range listed {
				switch {
				case slices.Contains(listed[:i], a):
					t.Errorf("%v listed twice", a)
				case a == netip.MustParseAddr(src):
					t.Errorf("the source %v listed", a)
				case a.IsLoopback() && !ip.Unmap().IsLoopback():
					t.Errorf("loopback %v listed to %v", a, ip)
				case a.IsLinkLocalUnicast() && !ip.Unmap().IsLinkLocalUnicast() && !ip.Unmap().IsLoopback():
					t.Errorf("link-local %v listed to %v", a, ip)
				}
			}
			if len(listed) > 0 && len(p.raw) > 4*len(pkt) {
				t.Errorf("INIT of %d bytes: INIT ACK of %d with %d addresses", len(pkt), len(p.raw), len(listed))
			}
		}
	})
}
