package assoc

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// RFC 9260 section 6.4.1: "the endpoint SHOULD try to retransmit a chunk
// that timed out to an active destination transport address that is
// different from the last destination address to which the DATA chunk was
// sent." The primary is cut with a full window in flight, heartbeats every
// second, PF threshold 0; the second path is unconfirmed at the cut (mode
// 0), or its answers are lost for a while too (mode 1: the peer's SACKs
// and HEARTBEAT ACKs come back on it only later, as Linux's did in
// TestKernelMultihom), or it is cut both ways for a while (mode 2). Every
// message must arrive: the chunks in flight on the cut path are
// retransmitted on the second path and never wait forever (the stall seen
// once against Linux: both paths potentially failed, the primary's T3-rtx
// expiring with nothing in flight on it, faulting it again and again and
// holding every send to one packet; a T3-rtx recovery packet lost on the
// cut path then held every send, with no timer left to end it). Within
// 15 s of the second path's return (7.1 s at worst in these 72 runs).
func TestMultihomeCutChunksNeverWaitForever(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	var total, worst time.Duration
	defer func() { t.Logf("all messages in %v after the second path came back at worst, %v in all", worst, total) }()
	for seed := uint64(1); seed <= 6; seed++ {
		for mode := 0; mode <= 2; mode++ {
			for _, up := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 3300 * time.Millisecond, 7 * time.Second} {
				n := newMHNet(t, seed, links, func(c *Config) { c.HeartbeatInterval = time.Second })
				if mode == 0 {
					n.cut(1, 1)
				}
				n.connect()
				if mode > 0 {
					n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
				}
				n.toSend = 6000
				n.run(time.Minute, func() bool { return n.recv > 300+int(seed)*97 })
				n.cut(0, 1)
				switch mode {
				case 1:
					n.net.Link(3).SetConfig(simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
				case 2:
					n.cut(1, 1)
				}
				n.mark = n.now
				n.run(time.Minute, func() bool { return n.now.Sub(n.mark) >= up })
				n.cut(1, 0)
				n.run(time.Minute, func() bool {
					if n.now.Sub(n.mark) > up+15*time.Second {
						t.Fatalf("seed %d mode %d, second path up after %v: %d of %d messages %v after the cut; cumulative ack %d, next TSN %d; paths %+v",
							seed, mode, up, n.recv, n.toSend, n.now.Sub(n.mark), n.ca.data.eng.Info().CumAck, n.ca.data.eng.NextTSN(), n.ca.Paths(nil))
					}
					return n.recv == n.toSend
				})
				d := n.now.Sub(n.mark) - up
				total += d
				worst = max(worst, d)
			}
		}
	}
}
