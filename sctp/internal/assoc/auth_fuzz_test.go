package assoc

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// FuzzAuthPacket feeds an authenticated association packets that start with
// an AUTH chunk, signed correctly (with any key id and HMAC id) or made of
// arbitrary bytes, followed by arbitrary chunks. Nothing may panic, every
// packet the endpoint sends must parse, the association must stay
// established, and a chunk of a type it requires authenticated is accepted
// only after a valid AUTH (counted otherwise).
func FuzzAuthPacket(f *testing.F) {
	f.Add(true, uint16(5), uint16(chunk.HMACSHA256), dataChunk(3, 1001, 0, 1, 51, []byte("x")))
	f.Add(true, uint16(7), uint16(chunk.HMACSHA1), dataChunk(3, 1001, 0, 1, 51, []byte("x")))
	f.Add(false, uint16(5), uint16(3), append(make([]byte, 32), dataChunk(3, 1001, 0, 1, 51, []byte("x"))...))
	f.Add(false, uint16(5), uint16(1), []byte{1, 2})
	f.Add(true, uint16(5), uint16(2), sackChunk(1, 65536))
	f.Fuzz(func(t *testing.T, sign bool, keyID, hmacID uint16, body []byte) {
		tc, peer := authServer(t, chunk.HMACSHA256, chunk.HMACSHA1)
		tc.readPackets()
		before := tc.a.stats.Auth
		var pkt []byte
		if sign {
			pkt = peer.sign(keyID, hmacID, body)
		} else {
			v := binary.BigEndian.AppendUint16(nil, keyID)
			v = binary.BigEndian.AppendUint16(v, hmacID)
			pkt = append(v, body...)
			pkt = chunkOf(chunk.TypeAuth, 0, pkt[:min(len(pkt), 40)])
			pkt = append(pkt, body[min(len(body), 36):]...)
		}
		b := appendHeader(nil, tc.pport, tc.lport, tc.a.localTag)
		b = finishPacket(append(b, pkt...), 0)
		tc.ep.receive(tc.now, tc.peer, b)
		tc.readPackets()
		if tc.a.state != stateEstablished && tc.a.state != stateShutdownAckSent && !tc.a.closed {
			// A signed SHUTDOWN or ABORT may move it on; nothing unsigned can.
			if !sign || keyID != 5 {
				t.Fatalf("state %v after an unsigned packet", tc.a.state)
			}
		}
		after := tc.a.stats.Auth
		if !(sign && keyID == 5 && hmacLen(hmacID) > 0) && after.Verified != before.Verified {
			t.Fatalf("AUTH verified that was not signed with a known key: %+v", after)
		}
	})
}

// FuzzAuthCookie round-trips State Cookies carrying arbitrary key vectors
// and addresses, and opens arbitrary cookie bytes: a cookie this endpoint
// signed opens to the same content; any other bytes are rejected without a
// panic.
func FuzzAuthCookie(f *testing.F) {
	f.Add([]byte("vector"), uint8(0), false, []byte{})
	f.Add(bytes.Repeat([]byte{7}, maxAuthVector), uint8(3), true, make([]byte, cookieLen+60))
	f.Fuzz(func(t *testing.T, vec []byte, naddrs uint8, randomIn bool, junk []byte) {
		j := newCookieJar(newTestRand(1), 0, t0)
		var c cookie
		if junk != nil {
			j.openCookie(junk, peerAddr, &c)
		}
		if len(vec) == 0 || len(vec) > maxAuthVector {
			return
		}
		in := cookie{created: t0, localTag: 1, peerTag: 2, peer: peerAddr, authVec: vec, randomIn: randomIn}
		in.addrs = make([]byte, 16*int(naddrs%maxPeerAddrs))
		in.random[0] = 9
		b := j.appendCookie(nil, &in)
		var out cookie
		if r := j.openCookie(b, peerAddr, &out); r != cookieOK {
			t.Fatalf("own cookie rejected: %v", r)
		}
		if !bytes.Equal(out.authVec, vec) || len(out.addrs) != len(in.addrs) || out.randomIn != randomIn {
			t.Fatalf("cookie content changed")
		}
		if randomIn && out.random != in.random {
			t.Fatalf("carried RANDOM changed")
		}
		b[len(b)-1] ^= 1
		if j.openCookie(b, peerAddr, &out) == cookieOK {
			t.Fatalf("altered cookie accepted")
		}
	})
}

// FuzzASCONF feeds an association that accepts ASCONF authenticated ASCONF
// and ASCONF-ACK chunks with arbitrary serial numbers and parameters.
// Nothing may panic, every packet sent must parse, the association stays
// established with at most 32 paths (but for a well-formed ASCONF-ACK
// that RFC 5061 rule F0 has it abort), and the first path stays the
// handshake's.
func FuzzASCONF(f *testing.F) {
	add, _ := chunk.AppendASCONFAddrParam(nil, chunk.ParamAddIPAddress, 1, netip.MustParseAddr("192.0.2.9"))
	del, _ := chunk.AppendASCONFAddrParam(nil, chunk.ParamDeleteIPAddress, 2, netip.MustParseAddr("192.0.2.2"))
	f.Add(false, uint32(0), add)
	f.Add(false, uint32(0), append(add, del...))
	f.Add(true, uint32(0), []byte{0xc0, 0x05, 0, 8, 0, 0, 0, 1})
	f.Add(false, uint32(1), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, ack bool, serialOff uint32, params []byte) {
		tc, peer := asconfServer(t)
		m := chunk.ASCONF{Ack: ack, Serial: tc.peerTSN + serialOff, Params: params}
		if !ack {
			m.Address = chunk.Param{Type: chunk.ParamIPv4Address, Value: []byte{192, 0, 2, 2}}
		}
		if ack {
			m.Serial = uint32(tc.a.localTSN) + serialOff
		}
		b, err := m.Append(nil)
		if err != nil {
			return
		}
		for range 2 {
			tc.writeChunks(peer.sign(0, chunk.HMACSHA1, b))
			tc.readPackets()
		}
		// A chunk whose parameters do not parse is discarded and
		// counted, whatever its serial; F0 applies to those that do.
		l := int(binary.BigEndian.Uint16(b[2:4]))
		_, perr := chunk.ParseASCONF(chunk.Chunk{Type: chunk.TypeASCONFAck, Value: b[4:l]})
		if ack && int32(serialOff) >= 0 && perr == nil {
			// RFC 5061 F0: an ASCONF-ACK at or beyond the next serial
			// with no ASCONF outstanding aborts the association.
			if !tc.a.closed {
				t.Fatalf("ASCONF-ACK serial +%d with none outstanding: state %v, want aborted", serialOff, tc.a.state)
			}
			return
		}
		if tc.a.state != stateEstablished || len(tc.a.Paths(nil)) > maxPeerAddrs {
			t.Fatalf("state %v, %d paths", tc.a.state, len(tc.a.Paths(nil)))
		}
		if ps := tc.a.Paths(nil); ps[0].Addr != peerAddr {
			t.Fatalf("first path %v", ps[0].Addr)
		}
	})
}
