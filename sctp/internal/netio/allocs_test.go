package netio

import (
	"io"
	"testing"

	"github.com/usctp/usctp/internal/testsupport"
)

// roundTrip sends pkts from a and reads them all on b into in.
func roundTrip(tb testing.TB, a, b Conn, pkts, in []Packet) {
	if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
		tb.Fatalf("WriteBatch = %d, %v", n, err)
	}
	for got := 0; got < len(pkts); {
		n, err := b.ReadBatch(in)
		if err != nil {
			tb.Fatal(err)
		}
		got += n
	}
}

func TestNoAllocsSteadyState(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	pcap, err := NewPcapWriter(io.Discard, PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		v6      bool
		cfg     UDPConfig
		capture bool
	}{
		{"v4-gso", false, UDPConfig{}, false},
		{"v6-gso", true, UDPConfig{}, false},
		{"v4-mmsg", false, UDPConfig{NoGSO: true}, false},
		{"v6-mmsg", true, UDPConfig{NoGSO: true}, false},
		{"v4-single", false, UDPConfig{NoBatch: true}, false},
		{"v6-capture", true, UDPConfig{}, true},
		{"v4-gso-gro", false, UDPConfig{GRO: true}, false},
		{"v6-mmsg-gro", true, UDPConfig{GRO: true, NoGSO: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ua, ub := udpPair(t, tc.v6, tc.cfg)
			var a, b Conn = ua, ub
			if tc.capture {
				a, b = Capture(a, pcap), Capture(b, pcap)
			}
			pkts := newPackets(32, 1500)
			fill(pkts, 0, 1452, b.LocalAddr())
			in := newPackets(32, 1500)
			roundTrip(t, a, b, pkts, in) // warm up
			if n := testing.AllocsPerRun(50, func() { roundTrip(t, a, b, pkts, in) }); n != 0 {
				t.Errorf("%v allocations per batch of 32", n)
			}
		})
	}
}
