package sched

import (
	"errors"
	"testing"
)

func TestParseKind(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Kind
	}{
		{"fcfs", FCFS}, {"prio", Priority}, {"rr", RoundRobin}, {"fc", FairCapacity},
		{"wfq", WFQ}, {"rrp", RoundRobinPacket}, {"WFQ", WFQ}, {"Prio", Priority},
		// Linux SCTP_STREAM_SCHEDULER numbers.
		{"0", FCFS}, {"1", Priority}, {"2", RoundRobin}, {"3", FairCapacity}, {"4", WFQ}, {"5", RoundRobinPacket},
	} {
		got, err := ParseKind(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "6", "255", "256", "-1", "roundrobin", "rr ", "fifo"} {
		if k, err := ParseKind(bad); !errors.Is(err, ErrKind) {
			t.Errorf("ParseKind(%q) = %v, %v; want ErrKind", bad, k, err)
		}
	}
}

func TestKindString(t *testing.T) {
	// The Linux numbering: FCFS=0, PRIO=1, RR=2, FC=3, WFQ=4.
	want := []string{"fcfs", "prio", "rr", "fc", "wfq", "rrp"}
	for i, w := range want {
		k := Kind(i)
		if k.String() != w || !k.Valid() {
			t.Errorf("Kind(%d) = %q (valid %v), want %q", i, k.String(), k.Valid(), w)
		}
		if p, err := ParseKind(k.String()); err != nil || p != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), p, err)
		}
	}
	if s := Kind(9).String(); s != "Kind(9)" || Kind(9).Valid() {
		t.Errorf("Kind(9).String() = %q", s)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(Kind(6), Options{}); !errors.Is(err, ErrKind) {
		t.Errorf("New(6) = %v, want ErrKind", err)
	}
	// "sctp: fix a potential OOB access in sctp_sched_set_sched()": every
	// byte value as a scheduler number.
	for k := range 256 {
		s, err := New(Kind(k), Options{Streams: 3})
		if (err == nil) != (k < numKinds) {
			t.Errorf("New(%d): %v", k, err)
		}
		if err == nil && s.Kind() != Kind(k) {
			t.Errorf("New(%d).Kind() = %v", k, s.Kind())
		}
	}
	for _, n := range []int{-1, MaxStreams + 1} {
		if _, err := New(FCFS, Options{Streams: n}); !errors.Is(err, ErrStreams) {
			t.Errorf("New with %d streams = %v, want ErrStreams", n, err)
		}
	}
}

// TestValues covers the per-stream value: bounds-checked ids with errors
// that name the stream, Linux's defaults (priority 0, weight 1), weight 0
// rejected, values ignored by the schedulers that have none.
func TestValues(t *testing.T) {
	for _, k := range allKinds {
		s, _ := New(k, Options{Streams: 10})
		if err := s.SetValue(10, 1); !errors.Is(err, ErrStream) {
			t.Errorf("%v: SetValue(10) with 10 streams = %v, want ErrStream", k, err)
		} else if err.Error() != "sched: stream 10 not below stream count 10: stream id out of range" {
			t.Errorf("%v: error text %q", k, err)
		}
		if _, err := s.Value(65535); !errors.Is(err, ErrStream) {
			t.Errorf("%v: Value(65535) = %v, want ErrStream", k, err)
		}
		v, err := s.Value(9)
		want := map[Kind]uint16{WFQ: DefaultWeight}[k]
		if err != nil || v != want {
			t.Errorf("%v: default value %d, %v; want %d", k, v, err, want)
		}
		err = s.SetValue(3, 0)
		if k == WFQ {
			if !errors.Is(err, ErrValue) {
				t.Errorf("WFQ weight 0: %v, want ErrValue", err)
			}
		} else if err != nil {
			t.Errorf("%v: SetValue(3, 0) = %v", k, err)
		}
		if err := s.SetValue(3, 65535); err != nil {
			t.Errorf("%v: SetValue(3, 65535) = %v", k, err)
		}
		v, _ = s.Value(3)
		if want := map[Kind]uint16{WFQ: 65535, Priority: 65535}[k]; v != want {
			t.Errorf("%v: Value(3) = %d after SetValue 65535, want %d", k, v, want)
		}
		// Resize away and back: the value is gone.
		s.Resize(3)
		s.Resize(10)
		v, _ = s.Value(3)
		if want := map[Kind]uint16{WFQ: DefaultWeight}[k]; v != want {
			t.Errorf("%v: Value(3) = %d after resize, want default %d", k, v, want)
		}
	}
}

// TestResizeClamps: Resize outside [0, MaxStreams] clamps; nothing panics.
func TestResizeClamps(t *testing.T) {
	for _, k := range allKinds {
		s, _ := New(k, Options{Streams: 2})
		s.Enqueue(1, 10)
		s.Resize(-5)
		if _, ok := s.Next(); ok {
			t.Errorf("%v: stream active after resize to 0", k)
		}
		s.Resize(1 << 20)
		s.Enqueue(65534, 10)
		if sid, ok := s.Next(); !ok || sid != 65534 {
			t.Errorf("%v: Next() = %d, %v after resize to max", k, sid, ok)
		}
		s.Enqueue(65535, 10) // never a stream
		s.Sent(65534, 10, true, true)
		if sid, ok := s.Next(); ok {
			t.Errorf("%v: Next() = %d after the only stream emptied", k, sid)
		}
	}
}

// TestForgetDropsPinnedStream: "sctp: clear out_curr if all frag chunks of
// current msg are pruned" — after a stream's queue is purged in the middle of
// a message, the scheduler moves on.
func TestForgetDropsPinnedStream(t *testing.T) {
	for _, k := range allKinds {
		h := newHarness(t, k, Options{Streams: 3}, 100)
		h.enqueue(0, 1000)
		h.enqueue(1, 100)
		h.step()
		if h.pin < 0 {
			t.Fatalf("%v: no message in progress", k)
		}
		h.forget(uint16(h.pin))
		h.verify()
		for h.step() {
			h.verify()
		}
	}
}
