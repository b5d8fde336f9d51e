package sctp

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimPMTUBlackHole runs a transfer through the public API over a
// simulated link that starts silently dropping every packet above 1400
// bytes (IP) after a quarter of it, with no Packet Too Big: the data
// arrives byte-exact, the chunks cut for the old PLPMTU leave as
// fragmentable packets, the path reports EventPathMTU and settles on the
// new size (1372 = 1400 less the IPv4 and UDP headers).
func TestSimPMTUBlackHole(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond}
	simPairAdj(t, link, func(c *Config) { c.Buffers.SendBuffer, c.Buffers.RecvBuffer = 1<<20, 1<<20 },
		func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
			if p := c.Paths()[0]; p.MTU != 1472 || p.PMTU != PMTUSearchComplete {
				time.Sleep(time.Second)
			}
			if p := c.Paths()[0]; p.MTU != 1472 || p.PMTU != PMTUSearchComplete {
				t.Fatalf("PLPMTU %d (%v) before the black hole, want 1472", p.MTU, p.PMTU)
			}
			const total = 4 << 20
			src := make([]byte, total)
			for i := range src {
				src[i] = byte(i*31 + i>>9)
			}
			go func() {
				for off := 0; off < total; {
					k := min(1+(off*17)%12000, total-off)
					if _, err := c.WriteMsg(src[off:off+k], SendInfo{}); err != nil {
						t.Error(err)
						return
					}
					off += k
				}
			}()
			from, to := netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")
			got := make([]byte, 0, total)
			buf := make([]byte, 16000)
			holed := false
			var gap time.Duration
			last := time.Now()
			for len(got) < total {
				k, _, err := s.ReadMsg(buf)
				if err != nil {
					t.Fatalf("after %d bytes: %v", len(got), err)
				}
				got = append(got, buf[:k]...)
				gap, last = max(gap, time.Since(last)), time.Now()
				if !holed && len(got) > total/4 {
					holed = true
					bh := link
					bh.MTU = 1400 - 28
					n.SetLink(from, to, bh)
				}
			}
			if !bytes.Equal(got, src) {
				t.Fatal("received bytes differ from the sent ones")
			}
			time.Sleep(30 * time.Second) // the search after the black hole: probe timers of 1 s
			p := c.Paths()[0]
			st := c.Stats()
			ls := n.LinkStats(from, to)
			t.Logf("PLPMTU %d (%v); longest gap %v; black holes %d, probes %d lost %d, T3 %d; link: %d too big, %d fragmented",
				p.MTU, p.PMTU, gap, st.PMTUBlackHoles, st.PMTUProbes, st.PMTUProbesLost, st.T3Expiries, ls.TooBig, ls.Fragmented)
			if p.MTU != 1372 || p.PMTU != PMTUSearchComplete {
				t.Fatalf("PLPMTU %d (%v), want 1372", p.MTU, p.PMTU)
			}
			if gap > 3*time.Second {
				t.Fatalf("a gap of %v", gap)
			}
		})
}
