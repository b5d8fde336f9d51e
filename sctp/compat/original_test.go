package sctp

// The original's own tests, run against the replace module through the
// replace lines: its portable test files (those that need no kernel
// socket) are copied from the module cache into a temporary directory at
// test time, never into this repository, and overlaid on the replace
// module's directory (go test -overlay) in a module of replaceModule.

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
)

// originalTestFiles are the original's test files that use its API only
// (sctp_linux_test.go calls the kernel socket's syscalls).
var originalTestFiles = []string{"sctp_test.go", "sctp_streams_test.go"}

// originalKnownFailures are the original's tests that fail against compat
// for a cause whose fix is under way elsewhere: the cause, and the text
// the failure must show. Each runs on its own and must fail so; once it
// passes, its entry must go.
var originalKnownFailures = map[string]struct{ cause, text string }{}

// originalModule returns the pinned original's version and its directory
// in the module cache, downloading it when it is not there.
func originalModule(t *testing.T) (version, dir string) {
	t.Helper()
	list := func() (string, string) {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}\t{{.Dir}}", originalPath).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", originalPath, err)
		}
		v, d, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
		return v, d
	}
	if version, dir = list(); dir == "" {
		if out, err := exec.Command("go", "mod", "download", originalPath).CombinedOutput(); err != nil {
			t.Skipf("the original (%s@%s) is not in the module cache and cannot be downloaded: %v\n%s",
				originalPath, version, err, out)
		}
		version, dir = list()
	}
	return version, dir
}

// childUDPPort returns a UDP port free on every address, for a child
// process's USCTP_UDP_PORT.
func childUDPPort(t *testing.T) string {
	t.Helper()
	c, err := net.ListenPacket("udp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return fmt.Sprint(c.LocalAddr().(*net.UDPAddr).Port)
}

// godebugWith returns the GODEBUG of this process with setting added.
func godebugWith(setting string) string {
	if g := os.Getenv("GODEBUG"); g != "" {
		return g + "," + setting
	}
	return setting
}

// testFuncs returns the names of the test functions of the Go files.
func testFuncs(t *testing.T, files ...string) []string {
	t.Helper()
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names = append(names, fn.Name.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// TestOriginalTestsThroughReplace runs the original's portable tests
// against the replace module as a program's build resolves it through the
// replace lines (with -race when this test has it), each usctp stack on a
// UDP port of its own: every test must pass but those of
// originalKnownFailures, which must fail for their cause.
func TestOriginalTestsThroughReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the original's tests")
	}
	version, origDir := originalModule(t)
	dir := replaceModule(t, originalPath+" "+version)
	replaced, err := filepath.Abs(replaceDir)
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]string{}
	var copies []string
	for _, f := range originalTestFiles {
		data, err := os.ReadFile(filepath.Join(origDir, f))
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(dir, "original", f)
		if err := os.MkdirAll(filepath.Dir(cp), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		overlay[filepath.Join(replaced, f)] = cp
		copies = append(copies, cp)
	}
	js, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, js, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := testFuncs(t, copies...)
	if len(tests) < 8 {
		t.Fatalf("the original's test files hold %d tests: %v", len(tests), tests)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// The original's TestGetStatus and TestGetStatusUsage listen on SCTP
	// ports 5000+rand.Intn(1000) and leave the conns they accept open,
	// which keep the port as accepted kernel sockets do: a port drawn twice
	// fails the second listen (with the kernel too). math/rand's fixed seed
	// draws the same four distinct ports every run.
	env := append(moduleEnv(t), "USCTP_TRANSPORT=udp", "GODEBUG="+godebugWith("randautoseed=0"))
	run := func(args ...string) (string, error) {
		args = append([]string{"test", "-count=1", "-v", "-timeout=5m", "-overlay=" + overlayFile}, args...)
		if testsupport.RaceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.CommandContext(ctx, "go", append(args, originalPath)...)
		cmd.Dir = dir
		cmd.Env = append(env, "USCTP_UDP_PORT="+childUDPPort(t))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	var known []string
	for name := range originalKnownFailures {
		known = append(known, regexp.QuoteMeta(name))
	}
	out, err := run("-skip=^(" + strings.Join(known, "|") + ")$")
	if err != nil {
		t.Errorf("the original's tests against the replace module: %v\n%s", err, out)
	}
	var passed []string
	for _, name := range tests {
		if _, ok := originalKnownFailures[name]; ok {
			continue
		}
		if !regexp.MustCompile(`(?m)^--- PASS: ` + name + ` `).MatchString(out) {
			t.Errorf("the original's %s did not pass", name)
		}
		passed = append(passed, name)
	}
	if !t.Failed() {
		t.Logf("the original's tests pass against the replace module: %v", passed)
	}

	for name, k := range originalKnownFailures {
		out, err := run("-run=^" + regexp.QuoteMeta(name) + "$")
		switch {
		case err == nil:
			t.Errorf("the original's %s passes now: remove it from originalKnownFailures\n%s", name, out)
		case !strings.Contains(out, "--- FAIL: "+name) || !strings.Contains(out, k.text):
			t.Errorf("the original's %s fails otherwise than for its known cause (%s): %v\n%s", name, k.cause, err, out)
		default:
			t.Logf("the original's %s fails as expected: %s", name, k.cause)
		}
	}
}
