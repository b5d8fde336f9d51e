package assoc

import (
	"encoding/binary"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"

	"github.com/usctp/usctp/internal/testsupport"
)

// An INIT flood costs no memory: the endpoint answers each INIT from the
// same reply buffers and keeps nothing (RFC 9260 section 5.1: "Otherwise,
// "Z" will be vulnerable to resource attacks."). 100,000 INITs from
// different addresses and ports leave the heap where it was.
func TestInitFloodMemoryFlat(t *testing.T) {
	cfg := testConfig()
	cfg.InitRate = -1 // every INIT answered (the limit would drop most)
	tc := newTestEndpoint(t, cfg)
	pkt := func(i int) []byte {
		b := appendHeader(nil, uint16(1024+i%60000), tc.lport, 0)
		b = append(b, initChunk(chunk.TypeInit, uint32(i)|1, 65536, 10, 10, uint32(i))...)
		return finishPacket(b, 0)
	}
	buf := make([]byte, 0, 2048)
	flood := func(n int) {
		for i := range n {
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 9899)
			tc.ep.receive(tc.now, from, pkt(i))
			if i%4 == 0 { // the shell drains replies now and then
				for {
					if _, ok := tc.ep.Poll(tc.now, buf[:0]); !ok {
						break
					}
				}
			}
		}
	}
	flood(1000) // warm up
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	n := 100000
	if testsupport.RaceEnabled {
		n = 20000
	}
	flood(n)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if len(tc.ep.assocs) != 0 || len(tc.ep.tags) != 0 {
		t.Fatalf("flood left %d associations", len(tc.ep.assocs))
	}
	growth := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("heap before %d B, after %d INITs %d B (growth %d B); INITs answered %d, replies dropped %d",
		m0.HeapAlloc, n, m1.HeapAlloc, growth, tc.ep.stats.InitsIn, tc.ep.repliesLost)
	if growth > 64<<10 {
		t.Fatalf("heap grew by %d bytes during an INIT flood", growth)
	}
}

// The stateless INIT answer allocates nothing per INIT, nor does the rate
// limit that drops INITs beyond it.
func TestInitAnswerNoAllocs(t *testing.T) {
	for _, rate := range []int{-1, 0} {
		cfg := testConfig()
		cfg.InitRate = rate
		tc := newTestEndpoint(t, cfg)
		b := appendHeader(nil, 7000, tc.lport, 0)
		b = append(b, initChunk(chunk.TypeInit, 77, 65536, 10, 10, 1)...)
		b = finishPacket(b, 0)
		buf := make([]byte, 0, 2048)
		n := testing.AllocsPerRun(1000, func() {
			tc.ep.receive(tc.now, peerAddr, b)
			tc.ep.Poll(tc.now, buf[:0])
		})
		if n > 0 {
			t.Fatalf("InitRate %d: %v allocations per INIT", rate, n)
		}
		if s := tc.ep.Stats(); rate < 0 && s.RateLimited != 0 || rate == 0 && s.RateLimited == 0 {
			t.Fatalf("InitRate %d: %d INITs limited", rate, s.RateLimited)
		}
	}
}

// Forged verification tags never reach the state machine: a blind attacker
// sending ABORT, SHUTDOWN, DATA and SACK with guessed tags changes nothing.
func TestForgedVerificationTags(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	r := newTestRand(3)
	var tb [4]byte
	n := 10000
	if testsupport.RaceEnabled {
		n = 1000
	}
	for range n {
		r.Read(tb[:])
		tag := binary.BigEndian.Uint32(tb[:])
		if tag == tc.a.localTag || tag == tc.a.peerTag {
			continue
		}
		tc.writePacket(tag, chunkOf(chunk.TypeAbort, 0, nil))
		tc.writePacket(tag, chunkOf(chunk.TypeAbort, 1, nil))
		tc.writePacket(tag, chunkOf(chunk.TypeShutdown, 0, u32(1)))
		tc.writePacket(tag, chunkOf(chunk.TypeShutdownComplete, 1, nil))
		tc.writePacket(tag, dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("x")))
	}
	tc.wantIdle()
	tc.wantNoEvent()
	tc.wantState(stateEstablished)
	if got := tc.a.stats.BadVTag; got != uint64(5*n) {
		t.Fatalf("BadVTag %d, want %d", got, 5*n)
	}
}

// A cookie replayed after its lifetime gets a Stale Cookie error and no
// association, even with a valid MAC; a cookie replayed within its lifetime
// to an endpoint where the association already exists is a duplicate
// (action D) and creates nothing new.
func TestCookieReplay(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tag := tc.a.localTag
	// Close it, then replay its cookie: still within lifetime, the cookie
	// is valid and rebuilds an association (this is why cookies have a
	// short life); after the lifetime it is stale.
	tc.writeChunks(chunkOf(chunk.TypeAbort, 0, nil))
	tc.wantCommLost()
	tc2 := newTestEndpoint(t, testConfig())
	tc2.writePacket(0, tc2.peerInit())
	_, c := tc2.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	ck := append([]byte(nil), in.cookie...)
	tc2.now = tc2.now.Add(61 * time.Second)
	tc2.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc2.wantChunk(chunk.TypeError)
	if len(tc2.ep.assocs) != 0 {
		t.Fatal("stale replayed cookie created an association")
	}
	_ = tag
}

// Truncations of valid packets and bad checksums are dropped and counted.
func TestMalformedPackets(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	b := appendHeader(nil, tc.pport, tc.lport, tc.a.localTag)
	b = append(b, dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("hello world"))...)
	b = append(b, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x")))...)
	b = finishPacket(b, 0)
	for n := range len(b) {
		p := append([]byte(nil), b[:n]...)
		if n >= 12 {
			finishPacket(p, 0)
		}
		tc.ep.receive(tc.now, tc.peer, p)
	}
	bad := append([]byte(nil), b...)
	bad[len(bad)-1] ^= 1
	tc.ep.receive(tc.now, tc.peer, bad)
	s := tc.ep.Stats()
	if s.BadChecksum != 1 || s.Malformed == 0 {
		t.Fatalf("BadChecksum %d Malformed %d", s.BadChecksum, s.Malformed)
	}
}

// Many associations: the endpoint's next deadline comes from a heap, and
// timers of thousands of associations all fire.
func TestManyAssociationsTimers(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	const n = 2000
	for i := range n {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 9899)
		if _, err := tc.ep.connect(tc.now, from, 5000, 6000); err != nil {
			t.Fatal(err)
		}
	}
	if d := tc.ep.Deadline(); !d.Equal(tc.now.Add(time.Second)) {
		t.Fatalf("deadline %v, want T1-init in 1s", d.Sub(tc.now))
	}
	buf := make([]byte, 0, 2048)
	inits := 0
	for {
		if _, ok := tc.ep.Poll(tc.now, buf[:0]); !ok {
			break
		}
		inits++
	}
	for tc.ep.Deadline().Before(tc.now.Add(10 * time.Minute)) {
		tc.now = tc.ep.Deadline()
		tc.ep.Expire(tc.now)
		for {
			_, ok := tc.ep.Poll(tc.now, buf[:0])
			if !ok {
				break
			}
			inits++
		}
		tc.drainEvents()
		if len(tc.ep.assocs) == 0 {
			break
		}
	}
	// Each association sends its INIT 1 + Max.Init.Retransmits times and
	// then gives up.
	if len(tc.ep.assocs) != 0 || inits != n*(1+tc.ep.cfg.MaxInitRetransmits) {
		t.Fatalf("%d associations left, %d INITs sent", len(tc.ep.assocs), inits)
	}
	if tc.ep.timerq.h.Len() != 0 {
		t.Fatalf("%d timer entries left", tc.ep.timerq.h.Len())
	}
}

// RFC 9260 section 5.1: "If an endpoint receives an INIT, INIT ACK, or
// COOKIE ECHO chunk but decides not to establish the new association due to
// missing mandatory parameters in the received INIT or INIT ACK chunk,
// invalid parameter values, or lack of local resources, it SHOULD respond
// with an ABORT chunk." With MaxAssociations reached, a valid COOKIE ECHO
// gets an ABORT with "Out of Resource".
func TestMaxAssociations(t *testing.T) {
	cfg := testConfig()
	cfg.MaxAssociations = 1
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	tc.pport++
	tag, ck := tc.cookieFor(0x4242)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	p, c := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 0x4242 || firstCause(c.value()) != chunk.CauseOutOfResource {
		t.Fatalf("ABORT tag %08x cause %d", p.p.vtag, firstCause(c.value()))
	}
	if len(tc.ep.assocs) != 1 || tc.ep.stats.AssocsRefused != 1 {
		t.Fatalf("%d associations, %d refused", len(tc.ep.assocs), tc.ep.stats.AssocsRefused)
	}
	if _, err := tc.ep.connect(tc.now, peerAddr2, 1, 2); err == nil {
		t.Fatal("connect beyond MaxAssociations accepted")
	}
}
