package assoc

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// testAuthPeer is the test peer's side of RFC 4895, computed here from the
// RFC's text, independently of auth.go.
type testAuthPeer struct {
	random [32]byte
	chunks []byte
	hmacs  []uint16
	secret []byte
	key    []byte // association shared key, once known
}

func newTestAuthPeer(chunks []byte, hmacs ...uint16) *testAuthPeer {
	p := &testAuthPeer{chunks: chunks, hmacs: hmacs}
	for i := range p.random {
		p.random[i] = byte(0xa0 + i)
	}
	return p
}

func (p *testAuthPeer) params() [][]byte {
	var hm []byte
	for _, id := range p.hmacs {
		hm = binary.BigEndian.AppendUint16(hm, id)
	}
	return [][]byte{param(chunk.ParamRandom, p.random[:]), param(chunk.ParamChunkList, p.chunks), param(chunk.ParamHMACAlgo, hm)}
}

// tlvNoPad is a parameter without its padding.
func tlvNoPad(t chunk.ParamType, v []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(t))
	b = binary.BigEndian.AppendUint16(b, uint16(4+len(v)))
	return append(b, v...)
}

func (p *testAuthPeer) vector() []byte {
	var hm []byte
	for _, id := range p.hmacs {
		hm = binary.BigEndian.AppendUint16(hm, id)
	}
	v := tlvNoPad(chunk.ParamRandom, p.random[:])
	v = append(v, tlvNoPad(chunk.ParamChunkList, p.chunks)...)
	return append(v, tlvNoPad(chunk.ParamHMACAlgo, hm)...)
}

// learn reads the endpoint's key vector from its INIT or INIT ACK and
// computes the association shared key (section 6.1: the smaller vector
// first; both start with the RANDOM type, so the longer one is larger).
func (p *testAuthPeer) learn(t *testing.T, c *rxChunk) (ours []byte) {
	t.Helper()
	var rnd, chk, hm []byte
	walkParams(c.raw[20:], func(typ chunk.ParamType, val, raw []byte) bool {
		switch typ {
		case chunk.ParamRandom:
			rnd = tlvNoPad(typ, val)
		case chunk.ParamChunkList:
			chk = tlvNoPad(typ, val)
		case chunk.ParamHMACAlgo:
			hm = tlvNoPad(typ, val)
		}
		return true
	})
	if rnd == nil || hm == nil {
		t.Fatalf("no RANDOM or HMAC-ALGO in %x", c.raw)
	}
	ours = append(append(append([]byte(nil), rnd...), chk...), hm...)
	theirs := p.vector()
	lo, hi := ours, theirs
	if len(lo) > len(hi) || len(lo) == len(hi) && bytes.Compare(lo, hi) > 0 {
		lo, hi = hi, lo
	}
	p.key = append(append(append([]byte(nil), p.secret...), lo...), hi...)
	return ours
}

func macFor(id uint16, key []byte) hash.Hash {
	if id == chunk.HMACSHA1 {
		return hmac.New(sha1.New, key)
	}
	return hmac.New(sha256.New, key)
}

// sign returns an AUTH chunk followed by chunks, the HMAC computed over
// the AUTH chunk with a zero HMAC and the chunks (section 6.2).
func (p *testAuthPeer) sign(keyID, hmacID uint16, chunks ...[]byte) []byte {
	n := 20
	if hmacID == chunk.HMACSHA256 {
		n = 32
	}
	b := []byte{byte(chunk.TypeAuth), 0, 0, byte(8 + n)}
	b = binary.BigEndian.AppendUint16(b, keyID)
	b = binary.BigEndian.AppendUint16(b, hmacID)
	b = append(b, make([]byte, n)...)
	for _, c := range chunks {
		b = append(b, c...)
	}
	h := macFor(hmacID, p.key)
	h.Write(b)
	copy(b[8:8+n], h.Sum(nil))
	return b
}

// checkAuth verifies the AUTH chunk at index i of a packet we received
// and returns its key id.
func (p *testAuthPeer) checkAuth(t *testing.T, sp *sentPacket, i int) uint16 {
	t.Helper()
	c := &sp.p.chunks[i]
	if c.typ != chunk.TypeAuth {
		t.Fatalf("chunk %d is %v, want AUTH: %v", i, c.typ, chunkTypes(&sp.p))
	}
	v := c.value()
	id := binary.BigEndian.Uint16(v[2:])
	rest := append([]byte(nil), sp.raw[commonHeaderLen+int(c.off):]...)
	clear(rest[8:len(c.raw)])
	h := macFor(id, p.key)
	h.Write(rest)
	if !hmac.Equal(h.Sum(nil), v[4:]) {
		t.Fatalf("AUTH HMAC (id %d) does not verify", id)
	}
	return binary.BigEndian.Uint16(v)
}

// TestAuth4895InitParameters: the INIT carries RANDOM, CHUNKS and
// HMAC-ALGO, and the Supported Extensions list AUTH.
// RFC 4895 section 6.1: "An SCTP endpoint willing to receive or send
// authenticated chunks MUST send one RANDOM parameter in its INIT or
// INIT-ACK chunk." (The 32 bytes of its Random Number are checked too;
// that sentence was not found word for word, so it is not quoted.) Section 3.2: "The chunk types for INIT, INIT-ACK,
// SHUTDOWN-COMPLETE, and AUTH chunks MUST NOT be listed in the CHUNKS
// parameter." Section 6.1: "The HMAC algorithm based on SHA-1 MUST be
// supported and included in the HMAC-ALGO parameter."
func TestAuth4895InitParameters(t *testing.T) {
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeInit, chunk.TypeData, chunk.TypeAuth, chunk.TypeShutdownComplete, chunk.TypeInitAck, chunk.TypeSack}
	cfg.AuthHMAC = []uint16{chunk.HMACSHA256}
	tc := newTestEndpoint(t, cfg)
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	_, c := tc.wantChunk(chunk.TypeInit)
	var rnd, chk, hm, ext []byte
	walkParams(c.raw[20:], func(typ chunk.ParamType, val, raw []byte) bool {
		switch typ {
		case chunk.ParamRandom:
			rnd = val
		case chunk.ParamChunkList:
			chk = val
		case chunk.ParamHMACAlgo:
			hm = val
		case chunk.ParamSupportedExtensions:
			ext = val
		}
		return true
	})
	if len(rnd) != 32 {
		t.Fatalf("RANDOM of %d bytes", len(rnd))
	}
	if !bytes.Equal(chk, []byte{byte(chunk.TypeData), byte(chunk.TypeSack)}) {
		t.Fatalf("CHUNKS lists %v, want DATA and SACK only", chk)
	}
	if !bytes.Equal(hm, []byte{0, 3, 0, 1}) {
		t.Fatalf("HMAC-ALGO %x, want SHA-256 then SHA-1", hm)
	}
	if !bytes.Contains(ext, []byte{byte(chunk.TypeAuth)}) {
		t.Fatalf("Supported Extensions %x do not list AUTH", ext)
	}
}

// authServer establishes an association with the endpoint as server, the
// test peer asking for SACK to be authenticated and the endpoint for
// DATA. The COOKIE ECHO carries an AUTH and a DATA chunk.
// RFC 4895 section 6.3, of a COOKIE-ECHO bundled with authenticated
// chunks (paraphrase: the exact sentence was not found in the reference
// text): the receiver processes the COOKIE ECHO, builds the association,
// and then checks the AUTH chunk after it with the association's keys.
func authServer(t *testing.T, hmacs ...uint16) (*testConn, *testAuthPeer) {
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeData}
	cfg.AuthKeys = []api.AuthKey{{ID: 5, Key: []byte("shared secret")}}
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeSack), byte(chunk.TypeInit)}, hmacs...)
	peer.secret = []byte("shared secret")
	tc.writePacket(0, tc.peerInit(peer.params()...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	peer.learn(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie),
		peer.sign(5, chunk.HMACSHA256, dataChunk(0x03, tc.peerTSN, 0, 0, 51, []byte("first"))))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if tc.a == nil {
		t.Fatal("no association from the COOKIE ECHO")
	}
	return tc, peer
}

// TestAuth4895CookieEchoWithAuth: the AUTH bundled with the COOKIE ECHO is
// checked with the keys of the association the cookie made; the DATA
// after it is accepted. Our answer carries SACK, a type the peer listed:
// RFC 4895 section 6.2: "To send chunks in an authenticated way, the
// sender MUST include these chunks after an AUTH chunk. This means that a
// sender MUST bundle chunks in order to authenticate them." The AUTH comes
// first, and its HMAC verifies under the association shared key,
// with the key id of the endpoint-pair key in use. The INIT chunk type
// the peer listed is ignored (section 3.2: "if a CHUNKS parameter is
// received then the types for INIT, INIT-ACK, SHUTDOWN-COMPLETE, and AUTH
// chunks MUST be ignored").
func TestAuth4895CookieEchoWithAuth(t *testing.T) {
	for _, hm := range []uint16{chunk.HMACSHA1, chunk.HMACSHA256} {
		tc, peer := authServer(t, hm, chunk.HMACSHA1)
		sp, _ := tc.wantChunk(chunk.TypeAuth)
		if got := chunkTypes(&sp.p); len(got) != 3 || got[1] != chunk.TypeCookieAck || got[2] != chunk.TypeSack {
			t.Fatalf("answer %v, want AUTH, COOKIE ACK, SACK", got)
		}
		if id := peer.checkAuth(t, sp, 0); id != 5 {
			t.Fatalf("AUTH with key id %d, want 5", id)
		}
		if got := binary.BigEndian.Uint16(sp.p.chunks[0].value()[2:]); got != hm {
			t.Fatalf("HMAC id %d, want the peer's first choice %d", got, hm)
		}
		var buf [16]byte
		if n, _, _ := tc.a.read(buf[:]); string(buf[:n]) != "first" {
			t.Fatalf("read %q", buf[:n])
		}
		if s := tc.a.stats.Auth; s.Verified != 1 || s.Sent != 1 {
			t.Fatalf("counters %+v", s)
		}
	}
}

// TestAuth4895HostileAuth: on an established authenticated association,
// forged, unknown-key, truncated and unsupported-HMAC AUTH chunks and DATA
// without AUTH are dropped and counted, nothing is delivered from them, and
// the association goes on: a correctly signed DATA is accepted afterwards.
// RFC 4895 section 6.3: "The receiver has a list of chunk types that it
// expects to be received only after an AUTH-chunk. This list has been sent
// to the peer during the association setup. It MUST silently discard these
// chunks if they are not placed after an AUTH chunk in the packet." "The
// receiver MUST use the HMAC algorithm indicated in the HMAC Identifier
// field. If this algorithm was not specified by the receiver in the
// HMAC-ALGO parameter in the INIT or INIT-ACK chunk during association
// setup, the AUTH chunk and all the chunks after it MUST be discarded and
// an ERROR chunk SHOULD be sent with the error cause defined in Section
// 4.1." "If no endpoint pair shared key has been configured for that
// Shared Key Identifier, all authenticated chunks MUST be silently
// discarded." An AUTH whose HMAC does not match is discarded with the
// chunks after it too (paraphrase of the same section).
func TestAuth4895HostileAuth(t *testing.T) {
	tc, peer := authServer(t, chunk.HMACSHA256, chunk.HMACSHA1)
	tc.readPackets()
	tc.sent = nil
	var buf [16]byte
	tc.a.read(buf[:])
	tsn := tc.peerTSN + 1
	data := func(s string) []byte { return dataChunk(0x03, tsn, 0, 1, 51, []byte(s)) }

	tc.writeChunks(data("no auth"))
	forged := peer.sign(5, chunk.HMACSHA256, data("forged"))
	forged[20] ^= 1
	tc.writeChunks(forged)
	tc.writeChunks(peer.sign(7, chunk.HMACSHA256, data("unknown key")))
	trunc := peer.sign(5, chunk.HMACSHA256, data("truncated"))
	trunc = append(append([]byte{byte(chunk.TypeAuth), 0, 0, 18}, trunc[4:18]...), 0, 0)
	tc.writeChunks(append(trunc, data("truncated")...))
	unsup := peer.sign(5, 2, data("hmac id 2"))
	tc.writeChunks(unsup)

	s := tc.a.stats.Auth
	if s.Missing != 1 || s.BadHMAC != 2 || s.UnknownKey != 1 || s.UnsupportedHMAC != 1 {
		t.Fatalf("counters %+v, want 1 missing, 2 bad HMAC, 1 unknown key, 1 unsupported", s)
	}
	if n, _, _ := tc.a.read(buf[:]); n != 0 {
		t.Fatalf("delivered %q", buf[:n])
	}
	// The ERROR for the unsupported HMAC identifier.
	found := false
	tc.readPackets()
	for _, sp := range tc.sent {
		for _, c := range sp.p.chunks {
			if c.typ == chunk.TypeError && binary.BigEndian.Uint16(c.value()) == uint16(chunk.CauseUnsupportedHMAC) {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no ERROR with Unsupported HMAC Identifier")
	}
	tc.wantState(stateEstablished)
	tc.writeChunks(peer.sign(5, chunk.HMACSHA256, data("good")))
	if n, _, _ := tc.a.read(buf[:]); string(buf[:n]) != "good" {
		t.Fatalf("read %q after the hostile packets", buf[:n])
	}
}

// TestAuth4895RandomLength: RFC 4895 section 6.1, "If the random number is
// not 32 byte long the association MUST be aborted. The ABORT chunk SHOULD
// contain the error cause 'Protocol Violation'."
func TestAuth4895RandomLength(t *testing.T) {
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeData}
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeData)}, chunk.HMACSHA1)
	ps := peer.params()
	ps[0] = param(chunk.ParamRandom, peer.random[:16])
	tc.writePacket(0, tc.peerInit(ps...))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if got := chunk.CauseCode(binary.BigEndian.Uint16(c.value())); got != chunk.CauseProtocolViolation {
		t.Fatalf("ABORT cause %v, want Protocol Violation", got)
	}
	// And a HMAC-ALGO without SHA-1.
	tc.writePacket(0, tc.peerInit(param(chunk.ParamRandom, peer.random[:]), param(chunk.ParamHMACAlgo, []byte{0, 3})))
	tc.wantChunk(chunk.TypeAbort)
}

// TestAuthCookieCompact: the State Cookie of an authenticated association
// carries the peer's key vector and three bytes more, not our RANDOM.
func TestAuthCookieCompact(t *testing.T) {
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeData}
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck)}, chunk.HMACSHA1, chunk.HMACSHA256)
	_, ck := tc.cookieFor(0x1234, peer.params()...)
	if want := cookieLen + 3 + len(peer.vector()); len(ck) != want {
		t.Fatalf("cookie of %d bytes, want %d", len(ck), want)
	}
}

// TestAuth4895CookieEchoBundle: the client bundles DATA with its COOKIE
// ECHO; the peer listed DATA and ABORT, so the AUTH goes right after the
// COOKIE ECHO (RFC 9260 section 5.1 wants the COOKIE ECHO first, paraphrase; RFC
// 4895 section 6.2: "the sender MUST include these chunks after an AUTH
// chunk") and covers the DATA; an ABORT later
// is authenticated too.
func TestAuth4895CookieEchoBundle(t *testing.T) {
	cfg := testConfig()
	cfg.AuthChunks = []chunk.Type{chunk.TypeData}
	tc := newTestEndpoint(t, cfg)
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	_, ic := tc.wantChunk(chunk.TypeInit)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeData), byte(chunk.TypeAbort)}, chunk.HMACSHA1)
	peer.learn(t, ic)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
		append(peer.params(), param(chunk.ParamStateCookie, []byte("peer cookie")))...))
	if err := a.send(tc.now, 0, 1, false, []byte("early")); err != nil {
		t.Fatal(err)
	}
	sp, _ := tc.wantChunk(chunk.TypeCookieEcho)
	if got := chunkTypes(&sp.p); len(got) != 3 || got[1] != chunk.TypeAuth || got[2] != chunk.TypeData {
		t.Fatalf("COOKIE ECHO packet %v, want COOKIE ECHO, AUTH, DATA", got)
	}
	if id := peer.checkAuth(t, sp, 1); id != 0 {
		t.Fatalf("AUTH key id %d, want 0 (no key configured: the empty key)", id)
	}
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
	tc.readPackets()
	tc.sent = nil
	a.Abort(tc.now, nil)
	sp, _ = tc.wantChunk(chunk.TypeAuth)
	if got := chunkTypes(&sp.p); len(got) != 2 || got[1] != chunk.TypeAbort {
		t.Fatalf("ABORT packet %v, want AUTH, ABORT", got)
	}
	peer.checkAuth(t, sp, 0)
}
