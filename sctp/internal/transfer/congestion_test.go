package transfer

import (
	"math"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// ccPath returns a path with the controller cc, a measured RTT of rtt and
// a window of w chunks in congestion avoidance.
func ccPath(t *testing.T, cc api.CongestionControl, rtt time.Duration, w int) *Path {
	t.Helper()
	cfg, err := Config{OutStreams: 1, InStreams: 1, Paths: api.Paths{CongestionControl: cc}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	p := &Path{}
	p.init(&cfg)
	p.RTTSample(epoch, rtt)
	p.cwnd = w * p.pmdcs()
	p.ssthresh = p.cwnd / 2
	return p
}

// ackFor feeds the path full windows of SACKs (one per two chunks, the
// window fully used) from start for d, and returns the time reached.
func ackFor(p *Path, start time.Time, d time.Duration) time.Time {
	now := start
	for now.Sub(start) < d {
		n := max(p.cwnd/(2*p.pmdcs()), 1)
		step := p.srtt / time.Duration(n)
		for range n {
			now = now.Add(step)
			p.onAck(now, 2*p.pmdcs(), p.cwnd)
		}
	}
	return now
}

// RFC 9438, paraphrased: on a loss ssthresh = cwnd * beta_cubic with
// beta_cubic 0.7 (section 4.6); after the reduction the window follows
// W_cubic(t) = C * (t - K)^3 + W_max (section 4.2), back at W_max after K
// seconds and above it (the convex region) after that, whatever the RTT;
// RFC 9260's controller grows by one PMDCS per RTT.
func TestCubicWindowCurve(t *testing.T) {
	const w = 100
	p := ccPath(t, api.CongestionCubic, 100*time.Millisecond, w)
	now := epoch
	p.enterFastRecovery(now, 0)
	if got := p.cwnd / p.pmdcs(); got != 70 || p.ssthresh != p.cwnd {
		t.Fatalf("after a loss cwnd %d chunks ssthresh %d, want 70 chunks both", got, p.ssthresh/p.pmdcs())
	}
	p.inFastRecovery = false
	k := math.Cbrt(w * (1 - cubicBeta) / cubicC) // seconds
	now = ackFor(p, now, time.Duration(k*float64(time.Second)))
	if got := float64(p.cwnd) / float64(p.pmdcs()); got < 95 || got > 106 {
		t.Fatalf("after K = %.2fs cwnd %.1f chunks, want about %d", k, got, w)
	}
	ackFor(p, now, time.Duration(k*float64(time.Second)))
	if got := float64(p.cwnd) / float64(p.pmdcs()); got < 120 {
		t.Fatalf("after 2K cwnd %.1f chunks, want about 130 (convex region)", got)
	}

	r := ccPath(t, api.CongestionRFC9260, 100*time.Millisecond, w)
	r.enterFastRecovery(epoch, 0)
	r.inFastRecovery = false
	ackFor(r, epoch, time.Duration(k*float64(time.Second)))
	if got := r.cwnd / r.pmdcs(); got < 50+40 || got > 50+44 {
		t.Fatalf("RFC 9260 controller: cwnd %d chunks after %.2fs, want 50 + one per RTT", got, k)
	}
}

// RFC 9438, paraphrased: fast convergence (section 4.7) sets W_max = cwnd *
// (1 + beta_cubic) / 2 when a loss comes before the window reached the
// last W_max; a timeout (section 4.8) sets cwnd to one chunk and ssthresh
// as a loss does.
func TestCubicFastConvergenceAndTimeout(t *testing.T) {
	p := ccPath(t, api.CongestionCubic, 50*time.Millisecond, 100)
	p.enterFastRecovery(epoch, 0) // W_max 100, cwnd 70
	p.inFastRecovery = false
	p.enterFastRecovery(epoch.Add(time.Second), 0) // at 70 < 100
	c := p.cc.(*cubic)
	if math.Abs(c.wMax-70*(1+cubicBeta)/2) > 0.01 {
		t.Fatalf("W_max %.2f, want %.2f", c.wMax, 70*(1+cubicBeta)/2)
	}
	cw := p.cwnd
	p.onT3Expiry(epoch.Add(2 * time.Second))
	if want := int(0.7 * float64(cw)); p.cwnd != p.pmdcs() || p.ssthresh < want-2 || p.ssthresh > want+2 {
		t.Fatalf("after T3 cwnd %d ssthresh %d", p.cwnd, p.ssthresh)
	}
	// Application-limited: no growth when the window is not used.
	q := ccPath(t, api.CongestionCubic, 50*time.Millisecond, 40)
	before := q.cwnd
	for i := range 100 {
		q.onAck(epoch.Add(time.Duration(i)*time.Second), q.pmdcs(), 0)
	}
	if q.cwnd != before {
		t.Fatalf("cwnd grew from %d to %d without being used", before, q.cwnd)
	}
}
