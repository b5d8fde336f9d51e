package assoc

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// driveTo returns a harness whose association is in state s (a fresh
// endpoint without association for CLOSED).
func driveTo(t testing.TB, s state) *testConn {
	t.Helper()
	tc := newTestEndpoint(t, testConfig())
	switch s {
	case stateClosed:
	case stateCookieWait, stateCookieEchoed:
		a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
		tc.a = a
		tc.wantChunk(chunk.TypeInit)
		if s == stateCookieEchoed {
			tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
			tc.wantChunk(chunk.TypeCookieEcho)
		}
	default:
		tc.connectServer()
		switch s {
		case stateShutdownPending, stateShutdownReceived:
			tc.a.send(tc.now, 0, 0, false, []byte("unacked"))
			tc.wantChunk(chunk.TypeData)
			if s == stateShutdownPending {
				tc.a.Shutdown(tc.now)
			} else {
				tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
			}
		case stateShutdownSent:
			tc.a.Shutdown(tc.now)
			tc.wantChunk(chunk.TypeShutdown)
		case stateShutdownAckSent:
			tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
			tc.wantChunk(chunk.TypeShutdownAck)
		}
	}
	if tc.a != nil {
		tc.wantState(s)
	}
	tc.readPackets()
	tc.sent = nil
	tc.events = nil
	return tc
}

// chunkBodies returns chunk values to try for chunk type typ: empty, a
// well-formed one for the known types, and random bytes.
func chunkBodies(tc *testConn, typ chunk.Type, r *rand.Rand) [][]byte {
	bodies := [][]byte{nil}
	var ltsn uint32 = 1
	if tc.a != nil {
		ltsn = uint32(tc.a.localTSN)
	}
	switch typ {
	case chunk.TypeData, chunk.TypeIData:
		bodies = append(bodies, dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("payload"))[4:])
	case chunk.TypeInit:
		bodies = append(bodies, tc.peerInit()[4:])
	case chunk.TypeInitAck:
		bodies = append(bodies, initChunk(chunk.TypeInitAck, 0x4444, 65536, 10, 10, 5, param(chunk.ParamStateCookie, []byte("c")))[4:])
	case chunk.TypeSack, chunk.TypeNRSack:
		bodies = append(bodies, sackChunk(ltsn-1, 65536)[4:])
	case chunk.TypeHeartbeat, chunk.TypeHeartbeatAck:
		bodies = append(bodies, param(chunk.ParamHeartbeatInfo, make([]byte, 16)))
	case chunk.TypeAbort, chunk.TypeError:
		bodies = append(bodies, cause(chunk.CauseStaleCookie, u32(5)), cause(chunk.CauseProtocolViolation, []byte("x")))
	case chunk.TypeShutdown:
		bodies = append(bodies, u32(ltsn-1))
	case chunk.TypeCookieEcho:
		j := tc.ep.jar
		c := cookie{created: tc.now, life: 60e9, peerPort: tc.pport, localPort: tc.lport, localTag: 0x5151,
			peerTag: 0x1515, localTSN: 1, peerTSN: 1, peerRwnd: 65536, localOS: 1, localMIS: 1, peerOS: 1, peerMIS: 1,
			peer: tc.peer}
		bodies = append(bodies, j.appendCookie(nil, &c))
	}
	rb := make([]byte, 4+r.IntN(40))
	for i := range rb {
		rb[i] = byte(r.Uint32())
	}
	return append(bodies, rb)
}

// TestEveryChunkInEveryState feeds every chunk type (all 256 values, with
// an empty, a well-formed and a random value, every flag pattern that
// matters) to an association in every state, with its own tag, the peer's
// tag and tag 0. Nothing may panic, and each packet must have an effect an
// operator can see: a packet sent, an event, a state change, or a counter
// (dropped, ignored, malformed, out of the blue, ...).
func TestEveryChunkInEveryState(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for s := range numStates {
		t.Run(s.String(), func(t *testing.T) {
			for typ := range 256 {
				probe := driveTo(t, s)
				flagSet, tagSet := []uint8{0, 1, 3}, []string{"own", "peer", "zero"}
				if !chunk.Type(typ).Known() {
					// Unknown types differ only by their action bits:
					// one flag pattern and our own tag reach the table.
					flagSet, tagSet = flagSet[:1], tagSet[:1]
				}
				for bi, body := range chunkBodies(probe, chunk.Type(typ), r) {
					for _, flags := range flagSet {
						for _, tagKind := range tagSet {
							tc := driveTo(t, s)
							var tag uint32
							switch {
							case tagKind == "own" && tc.a != nil:
								tag = tc.a.localTag
							case tagKind == "peer":
								tag = tc.peerTag
							}
							name := fmt.Sprintf("type %d body %d flags %d tag %s", typ, bi, flags, tagKind)
							checkEffect(t, tc, name, func() {
								tc.writePacket(tag, chunkOf(chunk.Type(typ), flags, body))
							})
						}
					}
				}
			}
		})
	}
}

// effectCounters sums the counters that record what happened to input.
func effectCounters(tc *testConn) uint64 {
	s := tc.ep.Stats()
	n := s.Ignored + s.Malformed + s.UnknownChunks + s.BadVTag + s.OOTB + s.Violations +
		s.HeartbeatsIn + s.ErrorsIn + s.AbortsIn + s.CookieBadMAC + s.CookieMismatch +
		s.CookieStale + s.InitsIn + s.BadChecksum + s.AssocsUp + s.HeartbeatAcks
	if tc.a != nil && tc.a.data.eng != nil {
		es := tc.a.data.eng.Stats()
		n += es.DataChunksReceived + es.SACKsReceived
	}
	return n
}

func checkEffect(t testing.TB, tc *testConn, name string, f func()) {
	t.Helper()
	before := effectCounters(tc)
	var st state = stateClosed
	if tc.a != nil {
		st = tc.a.state
	}
	defer func() {
		if e := recover(); e != nil {
			t.Fatalf("%s: panic: %v", name, e)
		}
	}()
	f()
	tc.readPackets()
	changed := tc.a != nil && (tc.a.state != st || tc.a.closed)
	if len(tc.sent) == 0 && len(tc.events) == 0 && !changed && effectCounters(tc) == before {
		t.Errorf("%s in %v: no visible effect", name, st)
	}
	if tc.ep.replyCount > maxReplies {
		t.Fatalf("%s: reply queue overflow", name)
	}
}

// TestStateTableNamesSections checks that every handler in the chunk-type x
// state table names the RFC 9260 section it implements (the name ends in
// the section number, like initCollision5_2_1), apart from the plain
// discard and ignore entries.
func TestStateTableNamesSections(t *testing.T) {
	re := regexp.MustCompile(`[0-9]+(_[0-9A-Z]+)*(-fm)?$`)
	for ct := range 256 {
		for s := range numStates {
			h := fsm[ct][s]
			if h == nil {
				t.Fatalf("type %d state %v: no handler", ct, s)
			}
			name := runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
			if strings.HasSuffix(name, "discardChunk") || strings.HasSuffix(name, "ignoreChunk") {
				continue
			}
			if !re.MatchString(name) {
				t.Errorf("type %d state %v: handler %s names no RFC section", ct, s, name)
			}
		}
	}
}
