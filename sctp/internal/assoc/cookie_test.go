package assoc

import (
	"math/rand/v2"
	"net/netip"
	"reflect"
	"testing"
	"time"
)

// testRand is a deterministic random source for tests.
type testRand struct{ r *rand.ChaCha8 }

func newTestRand(seed byte) *testRand {
	var s [32]byte
	s[0] = seed
	return &testRand{rand.NewChaCha8(s)}
}

func (t *testRand) Read(b []byte) (int, error) { return t.r.Read(b) }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testCookie() cookie {
	return cookie{
		created: t0, life: 60 * time.Second, peerPort: 5000, localPort: 5001,
		localTag: 0x11111111, peerTag: 0x22222222, localTie: 3, peerTie: 4,
		localTSN: 100, peerTSN: 200, peerRwnd: 65536,
		localOS: 10, localMIS: 20, peerOS: 30, peerMIS: 40, peerExt: extForwardTSN | extIData,
	}
}

func TestCookieRoundTrip(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	b := j.appendCookie(nil, &c)
	if len(b) != cookieLen {
		t.Fatalf("cookie length %d, want %d", len(b), cookieLen)
	}
	var got cookie
	if r := j.openCookie(b, netip.AddrPort{}, &got); r != cookieOK {
		t.Fatalf("openCookie = %v", r)
	}
	got.generation = 0
	if !got.created.Equal(c.created) {
		t.Fatalf("created %v, want %v", got.created, c.created)
	}
	got.created = c.created
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("got %+v\nwant %+v", got, c)
	}
}

// RFC 9260 section 5.1.5: "If this comparison fails, the SCTP packet,
// including the COOKIE ECHO chunk and any DATA chunks, MUST be silently
// discarded." Every single-bit change of a cookie must fail the MAC.
func TestCookieForgeryEveryBit(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	b := j.appendCookie(nil, &c)
	var got cookie
	for i := range len(b) * 8 {
		f := append([]byte(nil), b...)
		f[i/8] ^= 1 << (i % 8)
		if r := j.openCookie(f, netip.AddrPort{}, &got); r == cookieOK {
			t.Fatalf("bit %d flipped: cookie accepted", i)
		}
	}
	for n := range len(b) {
		if r := j.openCookie(b[:n], netip.AddrPort{}, &got); r != cookieMalformed {
			t.Fatalf("prefix %d: %v, want malformed", n, r)
		}
	}
}

// RFC 9260 section 5.1.5: "If secrets are kept only for a limited amount of
// time and the secret key to use is not available anymore, the packet
// containing the COOKIE ECHO chunk MUST be silently discarded."
func TestCookieSecretRotation(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	b := j.appendCookie(nil, &c)
	var got cookie
	j.rotate(t0.Add(59 * time.Minute))
	if r := j.openCookie(b, netip.AddrPort{}, &got); r != cookieOK {
		t.Fatalf("before rotation: %v", r)
	}
	j.rotate(t0.Add(61 * time.Minute))
	if r := j.openCookie(b, netip.AddrPort{}, &got); r != cookieOK {
		t.Fatalf("after one rotation (previous secret kept): %v", r)
	}
	b2 := j.appendCookie(nil, &c)
	j.rotate(t0.Add(122 * time.Minute))
	if r := j.openCookie(b, netip.AddrPort{}, &got); r == cookieOK {
		t.Fatalf("after two rotations: old cookie accepted")
	}
	if r := j.openCookie(b2, netip.AddrPort{}, &got); r != cookieOK {
		t.Fatalf("cookie of the previous secret: %v", r)
	}
}

func TestCookieStaleness(t *testing.T) {
	c := testCookie()
	if d := c.staleness(t0.Add(time.Minute)); d != 0 {
		t.Fatalf("at end of life: staleness %v", d)
	}
	if d := c.staleness(t0.Add(time.Minute + 1500*time.Microsecond)); d != 1500*time.Microsecond {
		t.Fatalf("staleness %v", d)
	}
}

func TestCookieNoAllocs(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	buf := make([]byte, 0, 128)
	var got cookie
	n := testing.AllocsPerRun(100, func() {
		b := j.appendCookie(buf[:0], &c)
		j.openCookie(b, netip.AddrPort{}, &got)
	})
	if n != 0 {
		t.Fatalf("%v allocations per cookie sign+verify", n)
	}
}

// The MAC covers the address the INIT ACK went to: the same cookie echoed
// from another address is rejected.
func TestCookieBoundToPeerAddress(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	c.peer = netip.MustParseAddrPort("192.0.2.1:9899")
	b := j.appendCookie(nil, &c)
	var got cookie
	if r := j.openCookie(b, c.peer, &got); r != cookieOK {
		t.Fatalf("from the INIT's address: %v", r)
	}
	if r := j.openCookie(b, netip.MustParseAddrPort("192.0.2.1:9898"), &got); r != cookieBadMAC {
		t.Fatalf("from another port: %v", r)
	}
	if r := j.openCookie(b, netip.MustParseAddrPort("198.51.100.1:9899"), &got); r != cookieBadMAC {
		t.Fatalf("from another address: %v", r)
	}
}

// A cookie carrying the peer's other addresses (Config.Paths.Multihoming) opens
// with them; one whose address count disagrees with its length, or whose
// addresses were changed, does not.
func TestCookieAddresses(t *testing.T) {
	j := newCookieJar(newTestRand(1), time.Hour, t0)
	c := testCookie()
	for _, s := range []string{"192.0.2.7", "2001:db8::7"} {
		a16 := netip.MustParseAddr(s).As16()
		c.addrs = append(c.addrs, a16[:]...)
	}
	b := j.appendCookie(nil, &c)
	if len(b) != cookieLen+1+32 {
		t.Fatalf("cookie length %d", len(b))
	}
	var got cookie
	if r := j.openCookie(b, netip.AddrPort{}, &got); r != cookieOK || string(got.addrs) != string(c.addrs) {
		t.Fatalf("openCookie = %v, addresses %x", r, got.addrs)
	}
	bad := append([]byte(nil), b...)
	bad[cookieBody] = 3
	if r := j.openCookie(bad, netip.AddrPort{}, &got); r != cookieMalformed {
		t.Fatalf("wrong address count: %v", r)
	}
	bad[cookieBody] = 2
	bad[cookieBody+5] ^= 1
	if r := j.openCookie(bad, netip.AddrPort{}, &got); r != cookieBadMAC {
		t.Fatalf("changed address: %v", r)
	}
}
