package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"

	"github.com/usctp/usctp/internal/testsupport"
)

// bdpRun moves volume bytes from A to B over a 100 Mbit/s link with 100 ms
// RTT and a bottleneck queue of one bandwidth-delay product, and returns
// the goodput of the second half of the transfer in bits per second (the
// first includes slow start) and A's counters.
func bdpRun(t testing.TB, volume int64, adj func(*Config)) (float64, Stats) {
	const rate = 100e6 / 8
	link := simnet.LinkConfig{Delay: 50 * time.Millisecond, Rate: rate, QueueBytes: rate / 10}
	cfgA := Config{LocalTSN: 1000, OutStreams: 1, InStreams: 1, Buffers: api.Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20}}
	cfgB := cfgA
	cfgB.LocalTSN = 9
	if adj != nil {
		adj(&cfgA)
		adj(&cfgB)
	}
	p := newPair(t, 5, link, cfgA, cfgB)
	p.a.maxMsg = 1400
	p.a.toSend = volume
	p.runUntil(t, func() bool { return p.b.recvBytes >= volume/2 }, time.Hour)
	half, halfBytes := p.now, p.b.recvBytes
	p.run(t, time.Hour)
	if bdpProbe != nil {
		bdpProbe(p.a.e, p.b.e)
	}
	return float64(p.b.recvBytes-halfBytes) * 8 / p.now.Sub(half).Seconds(), p.a.e.stats
}

// bdpProbe, when set, sees the engines of A (the sender) and B at the
// end of bdpRun.
var bdpProbe func(a, b *Engine)

// TestHighBDP: one association on a 100 Mbit/s, 100 ms path without loss
// carries at least 90% of the link in user data (the headers take 4%)
// once its buffers hold a bandwidth-delay product (here set in Config: 4
// MiB each way; TestHighBDPAutotune grows them), with RACK-style recovery
// and either controller. HyStart++ (RFC 9406) ends slow start as the
// queue builds, so the overshoot costs a few hundred chunks (4384 with
// RFC 9260's slow start alone, 6468 with CUBIC's), recovered within a few
// round trips. With RFC 9260's rules that recovery needs T3-rtx and the
// window restarts from one chunk; logged for comparison.
func TestHighBDP(t *testing.T) {
	volume := int64(96 << 20)
	if testing.Short() || testsupport.RaceEnabled {
		t.Skip("long")
	}
	for _, m := range recoveryModes {
		t.Run(m.name, func(t *testing.T) {
			bps, st := bdpRun(t, volume, m.adj)
			t.Logf("%.1f Mbit/s; fast rtx %d, recoveries %d, T3 %d, probes %d", bps/1e6, st.FastRetransmit, st.FastRecoveries, st.T3Expiries, st.Probes)
			if m.name != "RFC 9260" && bps < 90e6 {
				t.Errorf("%.1f Mbit/s, want at least 90", bps/1e6)
			}
			if m.name != "RFC 9260" && st.FastRetransmit > 1000 {
				t.Errorf("%d fast retransmissions: the slow-start overshoot was not cut short", st.FastRetransmit)
			}
		})
	}
}

// TestHighBDPAutotune: with the default 1 MiB buffers, which cap one
// association at about 84 Mbit/s on a 100 ms path (1 MiB per round trip),
// autotuning (RecvBufferMax, SendBufferMax) grows the receive and send
// buffers to the path's bandwidth-delay product by themselves and the
// association carries at least 90% of the 100 Mbit/s link; the receive
// buffer ends near twice the BDP (1.25 MB), far below its 16 MiB bound.
// Without autotuning the same buffers stay below 90%.
func TestHighBDPAutotune(t *testing.T) {
	volume := int64(96 << 20)
	if testing.Short() || testsupport.RaceEnabled {
		t.Skip("long")
	}
	var recvBuf, sendBuf int
	var growths uint64
	run := func(max int) (float64, Stats) {
		return bdpRun(t, volume, func(c *Config) {
			c.SendBuffer, c.RecvBuffer = api.DefaultBuffer, api.DefaultBuffer
			c.RecvBufferMax, c.SendBufferMax = max, max
		})
	}
	fixed, _ := run(0)
	t.Logf("fixed 1 MiB buffers: %.1f Mbit/s", fixed/1e6)
	if fixed >= 90e6 {
		t.Errorf("fixed 1 MiB buffers reach %.1f Mbit/s: the test does not need autotuning", fixed/1e6)
	}
	bdpProbe = func(a, b *Engine) {
		recvBuf, sendBuf, growths = b.recv.win.capacity, a.send.queue.sendBuffer(), b.stats.RecvBufferGrowths
	}
	defer func() { bdpProbe = nil }()
	bps, st := run(16 << 20)
	t.Logf("autotuned: %.1f Mbit/s; receive buffer %d (%d growths), send buffer %d; fast rtx %d, T3 %d",
		bps/1e6, recvBuf, growths, sendBuf, st.FastRetransmit, st.T3Expiries)
	if bps < 90e6 {
		t.Errorf("autotuned: %.1f Mbit/s, want at least 90", bps/1e6)
	}
	if recvBuf <= api.DefaultBuffer || recvBuf > 8<<20 || sendBuf <= api.DefaultBuffer {
		t.Errorf("buffers: receive %d, send %d; want grown above 1 MiB, the receive one near 2 BDP", recvBuf, sendBuf)
	}
}
