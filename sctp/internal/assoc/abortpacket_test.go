package assoc

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestAbortPacketEndsPeer: the packet AppendAbortPacket builds, delivered
// to the peer as another process would send it, ends the peer's
// association as the peer's ABORT with a "User-Initiated Abort" cause and
// the reason; with AUTH on ABORT negotiated the packet carries an AUTH
// chunk the peer accepts. The association that built it is untouched:
// still established, no counter moved.
func TestAbortPacketEndsPeer(t *testing.T) {
	auth := Config{Extensions: api.Extensions{AuthChunks: []chunk.Type{chunk.TypeAbort},
		AuthKeys: []api.AuthKey{{ID: 0, Key: []byte("endpoint pair key")}}}}
	for _, tt := range []struct {
		name string
		pair func(t *testing.T) *pair
	}{
		{"plain", func(t *testing.T) *pair { return newPair(t, 7, simnet.LinkConfig{Delay: time.Millisecond}) }},
		{"auth", func(t *testing.T) *pair {
			return newAuthPair(t, simnet.LinkConfig{Delay: time.Millisecond}, [2]Config{auth, auth})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pair(t)
			a, err := p.eps[0].connect(p.now, p.addrs[1], 6000, 6001)
			if err != nil {
				t.Fatal(err)
			}
			if b := a.AppendAbortPacket(nil, nil); len(b) != 0 {
				t.Fatalf("before the handshake: %d bytes, want none", len(b))
			}
			a.Abort(p.now, nil)
			p.connect()
			before := p.as[0].stats
			pkt := p.as[0].AppendAbortPacket([]byte("prefix"), []byte("process exited"))
			if string(pkt[:6]) != "prefix" {
				t.Fatal("the prefix was overwritten")
			}
			pkt = pkt[6:]
			if r, err := chunk.VerifyChecksum(pkt, false); r != chunk.ChecksumValid || err != nil {
				t.Fatalf("checksum: %v %v", r, err)
			}
			types := []chunk.Type{}
			for it := chunk.Chunks(pkt[12:]); ; {
				c, ok := it.Next()
				if !ok {
					break
				}
				types = append(types, c.Type)
			}
			want := []chunk.Type{chunk.TypeAbort}
			if tt.name == "auth" {
				want = []chunk.Type{chunk.TypeAuth, chunk.TypeAbort}
			}
			if len(types) != len(want) || types[0] != want[0] {
				t.Fatalf("chunks %v, want %v", types, want)
			}
			if p.as[0].state != stateEstablished || p.as[0].stats != before {
				t.Fatalf("the association changed: state %v", p.as[0].state)
			}
			p.eps[1].receive(p.now, p.addrs[0], pkt)
			p.eps[1].drainInto(&p.events[1])
			var down *Event
			for i := range p.events[1] {
				if e := &p.events[1][i]; e.Kind == api.EventDown {
					down = e
				}
			}
			if down == nil {
				t.Fatalf("peer events %v: no EventDown", p.events[1])
			}
			if down.End.Reason != reasonPeerAbort || down.Cause != uint16(chunk.CauseUserAbort) || down.End.UserReason != "process exited" {
				t.Fatalf("peer's end: %v, cause %d, reason %q", down.End.Reason, down.Cause, down.End.UserReason)
			}
			if b := p.as[1].AppendAbortPacket(nil, nil); len(b) != 0 {
				t.Fatalf("after the end: %d bytes, want none", len(b))
			}
		})
	}
}
