package api

import (
	"strings"
	"testing"
	"time"
)

// The zero value of each group takes the documented defaults, and
// WithDefaults keeps what is set.
func TestDefaults(t *testing.T) {
	tm := Timers{}.WithDefaults()
	if tm != (Timers{RTOInitial: time.Second, RTOMin: time.Second, RTOMax: time.Minute, InitRTOMax: time.Minute,
		HeartbeatInterval: 30 * time.Second, MaxRetransmits: 10, PathMaxRetransmits: 5, MaxInitRetransmits: 8}) {
		t.Errorf("Timers defaults %+v", tm)
	}
	if tm := (Timers{RTOMax: 5 * time.Second, HeartbeatInterval: -1}).WithDefaults(); tm.InitRTOMax != 5*time.Second || tm.HeartbeatInterval != -1 {
		t.Errorf("InitRTOMax %v (want RTOMax), HeartbeatInterval %v (want -1 kept)", tm.InitRTOMax, tm.HeartbeatInterval)
	}
	b := Buffers{}.WithDefaults()
	if b != (Buffers{SendBuffer: 1 << 20, RecvBuffer: 1 << 20, SendBufferMax: 16 << 20, RecvBufferMax: 16 << 20, UnsentLimit: 1 << 20}) {
		t.Errorf("Buffers defaults %+v", b)
	}
	if b := (Buffers{UnsentLimit: -1, SendBufferMax: -1}).WithDefaults(); b.UnsentLimit != -1 || b.SendBufferMax != -1 {
		t.Errorf("negative Buffers fields changed: %+v", b)
	}
	l := Limits{}.WithDefaults(Buffers{})
	if l != (Limits{MaxAssociations: 4096, Backlog: 1024, MemoryBudget: 256 << 20, SendBudget: 1 << 20, InitRate: 100}) {
		t.Errorf("Limits defaults %+v", l)
	}
	if l := (Limits{}).WithDefaults(Buffers{SendBuffer: 4 << 20}); l.SendBudget != 4<<20 {
		t.Errorf("SendBudget %d with a 4 MiB send buffer, want the buffer", l.SendBudget)
	}
	if p := (Paths{}).WithDefaults(); p != (Paths{MaxBurst: 4}) {
		t.Errorf("Paths defaults %+v", p)
	}
	if tm.WithDefaults() != tm || b.WithDefaults() != b || l.WithDefaults(Buffers{}) != l {
		t.Error("WithDefaults changes a group with its defaults applied")
	}
}

// Validate refuses what the layers below cannot run with, and its error
// names the field.
func TestValidate(t *testing.T) {
	for field, err := range map[string]error{
		"Timers.RTOMin":             Timers{RTOMin: -time.Second}.Validate(),
		"Timers.InitRTOMax":         Timers{InitRTOMax: -1}.Validate(),
		"Timers.MaxRetransmits":     Timers{MaxRetransmits: -1}.Validate(),
		"Timers.PathMaxRetransmits": Timers{PathMaxRetransmits: -1}.Validate(),
		"Timers.MaxInitRetransmits": Timers{MaxInitRetransmits: -1}.Validate(),
		"RTOMax":                    Timers{RTOMin: 2 * time.Minute}.Validate(),
		"Buffers.SendBuffer":        Buffers{SendBuffer: -1}.Validate(),
		"Buffers.RecvBuffer":        Buffers{RecvBuffer: -1}.Validate(),
		"Limits.Backlog":            Limits{Backlog: -1}.Validate(),
		"Paths.PFThreshold":         Paths{PFThreshold: -1}.Validate(),
		"Paths.MaxBurst":            Paths{MaxBurst: -1}.Validate(),
		"Paths.Recovery":            Paths{Recovery: 2}.Validate(),
		"Paths.CongestionControl":   Paths{CongestionControl: 2}.Validate(),
		"Paths.InitialWindow":       Paths{InitialWindow: 101}.Validate(),
		"Extensions.InterleaveFSN":  Extensions{InterleaveFSN: 3}.Validate(),
		"Scheduler":                 ValidateScheduler(6),
	} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	for name, err := range map[string]error{
		"zero Timers":            Timers{}.Validate(),
		"heartbeats off":         Timers{HeartbeatInterval: -1}.Validate(),
		"RTOMin at RTOMax":       Timers{RTOMin: time.Minute}.Validate(),
		"zero Buffers":           Buffers{}.Validate(),
		"no unsent limit":        Buffers{UnsentLimit: -1, StreamUnsentLimit: -1}.Validate(),
		"no limits":              Limits{MaxAssociations: -1, MemoryBudget: -1, SendBudget: -1, InitRate: -1}.Validate(),
		"zero Paths":             Paths{}.Validate(),
		"RFC 6928 window, CUBIC": Paths{InitialWindow: 10, CongestionControl: CongestionCubic, Recovery: RecoveryRFC9260}.Validate(),
		"Linux FSN":              Extensions{InterleaveFSN: FSNLinux}.Validate(),
		"WFQ":                    ValidateScheduler(SchedulerWFQ),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
