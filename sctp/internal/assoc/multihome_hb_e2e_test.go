package assoc

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// The primary cut during a transfer with heartbeats every second (as the
// Linux multi-homing test runs): a HEARTBEAT outstanding at the cut may be
// what moves the primary to potentially failed, before its T3-rtx; the
// chunks in flight on it must still be retransmitted on the other path.
func TestMultihomeFailoverFastHeartbeats(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	for seed := uint64(1); seed <= 12; seed++ {
		n := newMHNet(t, seed, links, func(c *Config) { c.HeartbeatInterval = time.Second })
		n.connect()
		n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
		n.toSend = 4000
		n.run(time.Minute, func() bool { return n.recv > 500+int(seed)*97 })
		n.cut(0, 1)
		n.mark = n.now
		n.run(5*time.Minute, func() bool { return n.recv == n.toSend })
		if n.recv != n.toSend {
			t.Errorf("seed %d: %d of %d messages after 5 minutes; paths %+v", seed, n.recv, n.toSend, n.ca.Paths(nil))
		}
	}
}
