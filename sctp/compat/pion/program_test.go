package sctp_test

import (
	"context"
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
