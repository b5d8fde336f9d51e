package assoc

import (
	"bytes"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Setup collisions and restarts of authenticated associations (RFC 4895
// with RFC 9260 section 5.2).

// randomOf returns the RANDOM parameter's value of an INIT or INIT ACK.
func randomOf(t *testing.T, c *rxChunk) []byte {
	t.Helper()
	var rnd []byte
	walkParams(c.raw[20:], func(typ chunk.ParamType, val, raw []byte) bool {
		if typ == chunk.ParamRandom {
			rnd = append([]byte(nil), val...)
		}
		return true
	})
	if len(rnd) != authRandomLen {
		t.Fatalf("RANDOM of %d bytes in %x", len(rnd), c.raw)
	}
	return rnd
}

// TestAuth4895CollisionInitAckRepeatsRandom: an INIT from the peer while
// ours is outstanding (COOKIE-WAIT, then COOKIE-ECHOED) is answered with
// an INIT ACK carrying the RANDOM of our INIT, and the association the
// peer's COOKIE ECHO makes authenticates with the key built from that
// RANDOM. RFC 9260 section 5.2.1: "Upon receipt of an INIT chunk in the
// COOKIE-WAIT state, an endpoint MUST respond with an INIT ACK chunk using
// the same parameters it sent in its original INIT chunk (including its
// Initiate Tag, unchanged)." RFC 4895 section 6.1 (paraphrase, the
// sentence was not found word for word): in an INIT collision the RANDOM
// is handled as the Verification Tag is, so each end knows both RANDOMs
// once the association is up.
func TestAuth4895CollisionInitAckRepeatsRandom(t *testing.T) {
	for _, echoed := range []bool{false, true} {
		cfg := testConfig()
		cfg.AuthChunks = []chunk.Type{chunk.TypeData}
		tc := newTestEndpoint(t, cfg)
		a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
		if err != nil {
			t.Fatal(err)
		}
		tc.a = a
		_, ic := tc.wantChunk(chunk.TypeInit)
		ours := randomOf(t, ic)
		peer := newTestAuthPeer([]byte{byte(chunk.TypeSack)}, chunk.HMACSHA1)
		if echoed {
			// Our INIT was answered: COOKIE-ECHOED.
			tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
				append(peer.params(), param(chunk.ParamStateCookie, []byte("c")))...))
			tc.wantChunk(chunk.TypeCookieEcho)
			tc.wantState(stateCookieEchoed)
		}
		tc.writePacket(0, tc.peerInit(peer.params()...))
		_, c := tc.wantChunk(chunk.TypeInitAck)
		if got := randomOf(t, c); !bytes.Equal(got, ours) {
			t.Fatalf("echoed %v: INIT ACK RANDOM %x, want our INIT's %x", echoed, got, ours)
		}
		in := initValue(t, c)
		peer.learn(t, c)
		if echoed {
			tc.wantState(stateCookieEchoed)
			continue // the rest is the COOKIE-WAIT case's
		}
		tc.wantState(stateCookieWait)
		// The peer echoes that cookie (action B) with an authenticated
		// DATA after it: checked with the key of our INIT's RANDOM.
		tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie),
			peer.sign(0, chunk.HMACSHA1, dataChunk(0x03, tc.peerTSN, 0, 0, 51, []byte("collided"))))
		tc.wantState(stateEstablished)
		sp, _ := tc.wantChunk(chunk.TypeAuth)
		if got := chunkTypes(&sp.p); len(got) != 3 || got[1] != chunk.TypeCookieAck || got[2] != chunk.TypeSack {
			t.Fatalf("answer %v, want AUTH, COOKIE ACK, SACK", got)
		}
		peer.checkAuth(t, sp, 0)
		var buf [16]byte
		if n, _, _ := a.read(buf[:]); string(buf[:n]) != "collided" {
			t.Fatalf("read %q", buf[:n])
		}
		if s := a.stats.Auth; s.Verified != 1 || s.BadHMAC+s.Missing != 0 {
			t.Fatalf("AUTH counters %+v", s)
		}
	}
}

// TestAuth4895RestartNewKeys: the peer of an authenticated association
// restarts (a new INIT with a new RANDOM, then the COOKIE ECHO, action A of
// RFC 9260 section 5.2.4). The INIT ACK to the unexpected INIT carries a
// new RANDOM with its new Initiate Tag; after the restart both ends use
// the association shared key built from the two new RANDOMs: our AUTH
// verifies under it, the peer's DATA signed with it is accepted and DATA
// signed with the old association's key is dropped and counted. RFC 9260
// section 5.2.2: "the INIT ACK chunk MUST contain a new Initiate Tag"; RFC
// 4895 section 6.1 (paraphrase): the RANDOM follows the Verification Tag's
// rules in these cases, so it is new too. Section 6.3: "If no endpoint
// pair shared key has been configured for that Shared Key Identifier, all
// authenticated chunks MUST be silently discarded."
func TestAuth4895RestartNewKeys(t *testing.T) {
	tc, peer := authServer(t, chunk.HMACSHA1)
	tc.readPackets()
	tc.sent = nil
	tc.drainEvents()
	tc.events = nil
	a := tc.a
	oldRandom := a.auth.random
	oldKey := append([]byte(nil), peer.key...)

	for i := range peer.random {
		peer.random[i] = byte(0x11 * i)
	}
	tc.writePacket(0, initChunk(chunk.TypeInit, 0x9999, 65536, 100, 100, tc.peerTSN+1000, peer.params()...))
	p, c := tc.wantChunk(chunk.TypeInitAck)
	if p.p.vtag != 0x9999 {
		t.Fatalf("INIT ACK tag %08x", p.p.vtag)
	}
	in := initValue(t, c)
	if rnd := randomOf(t, c); bytes.Equal(rnd, oldRandom[:]) {
		t.Fatalf("INIT ACK to the restart repeats the association's RANDOM %x", rnd)
	}
	peer.learn(t, c)
	if bytes.Equal(peer.key, oldKey) {
		t.Fatal("the restart's association key equals the old one")
	}
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie),
		peer.sign(5, chunk.HMACSHA1, dataChunk(0x03, tc.peerTSN+1000, 0, 0, 51, []byte("restarted"))))
	tc.wantEvent(api.EventRestart)
	tc.wantState(stateEstablished)
	sp, _ := tc.wantChunk(chunk.TypeAuth)
	if got := chunkTypes(&sp.p); len(got) < 2 || got[1] != chunk.TypeCookieAck {
		t.Fatalf("answer %v, want AUTH, COOKIE ACK, ...", got)
	}
	peer.checkAuth(t, sp, 0) // under the new key
	var buf [16]byte
	if n, _, _ := a.read(buf[:]); string(buf[:n]) != "restarted" {
		t.Fatalf("read %q", buf[:n])
	}
	// DATA signed with the old association's key: dropped and counted.
	before := a.stats.Auth
	newKey := peer.key
	peer.key = oldKey
	tc.writeChunks(peer.sign(5, chunk.HMACSHA1, dataChunk(0x03, tc.peerTSN+1001, 0, 1, 51, []byte("stale key"))))
	if a.stats.Auth.BadHMAC != before.BadHMAC+1 {
		t.Fatalf("AUTH counters %+v after DATA under the old key, before %+v", a.stats.Auth, before)
	}
	if n, _, err := a.read(buf[:]); n != 0 || err == nil {
		t.Fatalf("read %q (%v) after DATA under the old key", buf[:n], err)
	}
	// And under the new one: accepted.
	peer.key = newKey
	tc.writeChunks(peer.sign(5, chunk.HMACSHA1, dataChunk(0x03, tc.peerTSN+1001, 0, 1, 51, []byte("new key"))))
	if n, _, _ := a.read(buf[:]); string(buf[:n]) != "new key" {
		t.Fatalf("read %q after DATA under the new key", buf[:n])
	}
}
