package assoc

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// The port filter of the shell (SetPortFilter): on a shared port space
// (raw IP), an INIT to a port nobody listens on gets no answer and costs
// nothing, and a packet out of the blue for another port is someone
// else's and gets no ABORT (RFC 9260 section 8.4 (8) would abort another
// endpoint's association); packets of our own associations always pass.
// On a port space of the endpoint's own, the INIT is answered with ABORT
// (TestInitToUnknownPortAborted).
func TestPortFilter(t *testing.T) {
	t.Run("init to another port", func(t *testing.T) {
		tc := newTestEndpoint(t, testConfig())
		tc.ep.SetPortFilter(PortFilter{Listen: tc.lport + 1, Shared: true})
		tc.writePacket(0, tc.peerInit())
		tc.wantIdle()
		if s := tc.ep.Stats(); s.PacketsIn != 0 || s.InitsIn != 0 {
			t.Fatalf("a filtered INIT was counted: %+v", s.Counters)
		}
		tc.ep.SetPortFilter(PortFilter{Listen: tc.lport})
		tc.connectServer()
		// Our association's packets pass whatever the listening port.
		tc.ep.SetPortFilter(PortFilter{Shared: true})
		tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("x")))
		tc.wantChunk(chunk.TypeSack)
	})
	t.Run("shared ports", func(t *testing.T) {
		for _, shared := range []bool{false, true} {
			tc := newTestEndpoint(t, testConfig())
			tc.ep.SetPortFilter(PortFilter{Listen: tc.lport + 1, Shared: shared})
			tc.writePacket(0x1234, dataChunk(3, 1, 0, 0, 0, []byte("ootb")))
			tc.readPackets()
			if aborted := len(tc.sent) == 1 && tc.sent[0].p.chunks[0].typ == chunk.TypeAbort; aborted == shared || len(tc.sent) > 1 {
				t.Fatalf("shared %v: sent %d packets (ABORT %v)", shared, len(tc.sent), aborted)
			}
		}
	})
}
