package plpmtud

import "testing"

// The boundaries of RFC 8899 section 4.6.2's PTB handling, one size on
// each side.

// TestPTBAtBaseUsed: RFC 8899 section 4.6.2 (paraphrase): a PTB_SIZE
// below BASE_PLPMTU is discarded; one of BASE_PLPMTU or more but below
// the PLPMTU is a sign that the path changed. A PTB reporting exactly
// BASE_PLPMTU (as an IP MTU: BASE_PLPMTU plus the overhead) is used and
// sets the PLPMTU to BASE_PLPMTU; one 4 bytes below is discarded.
func TestPTBAtBaseUsed(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48})
	pmtuRun(t, &p, 1352, 100)
	if valid, used, _ := p.PTB(pmtuT0, 1152+48-4, false); valid || used {
		t.Fatalf("PTB below BASE_PLPMTU: valid %v used %v", valid, used)
	}
	if valid, used, changed := p.PTB(pmtuT0, 1152+48, false); !valid || !used || !changed || p.PLPMTU() != 1152 {
		t.Fatalf("PTB of BASE_PLPMTU: valid %v used %v changed %v PLPMTU %d, want 1152", valid, used, changed, p.PLPMTU())
	}
}

// TestPTBQuotingProbeSize: RFC 8899 section 4.6.2 (paraphrase): a PTB
// that quotes a probe and reports a PTB_SIZE not below the probe's size
// is inconsistent and discarded: it neither ends the probe's trial nor
// bounds the search. One 4 bytes below the probe is used: the probe's
// size is lost at once and the next probe is smaller. (The first probe
// above BASE_PLPMTU is the upper bound, which a PTB_SIZE of at least
// MAX_PLPMTU cannot concern; the check is on the probe after it.)
func TestPTBQuotingProbeSize(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48})
	now := pmtuT0
	size, _ := p.OnTimer(now, 0)
	p.Sent(now, 1)
	if ours, _ := p.Acked(now, 1); !ours || size != 1152 {
		t.Fatalf("BASE probe %d not acknowledged", size)
	}
	nonce := uint64(2)
	for _, step := range []string{"upper bound", "probe inside the interval"} {
		now = p.Deadline()
		size, _ = p.OnTimer(now, 0)
		if size <= 1152 || size > 1452 {
			t.Fatalf("%s: probe of %d", step, size)
		}
		p.Sent(now, nonce)
		nonce++
		if step != "upper bound" {
			if valid, used, _ := p.PTB(now, size+48, true); valid || used {
				t.Fatalf("PTB of the probe's own size %d: valid %v used %v", size, valid, used)
			}
			if got, _, _ := p.Outstanding(); got != size {
				t.Fatalf("outstanding probe %d after an inconsistent PTB, want %d", got, size)
			}
		}
		if valid, used, _ := p.PTB(now, size-4+48, true); !valid || !used {
			t.Fatalf("%s: PTB below the probe of %d: valid %v used %v", step, size, valid, used)
		}
	}
}
