package transfer

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 6.2: "An implementation MUST NOT allow the maximum delay
// (protocol parameter 'SACK.Delay') to be configured to be more than 500
// ms." Other impossible settings are refused as well.
func TestConfigValidation(t *testing.T) {
	for name, c := range map[string]Config{
		"SACK delay over 500 ms": {OutStreams: 1, InStreams: 1, SACKDelay: 501 * time.Millisecond},
		"no outbound streams":    {InStreams: 1},
		"no inbound streams":     {OutStreams: 1},
		"MTU too small":          {OutStreams: 1, InStreams: 1, MTU: 100},
		"RTO.Min over RTO.Max":   {OutStreams: 1, InStreams: 1, Timers: api.Timers{RTOMin: time.Minute, RTOMax: time.Second}},
		"unknown FSN convention": {OutStreams: 1, InStreams: 1, Interleaved: true, InterleaveFSN: 9},
	} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	e, err := New(Config{OutStreams: 1, InStreams: 1, SACKDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Config()
	if c.RTOInitial != time.Second || c.RTOMin != time.Second || c.RTOMax != time.Minute || c.MaxBurst != 4 ||
		c.SACKFreq != 2 || c.RTOAlpha != 0.125 || c.RTOBeta != 0.25 || c.MTU != 1452 || c.Scheduler == nil {
		t.Errorf("defaults %+v", c)
	}
}
