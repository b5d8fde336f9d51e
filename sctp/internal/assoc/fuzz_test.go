package assoc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// FuzzEndpoint feeds arbitrary packets to an endpoint whose association is
// in any state. The fuzzer picks the state, whether the packet carries the
// association's tag, the peer's tag or its own, and the bytes; the harness
// fixes ports and checksum so that the state machine, not the CRC check,
// is what gets explored. Nothing may panic, and every packet the endpoint
// produces must parse.
func FuzzEndpoint(f *testing.F) {
	tc := newTestEndpoint(f, testConfig())
	seeds := [][]byte{
		tc.peerInit(),
		initChunk(chunk.TypeInitAck, 9, 65536, 10, 10, 1, param(chunk.ParamStateCookie, []byte("cookie"))),
		dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("data")),
		sackChunk(1, 65536),
		chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("info"))),
		chunkOf(chunk.TypeAbort, 1, nil),
		chunkOf(chunk.TypeShutdown, 0, u32(1)),
		chunkOf(chunk.TypeShutdownAck, 0, nil),
		chunkOf(chunk.TypeShutdownComplete, 0, nil),
		chunkOf(chunk.TypeCookieEcho, 0, make([]byte, cookieLen)),
		chunkOf(chunk.TypeCookieAck, 0, nil),
		chunkOf(chunk.TypeError, 0, cause(chunk.CauseStaleCookie, u32(1))),
		chunkOf(chunk.TypeForwardTSN, 0, append(u32(tc.peerTSN+2), 0, 1, 0, 3)),
	}
	for i, c := range seeds {
		for s := range numStates {
			f.Add(uint8(s), uint8(i%3), append(make([]byte, 12), c...))
		}
	}
	f.Fuzz(func(t *testing.T, st, tagMode uint8, pkt []byte) {
		s := state(st % uint8(numStates))
		tc := driveTo(t, s)
		if len(pkt) >= 12 {
			binary.BigEndian.PutUint16(pkt, tc.pport)
			binary.BigEndian.PutUint16(pkt[2:], tc.lport)
			var tag uint32
			switch {
			case tagMode%3 == 0 && tc.a != nil:
				tag = tc.a.localTag
			case tagMode%3 == 1:
				tag = tc.peerTag
			default:
				tag = binary.BigEndian.Uint32(pkt[4:])
			}
			binary.BigEndian.PutUint32(pkt[4:], tag)
			chunk.SetChecksum(pkt)
		}
		tc.ep.receive(tc.now, tc.peer, pkt)
		tc.readPackets()
		tc.now = tc.now.Add(time.Hour)
		tc.ep.Expire(tc.now)
		tc.readPackets()
		if tc.ep.replyCount > maxReplies {
			t.Fatal("reply ring overflow")
		}
	})
}
