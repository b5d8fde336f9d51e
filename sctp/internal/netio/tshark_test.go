package netio

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTsharkDecodes checks, where tshark is installed, that Wireshark's
// dissectors decode our captures as SCTP (over UDP port 9899 and over
// IPv4/IPv6 directly) with valid CRC32c and no malformed packet.
func TestTsharkDecodes(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed")
	}
	path := filepath.Join(t.TempDir(), "t.pcap")
	w, err := CreatePcap(path, PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, ends := range [][2]string{
		{"10.0.0.1:9899", "10.0.0.2:9899"},
		{"[fd00::1]:9899", "[fd00::2]:9899"},
		{"10.0.0.1:0", "10.0.0.2:0"},
		{"[fd00::1]:0", "[fd00::2]:0"},
	} {
		pkt := sctpPacketTSN([]byte("hello, wireshark"), uint32(i+1)) // distinct TSNs: no retransmission notes
		if err := w.WritePacket(netip.MustParseAddrPort(ends[0]), netip.MustParseAddrPort(ends[1]), pkt); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("USCTP_KEEP_PCAP"); p != "" {
		data, _ := os.ReadFile(path)
		os.WriteFile(p, data, 0o644)
	}
	out, err := exec.Command(tshark, "-r", path, "-o", "sctp.checksum:CRC-32C",
		"-T", "fields", "-e", "frame.protocols", "-e", "sctp.checksum.status", "-e", "_ws.expert.severity", "-e", "_ws.malformed").Output()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
		t.Fatalf("tshark printed %d lines:\n%s", len(lines), out)
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) < 2 || !strings.HasSuffix(f[0], ":sctp:data") || f[1] != "1" {
			t.Errorf("packet %d: %q (want protocols ending in sctp:data, checksum status 1 = good)", i, l)
		}
		if len(f) > 2 && f[2] != "" || len(f) > 3 && f[3] != "" {
			t.Errorf("packet %d: expert info or malformed: %q", i, l)
		}
	}
	t.Logf("tshark:\n%s", out)
}
