package assoc

import (
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// zcaParam is a Zero Checksum Acceptable parameter (RFC 9653 section 4)
// naming error detection method edmid.
func zcaParam(edmid uint32) []byte { return param(chunk.ParamZeroChecksum, u32(edmid)) }

// zcaOf returns the EDMID of the Zero Checksum Acceptable parameter of the
// INIT or INIT ACK chunk c, and whether it has one.
func zcaOf(c *rxChunk) (uint32, bool) {
	var edmid uint32
	found := false
	walkParams(c.value()[16:], func(typ chunk.ParamType, val, _ []byte) bool {
		if typ == chunk.ParamZeroChecksum && len(val) == 4 {
			edmid, found = binary.BigEndian.Uint32(val), true
			return false
		}
		return true
	})
	return edmid, found
}

// checksumField returns the checksum field of a packet the endpoint sent.
func checksumField(p *sentPacket) uint32 { return binary.LittleEndian.Uint32(p.raw[8:]) }

// RFC 9653 section 5.1: an endpoint willing to accept zero checksums
// includes the Zero Checksum Acceptable parameter, naming its alternate
// error detection method, in the INIT or INIT ACK it sends. Ours carry it
// with the DTLS method when Config.ZeroChecksumDTLS is set, and only then.
func TestRFC9653AnnouncedWhenConfigured(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := testConfig()
		cfg.ZeroChecksumDTLS = on
		tc := newTestEndpoint(t, cfg)
		if _, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport); err != nil {
			t.Fatal(err)
		}
		p, c := tc.wantChunk(chunk.TypeInit)
		if edmid, ok := zcaOf(c); ok != on || ok && edmid != chunk.EDMIDDTLS {
			t.Errorf("ZeroChecksumDTLS %v: INIT has the parameter %v (EDMID %d)", on, ok, edmid)
		}
		if checksumField(p) != chunk.Checksum(p.raw) {
			t.Errorf("ZeroChecksumDTLS %v: INIT without its CRC32c", on)
		}

		tc = newTestEndpoint(t, cfg)
		tc.writePacket(0, tc.peerInit(zcaParam(chunk.EDMIDDTLS)))
		p, c = tc.wantChunk(chunk.TypeInitAck)
		if edmid, ok := zcaOf(c); ok != on || ok && edmid != chunk.EDMIDDTLS {
			t.Errorf("ZeroChecksumDTLS %v: INIT ACK has the parameter %v (EDMID %d)", on, ok, edmid)
		}
		if checksumField(p) != chunk.Checksum(p.raw) {
			t.Errorf("ZeroChecksumDTLS %v: INIT ACK (sent outside an association) without its CRC32c", on)
		}
	}
}

// RFC 9653 section 5.2: once the peer announced a method the endpoint
// supports, its packets go with a zero checksum, but for those with an
// INIT or a COOKIE ECHO, which keep the CRC32c. A peer that announced
// nothing, or another method, gets the CRC32c on every packet, as does
// every peer of an endpoint that did not enable it.
func TestRFC9653ZeroChecksumSentToAnnouncingPeer(t *testing.T) {
	for _, tt := range []struct {
		name     string
		on       bool
		peer     [][]byte
		wantZero bool
	}{
		{"announced", true, [][]byte{zcaParam(chunk.EDMIDDTLS)}, true},
		{"not announced", true, nil, false},
		{"other method", true, [][]byte{zcaParam(2)}, false},
		{"not enabled here", false, [][]byte{zcaParam(chunk.EDMIDDTLS)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.ZeroChecksumDTLS = tt.on
			tc := newTestEndpoint(t, cfg)
			tc.acceptZero = true
			a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
			if err != nil {
				t.Fatal(err)
			}
			tc.a = a
			tc.wantChunk(chunk.TypeInit)
			ps := append([][]byte{param(chunk.ParamStateCookie, []byte("peer cookie"))}, tt.peer...)
			tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, ps...))
			p, _ := tc.wantChunk(chunk.TypeCookieEcho)
			if checksumField(p) == 0 || checksumField(p) != chunk.Checksum(p.raw) {
				t.Errorf("COOKIE ECHO packet with checksum %#x, want its CRC32c", checksumField(p))
			}
			tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
			tc.wantState(stateEstablished)
			tc.wantEvent(api.EventUp)
			if send, recv := a.ZeroChecksum(); send != tt.wantZero || recv != tt.on {
				t.Errorf("ZeroChecksum() = %v, %v; want %v, %v", send, recv, tt.wantZero, tt.on)
			}
			if err := a.send(tc.now, 0, 51, false, []byte("data")); err != nil {
				t.Fatal(err)
			}
			p, _ = tc.wantChunk(chunk.TypeData)
			switch got := checksumField(p); {
			case tt.wantZero && got != 0:
				t.Errorf("DATA packet with checksum %#x, want 0", got)
			case !tt.wantZero && got != chunk.Checksum(p.raw):
				t.Errorf("DATA packet with checksum %#x, want its CRC32c", got)
			}
		})
	}
}

// RFC 9653 section 5.3: an endpoint that sent the parameter accepts
// packets whose checksum is zero besides those with a correct CRC32c;
// otherwise a zero checksum is a bad one and the packet is dropped. The
// server's COOKIE ACK, its first packet of the association, already goes
// with a zero checksum to a peer that announced the method.
func TestRFC9653ZeroChecksumAccepted(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := testConfig()
		cfg.ZeroChecksumDTLS = on
		tc := newTestEndpoint(t, cfg)
		tc.acceptZero = true
		tc.writePacket(0, tc.peerInit(zcaParam(chunk.EDMIDDTLS)))
		_, c := tc.wantChunk(chunk.TypeInitAck)
		in := initValue(tc.t, c)
		tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
		tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
		if tc.a == nil {
			t.Fatalf("no association after COOKIE ECHO")
		}
		p, _ := tc.wantChunk(chunk.TypeCookieAck)
		if got := checksumField(p); on && got != 0 || !on && got != chunk.Checksum(p.raw) {
			t.Errorf("ZeroChecksumDTLS %v: COOKIE ACK with checksum %#x", on, got)
		}
		tc.wantEvent(api.EventUp)

		tc.sendZero = true
		before := tc.ep.stats.BadChecksum
		tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 51, []byte("zero")))
		tc.sendZero = false
		var buf [8]byte
		n, _, err := tc.a.read(buf[:])
		switch {
		case on && (err != nil || string(buf[:n]) != "zero"):
			t.Errorf("announced: the packet with a zero checksum was not delivered (%q, %v)", buf[:n], err)
		case !on && err == nil:
			t.Errorf("not announced: the packet with a zero checksum was delivered (%q)", buf[:n])
		case !on && tc.ep.stats.BadChecksum != before+1:
			t.Errorf("not announced: BadChecksum %d, want %d", tc.ep.stats.BadChecksum, before+1)
		}
	}
}
