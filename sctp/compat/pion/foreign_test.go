package sctp_test

// pion's own data channel tests, at the versions pion/webrtc v4.2.26
// pins, run against this module: pion/datachannel's tests and
// pion/webrtc's datachannel*_test.go. Each module is copied from the
// module cache to a temporary directory, its go.mod gets the two replace
// lines, and go test runs there. Tests that fail are run again up to
// twice: pion's tests pace themselves with real sleeps and fixed waits,
// which a loaded machine can upset.

import (
	"bufio"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// datachannelNotApplicable lists pion/datachannel's tests that cannot
// pass on usctp, with why. Every pion/webrtc data channel test applies.
var datachannelNotApplicable = map[string]string{
	// Both send two messages on a channel with maxRetransmits 0 (or
	// maxPacketLifeTime 0), drop the first packet on pion's test bridge,
	// move the packets once more and read without moving them again. That
	// needs the sender to give the first message up as it first sends it
	// (pion/sctp's rule for a limit of 0), so that its FORWARD-TSN is
	// already on the bridge. usctp gives a message up when it would be
	// retransmitted (RFC 7496 section 3.1, as usrsctp and dcSCTP do): its
	// FORWARD-TSN then waits for a bridge nobody moves.
	"TestDataChannel/ChannelTypePartialReliableRexmit": "gives messages up on their first transmission (pion/sctp's rule), not when they would be retransmitted",
	"TestDataChannel/ChannelTypePartialReliableTimed":  "gives messages up on their first transmission (pion/sctp's rule), not when they would be retransmitted",
	// It writes two one-byte messages, moves the packets, and expects the
	// two bytes still unacknowledged while it writes more: the peer's
	// SACK must be the delayed one for a single packet, so both messages
	// must have gone in one packet, as pion/sctp's writer goroutine
	// bundles what two quick writes queue. usctp sends a write to an idle
	// association at once: two packets, which the peer acknowledges at
	// once (RFC 9260 section 6.2, every second packet), and the count
	// falls by two bytes before the test looks.
	"TestDataChannelBufferedAmount": "expects two quick writes bundled in one packet, so that the peer delays its SACK",
}

// TestPionDataChannelTests runs pion/datachannel's tests on usctp.
func TestPionDataChannelTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pion/datachannel")
	}
	wdir := download(t, webrtcModule, webrtcVer)
	ver := requiredVersion(t, wdir, "github.com/pion/datachannel")
	dir := t.TempDir()
	copyTree(t, download(t, "github.com/pion/datachannel", ver), dir)
	replaceHere(t, dir)
	run(t, goTool(dir, "mod", "tidy"))
	runForeign(t, dir, "", datachannelNotApplicable, "pion/datachannel "+ver)
}

// TestPionWebRTCDataChannelTests runs pion/webrtc's data channel tests
// (the tests of its datachannel*_test.go files) on usctp.
func TestPionWebRTCDataChannelTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pion/webrtc")
	}
	dir := t.TempDir()
	copyTree(t, download(t, webrtcModule, webrtcVer), dir)
	replaceHere(t, dir)
	run(t, goTool(dir, "mod", "tidy"))
	files, err := filepath.Glob(filepath.Join(dir, "datachannel*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no datachannel*_test.go in pion/webrtc %s: %v", webrtcVer, err)
	}
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			names = append(names, string(m[1]))
		}
	}
	if len(names) < 15 {
		t.Fatalf("found %d tests in %v", len(names), files)
	}
	runForeign(t, dir, "^("+strings.Join(names, "|")+")$", nil, "pion/webrtc "+webrtcVer)
}

// testEvent is a line of go test -json.
type testEvent struct {
	Action, Test, Output string
}

// runForeign runs the tests of the package in dir that match runRE (all:
// "") but those notApplicable names, running failed ones again up to
// twice.
func runForeign(t *testing.T, dir, runRE string, notApplicable map[string]string, what string) {
	t.Helper()
	var skips []string
	for name := range notApplicable {
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		skips = append(skips, strings.Join(parts, "/"))
	}
	slices.Sort(skips)
	passed, failed, outputs, cut := goTestJSON(t, dir, runRE, strings.Join(skips, "|"))
	if len(passed) == 0 {
		t.Fatalf("%s: no test passed\n%s", what, strings.Join(outputs[""], ""))
	}
	for attempt := 2; attempt <= 3 && (len(failed) > 0 || cut != ""); attempt++ {
		runAgain, skipAgain := "", ""
		if cut != "" {
			// The run ended before its tests did (a test hung until the
			// timeout, or the binary crashed): the tests after it never
			// ran. Run again all but the top-level tests that passed.
			t.Logf("%s: the run ended early in %s:\n%s", what, cut, strings.Join(outputs[cut], ""))
			runAgain, skipAgain = runRE, strings.Join(append(slices.Clone(skips), testPatterns(topLevel(passed))...), "|")
		} else {
			runAgain = strings.Join(testPatterns(failed), "|")
		}
		again, still, more, moreCut := goTestJSON(t, dir, runAgain, skipAgain)
		for _, name := range again {
			if slices.Contains(failed, name) {
				t.Logf("%s: %s passed on attempt %d", what, name, attempt)
			}
			if !slices.Contains(passed, name) {
				passed = append(passed, name)
			}
		}
		for name, out := range more {
			outputs[name] = out
		}
		failed, cut = still, moreCut
	}
	for _, name := range failed {
		t.Errorf("%s: %s failed three times:\n%s", what, name, strings.Join(outputs[name], ""))
	}
	if cut != "" {
		t.Errorf("%s: the third run ended early too, in %s:\n%s", what, cut, strings.Join(outputs[cut], ""))
	}
	t.Logf("%s: %d tests passed, %d not applicable", what, len(passed), len(notApplicable))
}

// testPatterns returns a -run pattern for each test name, matching it
// alone (subtests level by level).
func testPatterns(names []string) []string {
	var re []string
	for _, name := range names {
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		re = append(re, strings.Join(parts, "/"))
	}
	return re
}

// topLevel returns the names in names that are not subtests.
func topLevel(names []string) []string {
	var top []string
	for _, n := range names {
		if !strings.Contains(n, "/") {
			top = append(top, n)
		}
	}
	return top
}

// foreignTimeout bounds one run of a foreign package's tests: the whole
// of pion/webrtc's data channel tests takes about 20 s with the race
// detector, so a test that hangs costs minutes, not the quarter hour of a
// default timeout, and the run is repeated without the tests that passed.
const foreignTimeout = "4m"

// goTestJSON runs go test -json in dir and returns the tests that passed,
// the leaf tests that failed (a parent that failed only because a subtest
// did is left out), each test's output, and the test whose panic (the
// binary's timeout, or its own) ended the run before its tests did ("":
// none), after which tests may not have run.
func goTestJSON(t *testing.T, dir, runRE, skipRE string) (passed, failed []string, outputs map[string][]string, cut string) {
	t.Helper()
	args := []string{"test", "-count=1", "-timeout=" + foreignTimeout, "-json"}
	if raceEnabled {
		args = append(args, "-race")
	}
	if runRE != "" {
		args = append(args, "-run", runRE)
	}
	if skipRE != "" {
		args = append(args, "-skip", skipRE)
	}
	cmd := goTool(dir, append(args, ".")...)
	out, _ := cmd.Output() // failures are read from the events
	outputs = map[string][]string{}
	var fails []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Action {
		case "output":
			outputs[ev.Test] = append(outputs[ev.Test], ev.Output)
		case "pass":
			if ev.Test != "" {
				passed = append(passed, ev.Test)
			}
		case "fail":
			if ev.Test != "" {
				fails = append(fails, ev.Test)
			}
		}
		if ev.Action == "output" && strings.HasPrefix(ev.Output, "panic: ") && cut == "" {
			// The timeout's panic or a test's: the binary ended there.
			cut = cmp.Or(ev.Test, "(the package)")
		}
	}
	if len(passed)+len(fails) == 0 && unreachable(string(out)) {
		t.Skipf("the module proxy is unreachable: %s", firstLine(strings.Join(outputs[""], "")))
	}
	for _, f := range fails {
		leaf := true
		for _, g := range fails {
			if strings.HasPrefix(g, f+"/") {
				leaf = false
			}
		}
		if leaf {
			failed = append(failed, f)
		}
	}
	if len(passed)+len(fails) == 0 {
		t.Fatalf("go test in %s ran no test:\n%s", dir, out)
	}
	return passed, failed, outputs, cut
}
