package assoc

import (
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The edges of AUTH negotiation (RFC 4895 sections 6.1 to 6.3) the other
// AUTH tests leave open: a peer's HMAC-ALGO listing identifiers we do not
// support, an AUTH with an identifier we did not offer, a RANDOM too long,
// and a second AUTH in a packet.

// authServerWith is authServer with the endpoint's configuration adjusted
// by adj (when not nil) and the COOKIE ECHO's AUTH computed with signHMAC;
// the peer's HMAC-ALGO lists hmacs (which may hold identifiers this stack
// does not know).
func authServerWith(t *testing.T, adj func(*Config), signHMAC uint16, hmacs ...uint16) (*testConn, *testAuthPeer) {
	t.Helper()
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeData}
	cfg.AuthKeys = []api.AuthKey{{ID: 5, Key: []byte("shared secret")}}
	if adj != nil {
		adj(&cfg)
	}
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeSack)}, hmacs...)
	peer.secret = []byte("shared secret")
	tc.writePacket(0, tc.peerInit(peer.params()...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	peer.learn(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie),
		peer.sign(5, signHMAC, dataChunk(0x03, tc.peerTSN, 0, 0, 51, []byte("first"))))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if tc.a == nil {
		t.Fatal("no association from the COOKIE ECHO")
	}
	return tc, peer
}

// TestAuth4895FirstSupportedHMAC: RFC 4895 section 6.1 (paraphrase): the
// HMAC-ALGO parameter lists the identifiers in the sender's order of
// preference, and the receiver uses the first it supports. A peer listing
// an identifier this stack does not know (2) before HMAC-SHA-256 and
// HMAC-SHA-1 gets AUTH chunks with HMAC-SHA-256, which verify; its own AUTH
// with HMAC-SHA-1 (also offered by us) is accepted, whatever we send
// with.
func TestAuth4895FirstSupportedHMAC(t *testing.T) {
	tc, peer := authServerWith(t, nil, chunk.HMACSHA1, 2, chunk.HMACSHA256, chunk.HMACSHA1)
	sp, _ := tc.wantChunk(chunk.TypeAuth)
	if got := binary.BigEndian.Uint16(sp.p.chunks[0].value()[2:]); got != chunk.HMACSHA256 {
		t.Fatalf("AUTH with HMAC id %d, want %d (the first of the peer's list we support)", got, chunk.HMACSHA256)
	}
	peer.checkAuth(t, sp, 0)
	if s := tc.a.stats.Auth; s.Verified != 1 || s.BadHMAC != 0 {
		t.Fatalf("the peer's HMAC-SHA-1 AUTH: counters %+v", s)
	}
	var buf [16]byte
	if n, _, _ := tc.a.read(buf[:]); string(buf[:n]) != "first" {
		t.Fatalf("read %q", buf[:n])
	}
}

// TestAuth4895HMACNotOffered: RFC 4895 section 6.3: "The receiver MUST use
// the HMAC algorithm indicated in the HMAC Identifier field. If this
// algorithm was not specified by the receiver in the HMAC-ALGO parameter
// in the INIT or INIT-ACK chunk during association setup, the AUTH chunk
// and all the chunks after it MUST be discarded and an ERROR chunk SHOULD
// be sent with the error cause defined in Section 4.1." We offer only
// HMAC-SHA-1; an AUTH with HMAC-SHA-256, which this stack supports but did
// not offer, is discarded with the DATA after it, and the ERROR's
// "Unsupported HMAC Identifier" cause carries that identifier.
func TestAuth4895HMACNotOffered(t *testing.T) {
	tc, peer := authServerWith(t, func(c *Config) { c.AuthHMAC = []uint16{chunk.HMACSHA1} },
		chunk.HMACSHA1, chunk.HMACSHA1)
	tc.readPackets()
	tc.sent = nil
	var buf [16]byte
	tc.a.read(buf[:])
	tc.writeChunks(peer.sign(5, chunk.HMACSHA256, dataChunk(0x03, tc.peerTSN+1, 0, 1, 51, []byte("sha-256"))))
	if s := tc.a.stats.Auth; s.UnsupportedHMAC != 1 || s.Verified != 1 {
		t.Fatalf("counters %+v, want the HMAC-SHA-256 AUTH counted unsupported", s)
	}
	if n, _, _ := tc.a.read(buf[:]); n != 0 {
		t.Fatalf("delivered %q after an AUTH we did not offer", buf[:n])
	}
	tc.readPackets()
	for _, sp := range tc.sent {
		for _, c := range sp.p.chunks {
			if c.typ != chunk.TypeError {
				continue
			}
			v := c.value()
			if binary.BigEndian.Uint16(v) != uint16(chunk.CauseUnsupportedHMAC) || len(v) < 6 {
				t.Fatalf("ERROR cause %x", v)
			}
			if id := binary.BigEndian.Uint16(v[4:]); id != chunk.HMACSHA256 {
				t.Fatalf("Unsupported HMAC Identifier cause carries %d, want %d", id, chunk.HMACSHA256)
			}
			return
		}
	}
	t.Fatal("no ERROR with Unsupported HMAC Identifier")
}

// TestAuth4895RandomTooLong: RFC 4895 section 6.1, "If the random number
// is not 32 byte long the association MUST be aborted. The ABORT chunk
// SHOULD contain the error cause 'Protocol Violation'." A RANDOM of 48
// bytes, longer than 32, is refused as one of 16 is.
func TestAuth4895RandomTooLong(t *testing.T) {
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeData}
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeData)}, chunk.HMACSHA1)
	ps := peer.params()
	ps[0] = param(chunk.ParamRandom, append(peer.random[:], peer.random[:16]...))
	tc.writePacket(0, tc.peerInit(ps...))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if got := chunk.CauseCode(binary.BigEndian.Uint16(c.value())); got != chunk.CauseProtocolViolation {
		t.Fatalf("ABORT cause %v, want Protocol Violation", got)
	}
}

// TestAuth4895SecondAuthCovered: RFC 4895 section 6.2: "To send chunks in
// an authenticated way, the sender MUST include these chunks after an
// AUTH chunk"; the HMAC of the first AUTH covers every chunk after it. A
// second AUTH later in the packet is one of those chunks: it means
// nothing (counted as ignored), and the DATA after it, authenticated by
// the first, is delivered.
func TestAuth4895SecondAuthCovered(t *testing.T) {
	tc, peer := authServerWith(t, nil, chunk.HMACSHA256, chunk.HMACSHA256, chunk.HMACSHA1)
	tc.readPackets()
	tc.sent = nil
	var buf [16]byte
	tc.a.read(buf[:])
	inner := []byte{byte(chunk.TypeAuth), 0, 0, 8 + 20, 0, 5, 0, byte(chunk.HMACSHA1)}
	inner = append(inner, make([]byte, 20)...) // an HMAC that verifies nothing
	ignored := tc.a.stats.Ignored
	tc.writeChunks(peer.sign(5, chunk.HMACSHA256, inner, dataChunk(0x03, tc.peerTSN+1, 0, 1, 51, []byte("second"))))
	if n, _, _ := tc.a.read(buf[:]); string(buf[:n]) != "second" {
		t.Fatalf("read %q: the DATA after a second AUTH was dropped (counters %+v)", buf[:n], tc.a.stats.Auth)
	}
	if tc.a.stats.Ignored != ignored+1 || tc.a.stats.Auth.BadHMAC != 0 {
		t.Fatalf("second AUTH: ignored %d, counters %+v", tc.a.stats.Ignored-ignored, tc.a.stats.Auth)
	}
}
