package sctp_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// program is testdata/datachannels, a pion/webrtc v4 program that knows
// nothing of usctp.
const program = "testdata/datachannels"

// buildProgram builds the program in a module of its own that requires
// pion/webrtc v4 and the pinned pion/sctp, with the replace lines when
// onUSCTP, and returns the binary.
func buildProgram(t *testing.T, onUSCTP bool) string {
	t.Helper()
	return buildProgramIn(t, program, onUSCTP)
}

// buildProgramIn builds the pion/webrtc program whose files are in the
// directory src as buildProgram builds testdata/datachannels.
func buildProgramIn(t *testing.T, src string, onUSCTP bool) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, src, dir)
	sctpVer := requiredVersion(t, usctpRoot, originalPath)
	gomod := fmt.Sprintf("module example.com/datachannels\n\ngo 1.25.0\n\nrequire (\n\t%s %s\n\t%s %s\n)\n",
		originalPath, sctpVer, webrtcModule, webrtcVer)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if onUSCTP {
		replaceHere(t, dir)
	}
	run(t, goTool(dir, "mod", "tidy"))
	bin := filepath.Join(dir, "datachannels")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	run(t, goTool(dir, append(args, ".")...))
	// The binary says which pion/sctp it holds.
	info := run(t, goTool(dir, "version", "-m", bin))
	replaced := regexp.MustCompile(`(?m)^\s+=>\s+\S*sctp/compat/pion\s`).MatchString(info)
	if replaced != onUSCTP {
		t.Fatalf("the program built with pion/sctp replaced: %v, want %v\n%s", replaced, onUSCTP, info)
	}
	return bin
}

// TestWebRTCProgram builds the unmodified pion/webrtc program with the
// replace lines and runs it: its data channels (reliable with
// buffered-amount back-pressure and 256 KiB messages, unordered with
// maxRetransmits 0 and maxPacketLifeTime, 64 channels closed by the
// answerer, one by the offerer, zero checksums) run over usctp.
func TestWebRTCProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pion/webrtc")
	}
	bin := buildProgram(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("the program on usctp: %v\n%s", err, out)
	}
}

// TestWebRTCThroughput measures the program's data channel throughput
// (64 KiB messages paced by the buffered amount, two PeerConnections in
// one process) on usctp and on pion/sctp, alternating runs, and reports
// the medians. It runs only when USCTP_WEBRTC_BENCH is set to the length
// of each run (USCTP_WEBRTC_BENCH_RUNS runs of each, 5 by default):
//
//	cd sctp/compat/pion && USCTP_WEBRTC_BENCH=10s go test -run TestWebRTCThroughput -v .
func TestWebRTCThroughput(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("USCTP_WEBRTC_BENCH"))
	if err != nil || d <= 0 {
		t.Skip("set USCTP_WEBRTC_BENCH to the length of a run (for example 10s)")
	}
	if raceEnabled {
		t.Skip("a measurement under the race detector means nothing")
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("USCTP_WEBRTC_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bins := map[string]string{"usctp": buildProgram(t, true), "pion/sctp": buildProgram(t, false)}
	rate := regexp.MustCompile(`throughput: ([0-9.]+) MB/s`)
	got := map[string][]float64{}
	for i := range runs {
		for _, name := range []string{"usctp", "pion/sctp"} {
			out, err := exec.Command(bins[name], "-bench", d.String()).CombinedOutput()
			m := rate.FindSubmatch(out)
			if err != nil || m == nil {
				t.Fatalf("%s run %d: %v\n%s", name, i+1, err, out)
			}
			v, _ := strconv.ParseFloat(string(m[1]), 64)
			got[name] = append(got[name], v)
			t.Logf("%s run %d: %.1f MB/s", name, i+1, v)
		}
	}
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	u, p := median(got["usctp"]), median(got["pion/sctp"])
	t.Logf("data channel throughput, medians of %d runs of %v: usctp %.1f MB/s, pion/sctp %.1f MB/s (%.2fx)", runs, d, u, p, u/p)
}

// TestWebRTCProgramSNAP runs the program with -snap: both PeerConnections
// enable SNAP, put their INIT in the SDP (the program checks) and set the
// association up from the two on usctp. The packets each association
// recorded (USCTP_PCAP_DIR) hold data and no handshake chunk.
func TestWebRTCProgramSNAP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pion/webrtc")
	}
	bin := buildProgram(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "-snap")
	cmd.Env = append(os.Environ(), "USCTP_PCAP_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("the program with SNAP on usctp: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	if len(files) != 2 {
		t.Fatalf("%d pcap files, want one per association: %v", len(files), files)
	}
	for _, f := range files {
		counts := pcapChunkTypes(t, f)
		if n := counts[chunk.TypeInit] + counts[chunk.TypeInitAck] + counts[chunk.TypeCookieEcho] + counts[chunk.TypeCookieAck]; n != 0 {
			t.Errorf("%s: %d handshake chunks: %v", filepath.Base(f), n, counts)
		}
		if counts[chunk.TypeIData] == 0 {
			t.Errorf("%s: chunks %v, want I-DATA", filepath.Base(f), counts)
		}
	}
}

// pcapChunkTypes counts the chunks by type in the SCTP packets of a pcap
// file of raw IP packets (usctp's Config.Pcap), over UDP or not.
func pcapChunkTypes(t *testing.T, file string) map[chunk.Type]int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 24 || binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 && binary.LittleEndian.Uint32(b) != 0xa1b23c4d {
		t.Fatalf("%s: not a little-endian pcap file", file)
	}
	counts := map[chunk.Type]int{}
	for off := 24; off+16 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		if off+16+n > len(b) {
			break
		}
		p := b[off+16 : off+16+n]
		off += 16 + n
		var proto byte
		switch {
		case len(p) >= 20 && p[0]>>4 == 4:
			proto, p = p[9], p[int(p[0]&15)*4:]
		case len(p) >= 40 && p[0]>>4 == 6:
			proto, p = p[6], p[40:]
		default:
			t.Fatalf("%s: a packet that is neither IPv4 nor IPv6", file)
		}
		if proto == 17 && len(p) >= 8 {
			p = p[8:]
		}
		pk, err := chunk.ParsePacket(p)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		it := pk.Walk()
		for c, ok := it.Next(); ok; c, ok = it.Next() {
			counts[c.Type]++
		}
	}
	return counts
}
