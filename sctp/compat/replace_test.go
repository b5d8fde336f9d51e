package sctp

// The replace module (ishidawataru/, module github.com/ishidawataru/sctp)
// puts this package in the original's place with one replace directive.
// replaceModule sets up a module that uses it as a program does, for the
// tests of original_test.go and thirdparty_test.go; TestReplaceModuleAPI
// (replaceapi_test.go) compares its exported API with the original's.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	originalPath = "github.com/ishidawataru/sctp"
	compatPath   = "github.com/usctp/usctp/sctp/compat"
	replaceDir   = "ishidawataru"
)

// replaceModule writes, in a new temporary directory, the go.mod of a
// module that requires the given modules with the two replace lines a user
// writes (docs/compat.md): github.com/ishidawataru/sctp => the replace
// module, github.com/usctp/usctp => this repository. Its go.sum starts as
// this module's and the replace module's, which hold every checksum the
// replace module's side of the build needs.
func replaceModule(t *testing.T, requires ...string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("module example.com/replaced\n\ngo 1.25.0\n\n")
	for _, r := range requires {
		b.WriteString("require " + r + "\n")
	}
	// Quoted: a directory's path may hold spaces.
	b.WriteString("\nreplace " + originalPath + " => " + strconv.Quote(filepath.Join(root, "sctp", "compat", replaceDir)) + "\n")
	b.WriteString("\nreplace github.com/usctp/usctp => " + strconv.Quote(root) + "\n")
	var sum []string
	for _, f := range []string{filepath.Join(root, "go.sum"), filepath.Join(replaceDir, "go.sum")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum = append(sum, strings.SplitAfter(string(data), "\n")...)
	}
	slices.Sort(sum)
	sum = slices.Compact(sum)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), []byte(strings.Join(sum, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// moduleEnv is the environment of a go command in a module of
// replaceModule: the host's GOFLAGS with -mod=mod (the module's
// requirements are completed as the build needs), no workspace, the
// local toolchain.
func moduleEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	flags := []string{"-mod=mod"}
	for _, f := range strings.Fields(string(out)) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "-modfile=") {
			flags = append(flags, f)
		}
	}
	return append(os.Environ(), "GOFLAGS="+strings.Join(flags, " "), "GOWORK=off", "GOTOOLCHAIN=local")
}

// goCmd returns a go command run in dir for linux/amd64 (the platform
// whose API both sides describe), outside any workspace.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOWORK=off")
	return cmd
}
