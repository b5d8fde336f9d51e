package netio

import (
	"bytes"
	"net/netip"
	"testing"
)

// TestPcapRecordsECN: a capture records the ECN field in the IPv4 TOS and
// the IPv6 Traffic Class, and WritePacket records Not-ECT.
func TestPcapRecordsECN(t *testing.T) {
	for _, tc := range []struct {
		src, dst string
		ecn      uint8
	}{{"192.0.2.1:0", "192.0.2.2:0", CE}, {"[2001:db8::1]:0", "[2001:db8::2]:0", ECT0}, {"192.0.2.1:0", "192.0.2.2:0", NotECT}} {
		var buf bytes.Buffer
		w, err := NewPcapWriter(&buf, PcapOptions{})
		if err != nil {
			t.Fatal(err)
		}
		src, dst := netip.MustParseAddrPort(tc.src), netip.MustParseAddrPort(tc.dst)
		if tc.ecn == NotECT {
			err = w.WritePacket(src, dst, make([]byte, 12))
		} else {
			err = w.WritePacketECN(src, dst, make([]byte, 12), tc.ecn)
		}
		if err != nil {
			t.Fatal(err)
		}
		w.Flush()
		ip := buf.Bytes()[24+16:]
		got := ip[1] & 3 // IPv4 TOS
		if dst.Addr().Is6() {
			got = uint8(ip[1]>>4) & 3 // Traffic Class bits 20-21 of the first word
		}
		if got != tc.ecn {
			t.Errorf("%s: recorded ECN %d, want %d (header % x)", tc.dst, got, tc.ecn, ip[:4])
		}
	}
}
