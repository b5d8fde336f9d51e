package transfer

import (
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestBulkTransfer moves volume in both directions over many streams on a
// lossy, duplicating, reordering simulated network and checks that every
// message arrives exactly once, intact, and in order per stream for
// ordered messages. Under -short (and -race) the volume is smaller.
func TestBulkTransfer(t *testing.T) {
	volume := int64(100 << 20)
	if testing.Short() || testsupport.RaceEnabled {
		volume = 8 << 20
	}
	for _, tc := range []struct {
		name string
		link simnet.LinkConfig
	}{
		{"loss0", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: time.Millisecond}},
		{"loss1", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01, Dup: 0.01, Reorder: 0.01}},
		{"loss10", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.10, Dup: 0.02, Reorder: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vol := volume
			start := time.Now()
			cfgA := Config{LocalTSN: 0xffff0000, OutStreams: 64, InStreams: 64, Timers: api.Timers{RTOMin: 200 * time.Millisecond}}
			cfgB := Config{LocalTSN: 7, OutStreams: 64, InStreams: 64, Timers: api.Timers{RTOMin: 200 * time.Millisecond}}
			p := newPair(t, 42, tc.link, cfgA, cfgB)
			p.a.unordPct, p.b.unordPct = 10, 10
			p.a.toSend, p.b.toSend = vol, vol
			p.run(t, time.Hour)
			real := time.Since(start)
			t.Logf("%d MiB each way in %v virtual, %v real; A→B link %+v", vol>>20, p.now.Sub(epoch).Round(time.Millisecond), real.Round(time.Millisecond), p.n.Link(0).Stats)
			t.Logf("A: %s", statsLine(&p.a.e.stats, &p.a.e.path))
			t.Logf("B: %s", statsLine(&p.b.e.stats, &p.b.e.path))
		})
	}
}

// TestBulkPartialDelivery sends messages larger than the receive buffer
// over a lossy network: they can only get through with partial delivery.
func TestBulkPartialDelivery(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.02, Dup: 0.01, Reorder: 0.02}
	cfg := Config{LocalTSN: 77, OutStreams: 8, InStreams: 8, Timers: api.Timers{RTOMin: 100 * time.Millisecond}, Buffers: api.Buffers{RecvBuffer: 32 << 10}}
	p := newPair(t, 7, link, cfg, cfg)
	for _, s := range []*side{p.a, p.b} {
		s.maxMsg = 200 << 10 // up to six times the receive buffer
		s.unordPct = 20
		s.readSize = 3000 // the reader reads in small parts
		s.toSend = 8 << 20
	}
	if testing.Short() || testsupport.RaceEnabled {
		p.a.toSend, p.b.toSend = 2<<20, 2<<20
	}
	p.run(t, time.Hour)
	t.Logf("%d KiB each way in %v virtual; partial deliveries A %d B %d; dropped for window %d, held dropped for hole fillers %d",
		p.a.recvBytes>>10, p.now.Sub(epoch).Round(time.Millisecond), p.a.e.stats.PartialDeliveries, p.b.e.stats.PartialDeliveries,
		p.a.e.stats.DroppedWindow+p.b.e.stats.DroppedWindow, p.a.e.stats.DroppedReneged+p.b.e.stats.DroppedReneged)
	if p.a.e.stats.PartialDeliveries == 0 {
		t.Error("no partial delivery happened")
	}
}

// TestBulkTinyWindow runs a lossy transfer through an 8 KiB receive
// window with a slow reader, so the window is full most of the time and
// the receiver drops held chunks for hole fillers.
func TestBulkTinyWindow(t *testing.T) {
	link := simnet.LinkConfig{Delay: 5 * time.Millisecond, Loss: 0.05, Reorder: 0.05}
	cfg := Config{LocalTSN: 3, OutStreams: 4, InStreams: 4, Timers: api.Timers{RTOMin: 50 * time.Millisecond}, Buffers: api.Buffers{RecvBuffer: 8 << 10}}
	p := newPair(t, 11, link, cfg, cfg)
	for _, s := range []*side{p.a, p.b} {
		s.maxMsg = 3000
		s.readSize = 700
		s.readStep = 700 // a slow reader: the window stays closed
		s.toSend = 1 << 20
	}
	p.run(t, time.Hour)
	t.Logf("%d KiB each way in %v virtual; dropped for window %d, held dropped for hole fillers %d, reneged at the sender %d",
		p.a.recvBytes>>10, p.now.Sub(epoch).Round(time.Millisecond),
		p.a.e.stats.DroppedWindow+p.b.e.stats.DroppedWindow, p.a.e.stats.DroppedReneged+p.b.e.stats.DroppedReneged,
		p.a.e.stats.Reneged+p.b.e.stats.Reneged)
}

// TestBulkDeterministic: the same seed gives the same run.
func TestBulkDeterministic(t *testing.T) {
	run := func() (time.Duration, Stats) {
		link := simnet.LinkConfig{Delay: 15 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.05, Dup: 0.02, Reorder: 0.03}
		cfg := Config{LocalTSN: 5, OutStreams: 16, InStreams: 16, Timers: api.Timers{RTOMin: 100 * time.Millisecond}}
		p := newPair(t, 99, link, cfg, cfg)
		p.a.toSend, p.b.toSend = 1<<20, 1<<20
		p.run(t, time.Hour)
		return p.now.Sub(epoch), p.a.e.stats
	}
	d1, s1 := run()
	d2, s2 := run()
	if d1 != d2 || s1 != s2 {
		t.Fatalf("runs differ: %v %+v\n%v %+v", d1, s1, d2, s2)
	}
}

func statsLine(s *Stats, p *Path) string {
	return fmt.Sprintf("msgs=%d chunks=%d rtx=%d fastrtx=%d t3=%d dups=%d sacks=%d/%d srtt=%v rto=%v cwnd=%d",
		s.MessagesQueued, s.DataChunksSent, s.Retransmits, s.FastRetransmit, s.T3Expiries, s.DupTSNs, s.SACKsSent, s.SACKsReceived,
		p.SRTT(), p.RTO(), p.Cwnd())
}
