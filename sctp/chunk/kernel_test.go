package chunk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// testdata/kernel holds SCTP packets captured from Linux kernel SCTP by the
// interop rig (sctp/internal/kernelvm): whole packets from the common
// header on.

func kernelPackets(t testing.TB) map[string][]byte {
	names, err := filepath.Glob("testdata/kernel/*.bin")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// TestLinuxCapturedPackets checks that every captured kernel packet has a valid
// checksum, parses in depth, and re-encodes to the same bytes: the typed
// encoders lay chunks out as Linux does (including the chunk length that
// leaves out the last parameter's padding).
func TestLinuxCapturedPackets(t *testing.T) {
	pkts := kernelPackets(t)
	if len(pkts) == 0 {
		t.Skip("no kernel packets")
	}
	for name, pkt := range pkts {
		if _, err := VerifyChecksum(pkt, false); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		text, err := textPacket(pkt)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %s", name, text)
		again, err := reencodePacket(pkt)
		if err != nil {
			t.Errorf("%s: re-encode: %v", name, err)
			continue
		}
		if !bytes.Equal(again, pkt) {
			t.Errorf("%s: re-encoded differs\n got %x\nwant %x", name, again, pkt)
		}
	}
}
