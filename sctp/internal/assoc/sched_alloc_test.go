package assoc

import (
	"errors"
	"testing"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sctp/internal/api"
)

// TestCorePairNoAllocsEveryScheduler: in steady state a message through
// two cores allocates nothing under any scheduler, with messages spread
// over all ten streams and mixed per-stream values.
func TestCorePairNoAllocsEveryScheduler(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	for _, k := range allSchedKinds {
		p := newCorePair(t)
		a := p.as[0]
		if err := a.SetScheduler(k); err != nil {
			t.Fatal(err)
		}
		for sid := range uint16(a.outStreams) {
			a.SetStreamValue(sid, 1+sid%4)
		}
		msg := make([]byte, 1000)
		i := 0
		send := func() {
			sid := uint16(i % int(a.outStreams))
			i++
			for {
				err := a.send(p.now, sid, 0, false, msg)
				if err == nil {
					break
				}
				if !errors.Is(err, api.ErrWouldBlock) {
					t.Fatal(err)
				}
				p.pump()
			}
			p.pump()
		}
		for range 3000 {
			send()
		}
		if n := testing.AllocsPerRun(1000, send); n > 0 {
			t.Errorf("%v: %v allocations per message", k, n)
		}
	}
}
