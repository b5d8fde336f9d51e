package assoc

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// RFC 9260 section 8.5.1 A: "When an endpoint receives an SCTP packet with
// the Verification Tag set to 0, it SHOULD verify that the packet contains
// only an INIT chunk. Otherwise, the receiver MUST silently discard the
// packet."
func TestVTagZeroOnlyINIT(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(), chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantIdle()
	tc.writePacket(0, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x"))))
	tc.wantIdle()
	tc.writePacket(1234, tc.peerInit()) // INIT with a non-zero tag
	tc.wantIdle()
	if got := tc.ep.stats.BadVTag; got != 3 {
		t.Fatalf("BadVTag = %d, want 3", got)
	}
}

// RFC 9260 section 5.1: "After sending an INIT ACK chunk with the State
// Cookie parameter, "Z" MUST NOT allocate any resources or keep any states
// for the new association."
func TestInitKeepsNoState(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.cookieFor(tc.peerTag)
	if len(tc.ep.assocs) != 0 || len(tc.ep.tags) != 0 {
		t.Fatalf("INIT left state: %d associations, %d tags", len(tc.ep.assocs), len(tc.ep.tags))
	}
}

// RFC 9260 section 5.1: "In the response, besides filling in other
// parameters, "Z" MUST set the Verification Tag field to Tag_A and also
// provide its own Verification Tag (Tag_Z) in the Initiate Tag field."
func TestInitAckVerificationTag(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tag, ck := tc.cookieFor(0x01020304) // checks the INIT ACK's tag
	if tag == 0 || len(ck) != cookieLen {
		t.Fatalf("INIT ACK Initiate Tag %08x, cookie length %d", tag, len(ck))
	}
}

// RFC 9260 section 3.3.2: "If the value of the Initiate Tag in a received
// INIT chunk is found to be 0, the receiver MUST silently discard the
// packet."
func TestInitZeroInitiateTag(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, initChunk(chunk.TypeInit, 0, 65536, 10, 10, 1))
	tc.wantIdle()
}

// RFC 9260 section 3.3.2: "A receiver of an INIT chunk with the OS value set
// to 0 MUST discard the packet, SHOULD send a packet in response containing
// an ABORT chunk and using the Initiate Tag as the Verification Tag, and
// MUST NOT change the state of any existing association." (The same for
// MIS 0 and a_rwnd below 1500.)
func TestInitInvalidMandatoryAbort(t *testing.T) {
	for _, tt := range []struct {
		name    string
		rwnd    uint32
		os, mis uint16
	}{{"os0", 65536, 0, 10}, {"mis0", 65536, 10, 0}, {"rwnd1499", 1499, 10, 10}} {
		t.Run(tt.name, func(t *testing.T) {
			tc := newTestEndpoint(t, testConfig())
			tc.writePacket(0, initChunk(chunk.TypeInit, 0xabcd, tt.rwnd, tt.os, tt.mis, 1))
			p, c := tc.wantChunk(chunk.TypeAbort)
			if p.p.vtag != 0xabcd || c.tBit() {
				t.Fatalf("ABORT tag %08x T=%v, want the Initiate Tag and T=0", p.p.vtag, c.tBit())
			}
			if firstCause(c.value()) != chunk.CauseInvalidParam {
				t.Fatalf("ABORT cause %d", firstCause(c.value()))
			}
			// An existing association is not changed.
			tc.connectServer()
			tc.writePacket(0, initChunk(chunk.TypeInit, 0xabcd, tt.rwnd, tt.os, tt.mis, 1))
			tc.wantChunk(chunk.TypeAbort)
			tc.wantState(stateEstablished)
		})
	}
}

// RFC 9260 section 3.3.2: "The receiver of an INIT chunk containing a Host
// Name Address parameter MUST send an ABORT chunk and MAY include an
// "Unresolvable Address" error cause."
func TestInitHostNameAbort(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(param(chunk.ParamHostNameAddress, []byte("example.com\x00"))))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if firstCause(c.value()) != chunk.CauseUnresolvableAddress {
		t.Fatalf("ABORT cause %d", firstCause(c.value()))
	}
}

// RFC 9260 section 3.2.2: "If the receiver of an INIT chunk detects
// unrecognized parameters and has to report them according to Section
// 3.2.1, it MUST put the "Unrecognized Parameter" parameter(s) in the INIT
// ACK chunk sent in response to the INIT chunk."
func TestInitUnrecognizedParamsReported(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	skipReport := param(0xc123, []byte("skip+report"))
	skip := param(0x8123, []byte("skip"))
	stopReport := param(0x4123, []byte("stop+report"))
	after := param(0xc124, []byte("never seen"))
	tc.writePacket(0, tc.peerInit(skipReport, skip, stopReport, after))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	var reported [][]byte
	walkParams(c.value()[16:], func(typ chunk.ParamType, val, _ []byte) bool {
		if typ == chunk.ParamUnrecognizedParameter {
			reported = append(reported, val)
		}
		return true
	})
	if len(reported) != 2 || !bytes.Equal(reported[0], skipReport[:15]) || !bytes.Equal(reported[1], stopReport[:15]) {
		t.Fatalf("reported %q, want the 0xc123 and 0x4123 parameters", reported)
	}
}

// RFC 9260 section 5.1.5 step 2: "If this comparison fails, the SCTP packet,
// including the COOKIE ECHO chunk and any DATA chunks, MUST be silently
// discarded."
func TestCookieEchoForgedDiscarded(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tag, ck := tc.cookieFor(tc.peerTag)
	ck[20] ^= 0x40
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck), dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("x")))
	tc.wantIdle()
	if len(tc.ep.assocs) != 0 || tc.ep.stats.CookieBadMAC != 1 {
		t.Fatalf("forged cookie: %d associations, CookieBadMAC %d", len(tc.ep.assocs), tc.ep.stats.CookieBadMAC)
	}
	// A cookie made of random bytes of the right length fails too.
	junk := make([]byte, cookieLen)
	junk[0] = cookieVersion << 1
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, junk))
	tc.wantIdle()
}

// RFC 9260 section 5.1.5 step 3: "Compare the port numbers and the
// Verification Tag contained within the COOKIE ECHO chunk to the actual port
// numbers and the Verification Tag within the SCTP common header of the
// received packet. If these values do not match, the packet MUST be silently
// discarded."
func TestCookieEchoTagAndPortsChecked(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tag, ck := tc.cookieFor(tc.peerTag)
	tc.writePacket(tag+1, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantIdle()
	tc.pport++
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantIdle()
	if len(tc.ep.assocs) != 0 || tc.ep.stats.CookieMismatch != 2 {
		t.Fatalf("%d associations, CookieMismatch %d", len(tc.ep.assocs), tc.ep.stats.CookieMismatch)
	}
}

// RFC 9260 section 5.1.5 step 4: "If the elapsed time is longer than the
// lifespan carried in the State Cookie, then the packet, including the
// COOKIE ECHO chunk and any attached DATA chunks, SHOULD be discarded, and
// the endpoint MUST transmit an ERROR chunk with a "Stale Cookie" error
// cause to the peer endpoint." This is also the replay defence: a cookie
// replayed after its lifetime creates nothing.
func TestCookieEchoStale(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tag, ck := tc.cookieFor(tc.peerTag)
	tc.now = tc.now.Add(60*time.Second + 2500*time.Microsecond)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	p, c := tc.wantChunk(chunk.TypeError)
	if p.p.vtag != tc.peerTag {
		t.Fatalf("ERROR sent with tag %08x, want the peer's %08x", p.p.vtag, tc.peerTag)
	}
	st, ok := staleCookieMeasure(c.value())
	if !ok || st != 2500*time.Microsecond {
		t.Fatalf("Measure of Staleness %v (found %v), want 2.5ms", st, ok)
	}
	if len(tc.ep.assocs) != 0 {
		t.Fatalf("stale cookie created an association")
	}
}

// RFC 9260 section 5.2.6 / 3.3.2.1: the Cookie Preservative lengthens the
// cookie's life; this endpoint caps the increment (CookiePreserveMax).
func TestCookiePreservativeCapped(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	_, ck := tc.cookieFor(tc.peerTag, param(chunk.ParamCookiePreservative, u32(5000)))
	var c cookie
	tc.ep.jar.openCookie(ck, tc.peer, &c)
	if c.life != 65*time.Second {
		t.Fatalf("cookie life %v, want 65s", c.life)
	}
	_, ck = tc.cookieFor(tc.peerTag, param(chunk.ParamCookiePreservative, u32(1<<31)))
	tc.ep.jar.openCookie(ck, tc.peer, &c)
	if c.life != 70*time.Second {
		t.Fatalf("cookie life %v, want the 70s cap", c.life)
	}
}

// RFC 9260 section 5.1.1: "If the peer's MIS is less than the endpoint's
// OS, meaning that the peer is incapable of supporting all the outbound
// streams the endpoint wants to configure, the endpoint MUST use MIS
// outbound streams".
func TestStreamNegotiation(t *testing.T) {
	cfg := testConfig()
	cfg.OutStreams, cfg.InStreams = 50, 20
	tc := newTestEndpoint(t, cfg)
	tc.writePacket(0, initChunk(chunk.TypeInit, tc.peerTag, 65536, 100, 7, 1))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{tc.peer, tc.lport, tc.pport}]
	if tc.a.outStreams != 7 || tc.a.inStreams != 20 {
		t.Fatalf("streams out %d in %d, want 7 and 20", tc.a.outStreams, tc.a.inStreams)
	}
	if err := tc.a.send(tc.now, 7, 0, false, []byte("x")); err == nil {
		t.Fatalf("send on stream 7 of 7 accepted")
	}
}

// RFC 9260 section 4: "If the T1-init timer expires, the endpoint MUST
// retransmit the INIT chunk and restart the T1-init timer. ... This MUST be
// repeated up to 'Max.Init.Retransmits' times. After that, the endpoint MUST
// abort the initialization process and report the error to the SCTP user."
func TestT1InitRetransmitAndGiveUp(t *testing.T) {
	cfg := testConfig()
	cfg.MaxInitRetransmits = 3
	tc := newTestEndpoint(t, cfg)
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	_, first := tc.wantChunk(chunk.TypeInit)
	start := tc.now
	for i := range 3 {
		tc.advanceToTimer()
		_, c := tc.wantChunk(chunk.TypeInit)
		if !bytes.Equal(c.raw, first.raw) {
			t.Fatalf("retransmitted INIT differs")
		}
		// Backoff: 1s, 2s, 4s.
		if want := start.Add(time.Duration(1<<(i+1)-1) * time.Second); !tc.now.Equal(want) {
			t.Fatalf("retransmission %d at %v, want %v", i+1, tc.now.Sub(t0), want.Sub(t0))
		}
	}
	tc.advanceToTimer()
	tc.wantIdle()
	tc.wantCantStart()
	if !a.closed || len(tc.ep.assocs) != 0 {
		t.Fatalf("association not removed")
	}
}

// RFC 9260 section 4: "If the T1-cookie timer expires, the endpoint MUST
// retransmit COOKIE ECHO chunk and restart the T1-cookie timer."
func TestT1CookieRetransmit(t *testing.T) {
	cfg := testConfig()
	cfg.MaxInitRetransmits = 2
	tc := newTestEndpoint(t, cfg)
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.advanceToTimer()
	tc.wantCantStart()
	if got := a.stats.HandshakeRetx; got != 0 && !a.closed {
		t.Fatalf("HandshakeRetx %d", got)
	}
	if got := tc.ep.stats.HandshakeRetx; got != 2 {
		t.Fatalf("HandshakeRetx %d, want 2", got)
	}
}

// A dialing association counts the INITs that went unanswered (a server
// limiting INITs drops them silently): each T1-init expiry, the last one
// that ends the handshake included, and not the COOKIE ECHOs. The count
// stays readable on the association once it is up, and on the endpoint
// once a failed one is gone.
func TestInitsUnanswered(t *testing.T) {
	cfg := testConfig()
	cfg.MaxInitRetransmits = 3
	tc := newTestEndpoint(t, cfg)
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	for range 2 {
		tc.advanceToTimer()
		tc.wantChunk(chunk.TypeInit)
	}
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
	if s := a.Stats(); s.InitsUnanswered != 2 || s.HandshakeRetx != 3 {
		t.Fatalf("InitsUnanswered %d, HandshakeRetx %d; want 2 and 3", s.InitsUnanswered, s.HandshakeRetx)
	}

	tc = newTestEndpoint(t, cfg)
	a, _ = tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	for range 3 {
		tc.advanceToTimer()
		tc.wantChunk(chunk.TypeInit)
	}
	tc.advanceToTimer()
	tc.wantCantStart()
	if n := tc.ep.Stats().InitsUnanswered; !a.closed || n != 4 {
		t.Fatalf("closed %v, InitsUnanswered %d; want 4 (1 + MaxInitRetransmits)", a.closed, n)
	}
}

// RFC 9260 section 3.3.3: "If an endpoint in the COOKIE-WAIT state receives
// an INIT ACK chunk with the Initiate Tag set to 0, it MUST destroy the TCB
// and SHOULD send an ABORT chunk with the T bit set."
func TestInitAckZeroTag(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, 0, 65536, 100, 100, 1, param(chunk.ParamStateCookie, []byte("c"))))
	p, c := tc.wantChunk(chunk.TypeAbort)
	if !c.tBit() || p.p.vtag != a.localTag {
		t.Fatalf("ABORT T=%v tag %08x, want T=1 with our tag reflected", c.tBit(), p.p.vtag)
	}
	tc.wantCantStart()
	if !a.closed {
		t.Fatalf("TCB not destroyed")
	}
}

// RFC 9260 section 3.3.3: "If an endpoint in the COOKIE-WAIT state receives
// an INIT ACK chunk with the OS value set to 0, it MUST destroy the TCB and
// SHOULD send an ABORT chunk."
func TestInitAckZeroOS(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, 77, 65536, 0, 100, 1, param(chunk.ParamStateCookie, []byte("c"))))
	p, c := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 77 || firstCause(c.value()) != chunk.CauseInvalidParam {
		t.Fatalf("ABORT tag %d cause %d", p.p.vtag, firstCause(c.value()))
	}
	tc.wantCantStart()
}

// An INIT ACK without a State Cookie lacks a mandatory parameter: ABORT with
// "Missing Mandatory Parameter" (section 5.1: "it SHOULD respond with an
// ABORT chunk. It SHOULD also specify the cause of abort, such as the type
// of the missing mandatory parameters").
func TestInitAckMissingCookie(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, 77, 65536, 10, 100, 1))
	_, c := tc.wantChunk(chunk.TypeAbort)
	v := c.value()
	if firstCause(v) != chunk.CauseMissingParam || chunk.ParamType(binary.BigEndian.Uint16(v[8:])) != chunk.ParamStateCookie {
		t.Fatalf("ABORT causes %x", v)
	}
	tc.wantCantStart()
}

// RFC 9260 section 3.2.2: "If the receiver of any other chunk (e.g., INIT
// ACK) detects unrecognized parameters and has to report them ..., it SHOULD
// bundle the ERROR chunk containing the "Unrecognized Parameters" error
// cause with the chunk sent in response (e.g., COOKIE ECHO)." and "Any time
// a COOKIE ECHO chunk is sent in a packet, it MUST be the first chunk."
func TestInitAckUnrecognizedParamsWithCookieEcho(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, 77, 65536, 10, 100, 1,
		param(chunk.ParamStateCookie, []byte("c")), param(0xc777, []byte("what"))))
	p, _ := tc.wantChunk(chunk.TypeCookieEcho)
	if len(p.p.chunks) < 2 || p.p.chunks[1].typ != chunk.TypeError {
		t.Fatalf("chunks %v, want COOKIE ECHO then ERROR", chunkTypes(&p.p))
	}
	if firstCause(p.p.chunks[1].value()) != chunk.CauseUnrecognizedParams {
		t.Fatalf("ERROR cause %d", firstCause(p.p.chunks[1].value()))
	}
}

// The INIT / INIT ACK exchange gives the first RTT measurement (when the
// INIT was not retransmitted, RFC 9260 section 6.3.1 C5).
func TestHandshakeRTTSample(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.now = tc.now.Add(80 * time.Millisecond)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	if srtt := a.Stats().SRTT; srtt != 80*time.Millisecond {
		t.Fatalf("SRTT %v after the handshake, want 80ms", srtt)
	}
}
