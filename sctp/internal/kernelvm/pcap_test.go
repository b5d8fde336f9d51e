package kernelvm

import (
	"encoding/binary"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPcap writes a good and a corrupted INIT, over IP and over UDP, and reads the file
// back; where tshark is installed it must find exactly the corrupted ones.
func TestPcap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.pcap")
	p, err := CreatePcap(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:50000")
	good := sctpInit(1, 2, 3, 4)
	bad := append([]byte(nil), good...)
	bad[len(bad)-1] ^= 1
	now := time.Unix(1700000000, 5)
	for _, udp := range []bool{false, true} {
		if err := p.WriteSCTP(now, a, b, udp, good); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteSCTP(now, b, a, udp, bad); err != nil {
			t.Fatal(err)
		}
	}
	mapped := netip.MustParseAddrPort("[::ffff:127.0.0.1]:9")
	if err := p.WriteSCTP(now, mapped, b, true, good); err != nil {
		t.Errorf("IPv4-mapped address: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(f) != 0xa1b23c4d || binary.LittleEndian.Uint32(f[20:]) != linktypeRaw {
		t.Fatalf("pcap header %x", f[:24])
	}
	// Walk the records: 2 x (20 + 32) and 3 x (28 + 32) bytes.
	var lens []int
	for r := f[24:]; len(r) >= 16; {
		n := int(binary.LittleEndian.Uint32(r[8:]))
		ip := r[16 : 16+n]
		if ipChecksum(ip[:20]) != 0 {
			t.Errorf("record %d: IPv4 header checksum does not verify", len(lens))
		}
		lens = append(lens, n)
		r = r[16+n:]
	}
	if want := []int{52, 52, 60, 60, 60}; len(lens) != 5 || lens[0] != want[0] || lens[2] != want[2] {
		t.Fatalf("records %v, want %v", lens, want)
	}
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark is not installed: the pcap is not decoded")
		return
	}
	out, err := TsharkProblems(path)
	if err != nil {
		t.Fatal(err)
	}
	var frames []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.Contains(l, "INIT") {
			frames = append(frames, f[0])
		}
	}
	if strings.Join(frames, ",") != "2,4" {
		t.Errorf("tshark should flag exactly the corrupted INITs, frames 2 and 4:\n%s", out)
	}
}
