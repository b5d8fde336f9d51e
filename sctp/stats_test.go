package sctp

import (
	"testing"
	"time"
)

// TestStatsSnapshot checks that the counters an operator reads follow what
// happened: packets and chunks by type each way, drops by reason, and the
// primary path's RTT, RTO and cwnd.
func TestStatsSnapshot(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.now = tc.now.Add(30 * time.Millisecond)
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("hello")))
	tc.wantChunk(ctSack)
	tc.writePacket(tc.a.localTag+1, dataChunk(3, tc.peerTSN+1, 0, 1, 0, []byte("forged")))
	tc.writePacket(tc.a.localTag, chunkOf(0x3f, 0, nil))
	s := tc.ep.statsSnapshot()
	checks := []struct {
		name      string
		got, want uint64
	}{
		{"PacketsIn", s.PacketsIn, 5}, // INIT, COOKIE ECHO, DATA, forged DATA, unknown
		{"PacketsOut", s.PacketsOut, 3},
		{"ChunksIn[INIT]", s.ChunksIn[ctInit], 1},
		{"ChunksIn[DATA]", s.ChunksIn[ctData], 2},
		{"ChunksOut[INIT ACK]", s.ChunksOut[ctInitAck], 1},
		{"ChunksOut[COOKIE ACK]", s.ChunksOut[ctCookieAck], 1},
		{"ChunksOut[SACK]", s.ChunksOut[ctSack], 1},
		{"BadVTag", s.BadVTag, 1},
		{"UnknownChunks", s.UnknownChunks, 1},
		{"InitsIn", s.InitsIn, 1},
		{"AssocsUp", s.AssocsUp, 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if as := tc.a.snapshot(); as.RTO != time.Second || as.Cwnd == 0 {
		t.Errorf("association RTO %v cwnd %d", as.RTO, as.Cwnd)
	}
}
