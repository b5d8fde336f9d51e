package transfer

import (
	"testing"
	"time"
)

// TestPRRSpreadsRecoverySending: RFC 6937 section 1 (paraphrase): with
// Proportional Rate Reduction the sender keeps sending in recovery, about
// ssthresh/RecoverFS of the data each acknowledgement reports delivered,
// so the flight falls smoothly to ssthresh, where RFC 9260's "cwnd =
// ssthresh" stops all new data until the flight has drained below the
// halved window. One chunk of a window of 20 is lost; the next 19 SACKs
// each report one more chunk delivered: once in recovery, with
// RecoveryRACK (PRR) about every second one releases a new chunk from the
// start; with RecoveryRFC9260 none of the first eight does (a pause). Recovery ends with
// cwnd = ssthresh either way, and with PRR the flight never exceeds cwnd
// by more than a chunk (rule B of RFC 9260 section 6.1 as written).
func TestPRRSpreadsRecoverySending(t *testing.T) {
	for _, rec := range []Recovery{RecoveryRACK, RecoveryRFC9260} {
		x := newTx(t, Config{MaxBurst: 100, Recovery: rec})
		measured(t, x, 10*time.Millisecond)
		p := &x.e.Path
		p.cwnd, p.ssthresh = 20*chunk1000, 20*chunk1000
		x.queue(60, 1000)
		first := x.e.Send.NextTSN()
		x.flush() // first .. first+19; first is lost
		x.advance(10 * time.Millisecond)
		var firstHalf, total, inRecovery int
		for i := uint16(1); i <= 19; i++ {
			x.advance(time.Millisecond) // past RACK's reordering window after the first
			x.mustSACK(first-1, DefaultBuffer, 2, i+1)
			before := x.e.Stats.DataChunksSent
			x.flush()
			sent := int(x.e.Stats.DataChunksSent - before)
			if p.InFastRecovery() {
				inRecovery++
				total += sent
				if inRecovery <= 8 {
					firstHalf += sent
				}
			}
			if rec == RecoveryRACK && p.FlightSize() > p.Cwnd()+chunk1000 {
				// PRR lowers cwnd step by step: rule B holds throughout.
				t.Fatalf("recovery %d, SACK %d: flight %d over cwnd %d", rec, i, p.FlightSize(), p.Cwnd())
			}
		}
		t.Logf("recovery %d: %d SACKs in recovery, %d new chunks during the first 8, %d in all; cwnd %d ssthresh %d", rec, inRecovery, firstHalf, total, p.Cwnd(), p.Ssthresh())
		switch rec {
		case RecoveryRACK:
			if inRecovery < 12 || firstHalf < 3 {
				t.Errorf("PRR: %d new chunks during the first 8 of %d SACKs in recovery, want about half", firstHalf, inRecovery)
			}
		case RecoveryRFC9260:
			if inRecovery < 12 || firstHalf != 0 {
				t.Errorf("RFC 9260: %d new chunks during the first 8 of %d SACKs in recovery, want none (flight above the halved window)", firstHalf, inRecovery)
			}
		}
		x.mustSACK(x.e.Send.NextTSN()-1, DefaultBuffer)
		if p.InFastRecovery() || p.Cwnd() != p.Ssthresh() && rec == RecoveryRACK {
			t.Errorf("recovery %d: after recovery: in recovery %v, cwnd %d, ssthresh %d", rec, p.InFastRecovery(), p.Cwnd(), p.Ssthresh())
		}
	}
}
