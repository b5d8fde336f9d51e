package sctp

import (
	"strings"
	"testing"
	"time"
)

// An endpoint refuses a configuration the association could not run with,
// naming the field, before it opens a socket.
func TestConfigValidate(t *testing.T) {
	for field, c := range map[string]*Config{
		"MTU":                      {MTU: 100},
		"EventQueue":               {EventQueue: -1},
		"UDPPort":                  {UDPPort: 9, EphemeralUDPPort: true},
		"Scheduler":                {Scheduler: 9},
		"Timers.RTOMin":            {Timers: Timers{RTOMin: 2 * time.Minute}},
		"Timers.MaxRetransmits":    {Timers: Timers{MaxRetransmits: -1}},
		"Buffers.SendBuffer":       {Buffers: Buffers{SendBuffer: -1}},
		"Limits.Backlog":           {Limits: Limits{Backlog: -1}},
		"Paths.InitialWindow":      {Paths: Paths{InitialWindow: 101}},
		"Extensions.InterleaveFSN": {Extensions: Extensions{InterleaveFSN: 7}},
	} {
		d := c.withDefaults()
		if err := d.validate(); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	d := (*Config)(nil).withDefaults()
	if err := d.validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if d.Timers.RTOMax != time.Minute || d.Buffers.UnsentLimit != 1<<20 || d.Limits.SendBudget != DefaultSendBudget ||
		d.Paths.MaxBurst != 4 || d.CloseTimeout != 5*time.Second || d.EventQueue != DefaultEventQueue {
		t.Fatalf("defaults %+v", d)
	}
}
