package netio

import "testing"

// TestSmallSendCoversWriteBatch checks which sends go out by RawSyscall6:
// every send of one of the sctp package's write areas (three GSO sends of
// 44 packets of a 1500-byte path, or three 64 KiB packets of loopback's),
// and not a batch of several times that.
func TestSmallSendCoversWriteBatch(t *testing.T) {
	cases := []struct {
		name       string
		size, pkts int
		runs       []int
		raw        bool
	}{
		{"one short packet", 100, 1, []int{1}, true},
		{"three GSO sends of a 1500-byte path", 1452, 132, []int{44, 44, 44}, true},
		{"three 64 KiB packets", 65507, 3, []int{1, 1, 1}, true},
		{"eight 64 KiB packets", 65507, 8, []int{1, 1, 1, 1, 1, 1, 1, 1}, false},
		{"six GSO sends of a 1500-byte path", 1452, 264, []int{44, 44, 44, 44, 44, 44}, false},
	}
	for _, c := range cases {
		pkts := make([]Packet, c.pkts)
		for i := range pkts {
			pkts[i].N = c.size
		}
		if got := smallSend(pkts, len(c.runs), c.runs); got != c.raw {
			t.Errorf("%s: raw send %v, want %v", c.name, got, c.raw)
		}
	}
}
