package sctp_test

// Helpers for the tests that build foreign code against this module:
// pion's own tests and a pion/webrtc program, each in a module of its own
// in a temporary directory whose go.mod has the two replace lines a user
// writes. They need the module proxy (or a module cache holding the
// modules); only when it cannot be reached do they skip.

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// originalPath is the import path this module stands in for.
	originalPath = "github.com/pion/sctp"
	// usctpRoot is the usctp repository: its go.mod pins the original's
	// version (it requires it for its benchmarks), which
	// sctp/compat's TestReplaceModuleAPI compares this package's API with.
	usctpRoot = "../../.."

	// webrtcModule is the pion/webrtc version the tests build: v4's, whose
	// go.mod also pins the pion/datachannel version used.
	webrtcModule = "github.com/pion/webrtc/v4"
	webrtcVer    = "v4.2.26"
)

// goTool runs the go command in dir for the host, outside any workspace,
// with no -mod flag from the environment and the local toolchain.
func goTool(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	env := []string{"GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=" + goflags()}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOWORK=") && !strings.HasPrefix(e, "GOTOOLCHAIN=") && !strings.HasPrefix(e, "GOFLAGS=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	return cmd
}

// goflags returns GOFLAGS without -mod and -modfile.
func goflags() string {
	var keep []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "-modfile=") {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}

// unreachable reports whether go's output says the module proxy could not
// be reached (rather than that something else failed).
func unreachable(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "connection refused", "i/o timeout",
		"network is unreachable", "TLS handshake timeout", "GOPROXY=off", "module lookup disabled",
		"server misbehaving", "connection reset"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// run runs cmd and fails the test with its output if it fails; when the
// output says the module proxy is unreachable, the test is skipped.
func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		if unreachable(string(out)) {
			t.Skipf("the module proxy is unreachable (%s): %s", strings.Join(cmd.Args, " "), firstLine(string(out)))
		}
		t.Fatalf("%s in %s: %v\n%s", strings.Join(cmd.Args, " "), cmd.Dir, err, out)
	}
	return string(out)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// download fetches module@version into the module cache and returns its
// directory there.
func download(t *testing.T, module, version string) string {
	t.Helper()
	out := run(t, goTool(t.TempDir(), "mod", "download", "-json", module+"@"+version))
	var m struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v %s", module, version, err, m.Error)
	}
	return m.Dir
}

// requiredVersion returns the version of module the go.mod in dir requires.
func requiredVersion(t *testing.T, dir, module string) string {
	t.Helper()
	out := run(t, goTool(dir, "mod", "edit", "-json"))
	var m struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Require {
		if r.Path == module {
			return r.Version
		}
	}
	t.Fatalf("%s/go.mod does not require %s", dir, module)
	return ""
}

// copyTree copies the directory tree src (a module in the module cache,
// read-only) to dst, writable.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// replaceHere adds to the module in dir the two replace lines a user
// writes: pion/sctp with this module, usctp with its root.
func replaceHere(t *testing.T, dir string) {
	t.Helper()
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(usctpRoot)
	if err != nil {
		t.Fatal(err)
	}
	run(t, goTool(dir, "mod", "edit", "-replace", originalPath+"="+here, "-replace", "github.com/usctp/usctp="+root))
}
