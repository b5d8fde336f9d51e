package assoc

import (
	"bytes"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// newAuthPair is newPair with AUTH configured on both sides by cfgs.
func newAuthPair(t testing.TB, link simnet.LinkConfig, cfgs [2]Config) *pair {
	p := newPair(t, 3, link)
	for i := range 2 {
		c := cfgs[i]
		c.Rand, c.MTU, c.OutStreams, c.InStreams, c.RecvBuffer = newTestRand(byte(3+i)), 1452, 64, 64, 256<<10
		p.eps[i] = NewEndpoint(c, p.now)
	}
	return p
}

// transfer sends n messages from side from to the other side and checks
// they arrive byte-exact and in order.
func (p *pair) transfer(t *testing.T, from, n int) {
	t.Helper()
	to := 1 - from
	var buf [4096]byte
	got := 0
	sent := 0
	for got < n {
		for sent < n {
			if err := p.as[from].send(p.now, 0, 0, false, message(from, 0, uint32(sent), nil)); err != nil {
				break
			}
			sent++
		}
		if !p.step() {
			t.Fatalf("stalled after %d of %d messages", got, n)
		}
		for {
			k, _, err := p.as[to].read(buf[:])
			if err != nil || k == 0 {
				break
			}
			if want := message(from, 0, uint32(got), nil); !bytes.Equal(buf[:k], want) {
				t.Fatalf("message %d differs", got)
			}
			got++
		}
	}
}

// TestAuthEndToEnd runs two authenticated associations, HMAC-SHA-256 and
// HMAC-SHA-1, over a lossy simulated link: DATA and SACK are authenticated
// both ways, every message arrives intact, nothing is dropped for want of
// a valid AUTH; then the keys are rotated during the transfer (add key 1
// on both ends, make it active on one, delete key 0 there) and the
// transfer goes on.
func TestAuthEndToEnd(t *testing.T) {
	for _, hm := range []uint16{chunk.HMACSHA256, chunk.HMACSHA1} {
		t.Run(map[uint16]string{1: "sha1", 3: "sha256"}[hm], func(t *testing.T) {
			link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 0.02, Reorder: 0.01}
			cfg := Config{Extensions: api.Extensions{AuthChunks: []chunk.Type{chunk.TypeData, chunk.TypeSack}, AuthHMAC: []uint16{hm},
				AuthKeys: []api.AuthKey{{ID: 0, Key: []byte("endpoint pair key")}}}}
			p := newAuthPair(t, link, [2]Config{cfg, cfg})
			p.connect()
			for i, a := range p.as {
				if id, ok := a.Authenticated(); !ok || id != hm {
					t.Fatalf("side %d: AUTH negotiated %v with HMAC %d, want %d", i, ok, id, hm)
				}
			}
			p.transfer(t, 0, 300)
			p.transfer(t, 1, 100)
			// Rotation: both ends learn key 1, side 0 starts using it.
			for _, a := range p.as {
				if err := a.AddKey(1, []byte("the next key")); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.as[0].DeleteKey(0); err != api.ErrAuthActiveKey {
				t.Fatalf("DeleteKey(active) = %v, want ErrAuthActiveKey", err)
			}
			if err := p.as[0].SetActiveKey(1); err != nil {
				t.Fatal(err)
			}
			p.transfer(t, 0, 200)
			// The peer still signs its SACKs with key 0: side 0 must keep
			// it until the peer moved too.
			if err := p.as[1].SetActiveKey(1); err != nil {
				t.Fatal(err)
			}
			for _, a := range p.as {
				if err := a.DeleteKey(0); err != nil {
					t.Fatal(err)
				}
			}
			p.transfer(t, 0, 200)
			p.transfer(t, 1, 100)
			for i := range 2 {
				var newKey, freed bool
				for _, e := range p.events[i] {
					newKey = newKey || e.Kind == api.EventAuthNewKey && e.KeyID == 1
					freed = freed || e.Kind == api.EventAuthKeyFree && e.KeyID == 0
				}
				if !newKey || !freed {
					t.Fatalf("side %d events: peer's new key %v, key 0 freed %v", i, newKey, freed)
				}
			}
			for i, a := range p.as {
				s := a.stats.Auth
				if s.Sent == 0 || s.Verified == 0 || s.BadHMAC+s.UnknownKey+s.UnsupportedHMAC+s.Missing != 0 {
					t.Fatalf("side %d: AUTH counters %+v", i, s)
				}
			}
		})
	}
}

// TestAuthWrongKeyDropped: two ends with different endpoint-pair keys
// complete the handshake (nothing in it is authenticated) but every DATA
// is dropped and counted: no message is delivered.
func TestAuthWrongKeyDropped(t *testing.T) {
	c0 := Config{Extensions: api.Extensions{AuthChunks: []chunk.Type{chunk.TypeData}, AuthKeys: []api.AuthKey{{ID: 0, Key: []byte("one")}}}}
	c1 := Config{Extensions: api.Extensions{AuthChunks: []chunk.Type{chunk.TypeData}, AuthKeys: []api.AuthKey{{ID: 0, Key: []byte("two")}}}}
	p := newAuthPair(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, [2]Config{c0, c1})
	p.connect()
	if err := p.as[0].send(p.now, 0, 0, false, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	for p.now.Sub(t0) < 5*time.Second && p.step() {
	}
	var buf [64]byte
	if k, _, _ := p.as[1].read(buf[:]); k != 0 {
		t.Fatalf("a message arrived under a wrong key: %q", buf[:k])
	}
	if s := p.as[1].stats.Auth; s.BadHMAC == 0 {
		t.Fatalf("bad HMACs not counted: %+v", s)
	}
}
