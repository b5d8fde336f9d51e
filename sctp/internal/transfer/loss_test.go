package transfer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"

	"github.com/usctp/usctp/internal/testsupport"
)

// lossRun moves volume bytes from A to B over a link with random loss
// (both directions) and 20 ms RTT and returns the virtual time it took
// and A's counters.
func lossRun(t testing.TB, seed uint64, loss float64, volume int64, adj func(*Config)) (time.Duration, Stats) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: loss}
	cfgA := Config{LocalTSN: 1000, OutStreams: 1, InStreams: 1}
	cfgB := Config{LocalTSN: 5000, OutStreams: 1, InStreams: 1}
	if adj != nil {
		adj(&cfgA)
		adj(&cfgB)
	}
	p := newPair(t, seed, link, cfgA, cfgB)
	p.a.maxMsg = 1400
	p.a.toSend = volume
	p.run(t, time.Hour)
	return p.now.Sub(epoch), p.a.e.stats
}

// recoveryModes are the configurations the loss tests compare.
var recoveryModes = []struct {
	name string
	adj  func(*Config)
}{
	{"RFC 9260", func(c *Config) { c.Recovery = api.RecoveryRFC9260 }},
	{"RACK", func(c *Config) { c.Recovery = api.RecoveryRACK }},
	{"RACK+CUBIC", func(c *Config) { c.Recovery, c.CongestionControl = api.RecoveryRACK, api.CongestionCubic }},
}

// TestLossNoT3WhileSACKsArrive: with RACK-style detection, random loss of
// 1%, 5% and 10% on a 20 ms path never waits for T3-rtx: lost chunks,
// lost retransmissions and lost tails are found from SACKs and probes
// (where the RFC 9260 rules need the timer for every lost retransmission).
func TestLossNoT3WhileSACKsArrive(t *testing.T) {
	volume := int64(4 << 20)
	if testing.Short() || testsupport.RaceEnabled {
		volume = 1 << 20
	}
	for _, loss := range []float64{0.01, 0.05, 0.10} {
		for _, m := range recoveryModes[1:] {
			t.Run(fmt.Sprintf("%s/%g", m.name, loss*100), func(t *testing.T) {
				// A seed's run may lose no retransmission (about 60
				// of them at 5% under -race): the three together do.
				var repeats uint64
				for seed := uint64(1); seed <= 3; seed++ {
					d, st := lossRun(t, seed, loss, volume, m.adj)
					t.Logf("seed %d: %v, fast rtx %d (repeat %d), probes %d, T3 %d, spurious %d",
						seed, d.Round(time.Millisecond), st.FastRetransmit, st.RepeatFastRetransmits, st.Probes, st.T3Expiries, st.SpuriousRetransmits)
					if st.T3Expiries != 0 {
						t.Errorf("seed %d: %d T3-rtx expiries", seed, st.T3Expiries)
					}
					repeats += st.RepeatFastRetransmits
				}
				if loss >= 0.05 && repeats == 0 {
					t.Errorf("no lost retransmission found again in three seeds")
				}
			})
		}
	}
}

// TestLossGoodputTable logs the goodput of each recovery mode at 1%, 5%
// and 10% random loss on a 20 ms path (median of three seeds), the table
// of the README (go test -run GoodputTable -v).
func TestLossGoodputTable(t *testing.T) {
	if testing.Short() || testsupport.RaceEnabled {
		t.Skip("long")
	}
	const volume = 8 << 20
	var b strings.Builder
	fmt.Fprintf(&b, "\n| loss | %s |\n|---|---|---|---|\n", strings.Join([]string{recoveryModes[0].name, recoveryModes[1].name, recoveryModes[2].name}, " | "))
	for _, loss := range []float64{0.01, 0.05, 0.10} {
		fmt.Fprintf(&b, "| %g%% |", loss*100)
		for _, m := range recoveryModes {
			var ds []time.Duration
			var t3 uint64
			for seed := uint64(1); seed <= 3; seed++ {
				d, st := lossRun(t, seed, loss, volume, m.adj)
				ds = append(ds, d)
				t3 += st.T3Expiries
			}
			d := median3(ds)
			fmt.Fprintf(&b, " %.2f Mbit/s (T3 %d) |", float64(volume)*8/d.Seconds()/1e6, t3)
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
}

func median3(d []time.Duration) time.Duration {
	a, b, c := d[0], d[1], d[2]
	return max(min(a, b), min(max(a, b), c))
}
