package assoc

import (
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// RFC 6951 section 5.4 (quoted from memory, check the text): "After
// finding the association (which includes checking the verification tag),
// the UDP source port MUST be stored as the encapsulation port for the
// destination address the SCTP packet is received from". A packet from the
// peer's address on another UDP port, with the association's tag, is the
// association's, and what it sends there afterwards goes to the new port.
func TestEncapsPortStoredPerPeerAddress(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	moved := netip.AddrPortFrom(peerAddr.Addr(), 7777)
	tc.peer = moved
	tc.writeChunks(chunkOf(chunk.TypeHeartbeat, 0, param(1, []byte("probe info"))))
	if p, _ := tc.wantChunk(chunk.TypeHeartbeatAck); p.to != moved {
		t.Fatalf("HEARTBEAT ACK sent to %v, want %v", p.to, moved)
	}
	if peer, _ := tc.a.Peer(); peer != moved {
		t.Errorf("association's peer %v, want %v", peer, moved)
	}
	if tc.ep.assocs[assocKey{peer: peerAddr, localPort: tc.lport, peerPort: tc.pport}] != nil {
		t.Errorf("the old port is still indexed")
	}
	if err := tc.a.send(tc.now, 0, 0, false, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if p, _ := tc.wantChunk(chunk.TypeData); p.to != moved {
		t.Errorf("DATA sent to %v, want %v", p.to, moved)
	}
	if n := tc.a.stats.EncapsPortMoves; n != 1 {
		t.Errorf("EncapsPortMoves %d, want 1", n)
	}
}

// A packet from the peer's address on another port with a tag that is not
// the association's stays out of the blue: the port is not changed.
func TestEncapsPortNotMovedByWrongTag(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	a := tc.a
	tc.peer = netip.AddrPortFrom(peerAddr.Addr(), 7777)
	tc.writePacket(a.localTag+1, chunkOf(chunk.TypeHeartbeat, 0, param(1, []byte("probe info"))))
	if peer, _ := a.Peer(); peer != peerAddr {
		t.Errorf("a packet with a wrong tag moved the peer to %v", peer)
	}
	// Nor does an ABORT with the T bit (it carries the peer's own tag).
	tc.writePacket(tc.peerTag, chunkOf(chunk.TypeAbort, 1, nil))
	if a.closed {
		t.Errorf("an ABORT (T bit) from another port ended the association")
	}
	if n := a.stats.EncapsPortMoves; n != 0 {
		t.Errorf("EncapsPortMoves %d, want 0", n)
	}
}

// With several peer addresses each keeps its own encapsulation port: the
// second address, listed in the INIT ACK and indexed with the handshake's
// port, takes the port its packets come from; the first keeps its own.
func TestEncapsPortPerPath(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	tc.clientInitAck(addrParam(t, peerAddr2.Addr().String()))
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
	if len(tc.a.paths) != 2 || tc.a.paths[1].addr != peerAddr2 {
		t.Fatalf("paths %+v", tc.a.paths)
	}
	moved := netip.AddrPortFrom(peerAddr2.Addr(), 7777)
	tc.peer = moved
	tc.writeChunks(chunkOf(chunk.TypeHeartbeat, 0, param(1, []byte("probe info"))))
	if tc.a.paths[1].addr != moved || tc.a.paths[0].addr != peerAddr {
		t.Errorf("paths %v %v, want %v %v", tc.a.paths[0].addr, tc.a.paths[1].addr, peerAddr, moved)
	}
	if tc.ep.assocs[assocKey{peer: moved, localPort: tc.lport, peerPort: tc.pport}] != tc.a {
		t.Errorf("%v not indexed", moved)
	}
	// The path's HEARTBEATs now go to the new port.
	seen := 0
	for range 5 {
		tc.readPackets()
		for _, p := range tc.sent {
			if p.p.chunks[0].typ != chunk.TypeHeartbeat || p.to.Addr() != peerAddr2.Addr() {
				continue
			}
			if p.to != moved {
				t.Fatalf("HEARTBEAT to the second address sent to %v, want %v", p.to, moved)
			}
			seen++
		}
		tc.sent = nil
		tc.advanceToTimer()
	}
	if seen == 0 {
		t.Fatal("no HEARTBEAT to the second address")
	}
}
