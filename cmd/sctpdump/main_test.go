package main

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/usctp/usctp/sctp/chunk"
)

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// sctpPacket builds an SCTP packet with a valid checksum.
func sctpPacket(tag uint32, chunks ...[]byte) []byte {
	b := chunk.Header{SrcPort: 5000, DstPort: 5001, Tag: tag}.Append(nil)
	for _, c := range chunks {
		b = append(b, c...)
	}
	chunk.SetChecksum(b)
	return b
}

func ipv4(proto byte, payload []byte) []byte {
	h := make([]byte, 20)
	h[0] = 0x45
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(payload)))
	h[8] = 64
	h[9] = proto
	copy(h[12:], []byte{192, 0, 2, 1})
	copy(h[16:], []byte{192, 0, 2, 2})
	return append(h, payload...)
}

func ipv6(proto byte, payload []byte) []byte {
	h := make([]byte, 40)
	h[0] = 0x60
	binary.BigEndian.PutUint16(h[4:], uint16(len(payload)))
	h[6] = proto
	h[7] = 64
	a, b := netip.MustParseAddr("2001:db8::1").As16(), netip.MustParseAddr("2001:db8::2").As16()
	copy(h[8:], a[:])
	copy(h[24:], b[:])
	return append(h, payload...)
}

func udp(src, dst uint16, payload []byte) []byte {
	h := make([]byte, 8)
	binary.BigEndian.PutUint16(h, src)
	binary.BigEndian.PutUint16(h[2:], dst)
	binary.BigEndian.PutUint16(h[4:], uint16(8+len(payload)))
	return append(h, payload...)
}

func ether(etherType uint16, payload []byte) []byte {
	h := make([]byte, 14)
	copy(h, []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1})
	binary.BigEndian.PutUint16(h[12:], etherType)
	p := append(h, payload...)
	for len(p) < 60 { // Ethernet minimum frame: trailing padding the IP length excludes
		p = append(p, 0)
	}
	return p
}

// testFrames returns Ethernet frames: a handshake over IPv4, DATA over IPv6,
// SCTP over UDP, a non-SCTP frame, a bad checksum, a malformed SACK, a
// broken chunk list, and a good packet after them.
func testFrames() [][]byte {
	init := chunk.Init{Tag: 0xa1, ARwnd: 106496, OutStreams: 10, InStreams: 10, InitialTSN: 1,
		Params: must(chunk.AppendParam(chunk.AppendEmptyParam(nil, chunk.ParamForwardTSNSupported),
			chunk.ParamSupportedExtensions, []byte{byte(chunk.TypeIData), byte(chunk.TypeReconfig)}))}
	data := chunk.Data{Flags: chunk.FlagBeginning | chunk.FlagEnd, TSN: 1, SID: 2, SSN: 0, PPID: 51, Payload: []byte("hello")}
	idata := chunk.IData{Flags: chunk.FlagBeginning, TSN: 2, SID: 3, MID: 4, PPID: 53, Payload: []byte("hi")}
	badSum := sctpPacket(0xb2, chunk.AppendEmpty(nil, chunk.TypeCookieAck, 0))
	badSum[8] ^= 0xff
	// A SACK claiming 2 gap blocks with room for 1, then a good COOKIE-ACK.
	badSack := must(chunk.AppendSack(nil, 10, 1000, []chunk.GapBlock{{Start: 2, End: 3}}, nil))
	binary.BigEndian.PutUint16(badSack[12:], 2)
	broken := []byte{byte(chunk.TypeCookieEcho), 0, 0, 200, 1, 2, 3, 4} // length past the packet
	return [][]byte{
		ether(0x0800, ipv4(132, sctpPacket(0, must(init.Append(nil))))),
		ether(0x86dd, ipv6(132, sctpPacket(0xa1, must(data.Append(nil)), must(idata.Append(nil))))),
		ether(0x0800, ipv4(17, udp(9899, 9899, sctpPacket(0xa1, must(chunk.AppendSack(nil, 2, 5000, []chunk.GapBlock{{Start: 2, End: 2}}, []chunk.TSN{1})))))),
		ether(0x0800, ipv4(17, udp(53, 53, []byte("not sctp")))),
		ether(0x0800, ipv4(132, badSum)),
		ether(0x0800, ipv4(132, sctpPacket(0xb3, badSack, chunk.AppendEmpty(nil, chunk.TypeCookieAck, 0)))),
		ether(0x0800, ipv4(132, sctpPacket(0xb4, chunk.AppendShutdown(nil, 3), broken))),
		ether(0x0800, ipv4(132, sctpPacket(0xa1, must((&chunk.Abort{Flags: chunk.FlagT,
			Causes: must(chunk.AppendCause(nil, chunk.CauseUserAbort, []byte("bye now")))}).Append(nil))))),
	}
}

var wantLines = []string{
	"1 INIT vtag=0x0 init_tag=0xa1 a_rwnd=106496 os=10 mis=10 init_tsn=1 param=FORWARD-TSN-SUPPORTED param=SUPPORTED-EXTENSIONS types=I-DATA,RE-CONFIG",
	"2 DATA vtag=0xa1 tsn=1 sid=2 ssn=0 ppid=51 flags=BE len=5",
	"2 I-DATA vtag=0xa1 tsn=2 sid=3 mid=4 fsn=0 ppid=53 flags=B len=2",
	"3 SACK vtag=0xa1 cum_tsn=2 a_rwnd=5000 gaps=2-2 dups=1",
	"5 MALFORMED vtag=0xb2 malformed=packet: bad checksum: field ",
	"6 SACK vtag=0xb3 malformed=SACK: bad length: 2 gaps and 0 dups need length 24, have 20",
	"6 COOKIE-ACK vtag=0xb3",
	"7 SHUTDOWN vtag=0xb4 cum_tsn=3",
	"7 MALFORMED vtag=0xb4 malformed=chunk: truncated: length 200 at offset 8, 8 bytes left",
	`8 ABORT vtag=0xa1 t=1 cause=USER-INITIATED-ABORT reason="bye\x20now"`,
}

func writePcap(t testing.TB, frames [][]byte, ng bool) string {
	t.Helper()
	var buf bytes.Buffer
	ci := func(f []byte, i int) gopacket.CaptureInfo {
		return gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(i)*1000), CaptureLength: len(f), Length: len(f)}
	}
	if ng {
		w, err := pcapgo.NewNgWriter(&buf, layers.LinkTypeEthernet)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range frames {
			if err := w.WritePacket(ci(f, i), f); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
	} else {
		w := pcapgo.NewWriter(&buf)
		w.WriteFileHeader(65535, layers.LinkTypeEthernet)
		for i, f := range frames {
			if err := w.WritePacket(ci(f, i), f); err != nil {
				t.Fatal(err)
			}
		}
	}
	name := filepath.Join(t.TempDir(), "cap.pcap")
	if ng {
		name += "ng"
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func runDump(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func checkLines(t testing.TB, out string, want []string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

func TestDumpPcapAndPcapng(t *testing.T) {
	for _, ng := range []bool{false, true} {
		name := writePcap(t, testFrames(), ng)
		out, stderr, code := runDump(t, name)
		if code != 1 {
			t.Errorf("exit status %d, want 1 (stderr %q)", code, stderr)
		}
		checkLines(t, out, wantLines)
	}
}

func TestDumpCleanFileExitsZero(t *testing.T) {
	name := writePcap(t, testFrames()[:4], false)
	out, stderr, code := runDump(t, "-stats", name)
	if code != 0 {
		t.Fatalf("exit status %d (stderr %q)", code, stderr)
	}
	checkLines(t, out, append(wantLines[:4:4],
		"stats packets=4 sctp=3 chunks=4 malformed=0 skipped=1",
		"stats chunk=DATA count=1",
		"stats chunk=INIT count=1",
		"stats chunk=SACK count=1",
		"stats chunk=I-DATA count=1",
	))
}

func TestDumpStatsCountMalformed(t *testing.T) {
	name := writePcap(t, testFrames(), false)
	out, _, code := runDump(t, "-stats", name)
	if code != 1 || !strings.Contains(out, "stats packets=8 sctp=7 chunks=8 malformed=3 skipped=1 udp_detected=0\n") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

// TestDumpUDPPort checks how sctpdump decides that a UDP datagram carries
// SCTP: a port of -udp-port, or (-udp-detect, the default) a payload with a
// valid SCTP checksum; a datagram of another protocol is skipped.
func TestDumpUDPPort(t *testing.T) {
	good := sctpPacket(1, chunk.AppendEmpty(nil, chunk.TypeCookieAck, 0))
	bad := append([]byte(nil), good...)
	bad[8] ^= 0xff // checksum off: not recognised on another port
	frames := [][]byte{
		ether(0x0800, ipv4(17, udp(40000, 7777, good))),
		ether(0x0800, ipv4(17, udp(40000, 7777, bad))),
		ether(0x0800, ipv4(17, udp(53, 53, []byte("not sctp, but twenty bytes")))),
	}
	name := writePcap(t, frames, false)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{nil, 0, "1 COOKIE-ACK vtag=0x1\nstats packets=3 sctp=1 chunks=1 malformed=0 skipped=2 udp_detected=1\n"},
		{[]string{"-udp-detect=false"}, 0, "stats packets=3 sctp=0 chunks=0 malformed=0 skipped=3 udp_detected=0\n"},
		{[]string{"-udp-port", "9899,7777"}, 1, "1 COOKIE-ACK vtag=0x1\n2 MALFORMED vtag=0x1 malformed=packet: bad checksum: field "},
		{[]string{"-udp-port", "0", "-udp-detect=false"}, 0, "stats packets=3 sctp=0 chunks=0 malformed=0 skipped=3 udp_detected=0\n"},
	} {
		out, _, code := runDump(t, append(append([]string{"-stats"}, c.args...), name)...)
		if code != c.code || !strings.HasPrefix(out, c.out) {
			t.Errorf("%q: exit %d, output %q, want %d and %q...", c.args, code, out, c.code, c.out)
		}
	}
	for _, bad := range []string{"x", "65536", "-1", "9899,"} {
		if _, _, code := runDump(t, "-udp-port", bad, name); code != 2 {
			t.Errorf("-udp-port %q: exit %d, want 2", bad, code)
		}
	}
}

func TestDumpChecksumOptions(t *testing.T) {
	p := sctpPacket(1, chunk.AppendEmpty(nil, chunk.TypeCookieAck, 0))
	chunk.SetZeroChecksum(p)
	name := writePcap(t, [][]byte{ether(0x0800, ipv4(132, p))}, false)
	if _, _, code := runDump(t, name); code != 1 {
		t.Errorf("zero checksum without -zero-checksum: exit %d", code)
	}
	for _, flag := range []string{"-zero-checksum", "-no-checksum"} {
		if out, _, code := runDump(t, flag, name); code != 0 || out != "1 COOKIE-ACK vtag=0x1\n" {
			t.Errorf("%s: exit %d, output %q", flag, code, out)
		}
	}
}

func TestDumpUsageAndFileErrors(t *testing.T) {
	if _, _, code := runDump(t); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	if _, _, code := runDump(t, filepath.Join(t.TempDir(), "missing.pcap")); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
	junk := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(junk, []byte("this is not a capture"), 0o644)
	if _, _, code := runDump(t, junk); code != 2 {
		t.Errorf("junk file: exit %d", code)
	}
}

// TestDumpBinary runs the built command once, end to end.
func TestDumpBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "sctpdump")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	name := writePcap(t, testFrames(), true)
	cmd := exec.Command(bin, name)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
	checkLines(t, string(out), wantLines)
}
