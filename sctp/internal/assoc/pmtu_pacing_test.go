package assoc

import (
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestPMTUProbesPacedAcrossAssociations: many associations set up at
// once between two endpoints search towards 65535 bytes together. Each
// endpoint's probes stay within probeBurst plus probeRate (RFC 8899
// section 3: a sender "SHOULD limit the rate at which it sends probe
// packets"), where before they all went in the same millisecond; every
// search still completes at the upper bound, and no probe is lost or
// counted lost for having waited its turn.
func TestPMTUProbesPacedAcrossAssociations(t *testing.T) {
	const n, mtu = 120, 65535 - maxOverhead
	p := newPMTUPair(t, 3, simnet.LinkConfig{Delay: time.Millisecond}, mtu)
	type arrival struct {
		at   time.Time
		size int
	}
	var probes [2][]arrival // by receiving side
	p.admit = func(to int, data []byte) bool {
		if len(data) > 1500 && chunk.Type(data[commonHeaderLen]) == chunk.TypeHeartbeat {
			probes[to] = append(probes[to], arrival{p.now, len(data)})
		}
		return true
	}
	// Eight dials a step: the pair collects the endpoints' stateless
	// replies once a step, from a ring of maxReplies (the shell collects
	// after every packet). They all come up within some 20 ms, so their
	// searches start together.
	for i := range n {
		if _, err := p.eps[0].connect(p.now, p.addrs[1], uint16(6000+i), 5001); err != nil {
			t.Fatal(err)
		}
		if i%8 == 7 {
			p.step()
		}
	}
	up := func() int {
		k := 0
		for _, ep := range p.eps {
			for _, a := range ep.assocs {
				if a.state == stateEstablished {
					k++
				}
			}
		}
		return k
	}
	for up() < 2*n {
		if !p.step() || p.now.Sub(t0) > 10*time.Second {
			st := map[string]int{}
			for s, ep := range p.eps {
				for _, a := range ep.assocs {
					st[fmt.Sprint(s, a.state)]++
				}
			}
			t.Fatalf("%d of %d association ends up at %v: %v; %+v", up(), 2*n, p.now.Sub(t0), st, p.eps[1].stats)
		}
	}
	end := p.now.Add(5 * time.Second)
	for p.now.Before(end) && p.step() {
	}
	for side, ps := range probes {
		if len(ps) < n {
			t.Fatalf("side %d received %d large probes from %d associations", side, len(ps), n)
		}
		// Every window from one probe to a later one holds at most the
		// burst, the rate's bytes over its length and one probe (the
		// one whose arrival closes it).
		for i := range ps {
			sum := 0
			for j := i; j < len(ps); j++ {
				sum += ps[j].size
				w := ps[j].at.Sub(ps[i].at)
				if limit := probeBurst + int(int64(w)*probeRate/int64(time.Second)) + ps[j].size; sum > limit {
					t.Fatalf("side %d: %d probe bytes in %v (probes %d-%d), over the pacing bound %d", 1-side, sum, w, i, j, limit)
				}
			}
		}
		t.Logf("side %d sent %d large probes over %v", 1-side, len(ps), ps[len(ps)-1].at.Sub(ps[0].at))
	}
	for side, ep := range p.eps {
		for _, a := range ep.assocs {
			pr := a.data.eng.PathAt(0).Prober()
			if pr.State() != api.PMTUSearchComplete || pr.PLPMTU() != mtu&^3 {
				t.Fatalf("side %d: a search ended %v at %d, want complete at %d", side, pr.State(), pr.PLPMTU(), mtu&^3)
			}
			if a.stats.PMTUProbesLost != 0 {
				t.Fatalf("side %d: %d probes counted lost", side, a.stats.PMTUProbesLost)
			}
		}
	}
}
