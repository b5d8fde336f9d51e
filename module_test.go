package usctp_test

// A program that uses the library must not inherit the module's benchmark
// backends and test-only dependencies: module graph pruning keeps them out
// of a consumer's go.mod and go.sum as long as no package it builds imports
// them. The test below builds such a consumer and checks it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// consumerForbidden are the module path prefixes a consumer of sctp and
// sctp/compat must never see: pion/* and ishidawataru/sctp serve the
// benchmark backends (perf), the kernel peer (cmd/kpeer) and tests only.
var consumerForbidden = []string{"github.com/pion/", "github.com/ishidawataru/"}

// consumerUnrequired are the module path prefixes a consumer's go.mod must
// not require: gopacket and x/net serve sctpdump and tests (the library
// writes pcap files itself). go.sum may still hold their go.mod checksums,
// which the module graph needs.
var consumerUnrequired = []string{"github.com/google/gopacket", "golang.org/x/net"}

// consumerMain uses both public entry points a program starts from.
const consumerMain = `package main

import (
	"fmt"

	"github.com/usctp/usctp/sctp"
	compat "github.com/usctp/usctp/sctp/compat"
)

func main() {
	fmt.Printf("%T %T\n", sctp.Dial, compat.DialSCTP)
}
`

// TestConsumerModule creates a module outside this one that imports sctp
// and sctp/compat (with a replace directive pointing here), runs go mod
// tidy and go build in it, and checks that its go.mod and go.sum name
// neither pion nor ishidawataru, that its go.mod requires only modules
// whose packages it builds, and that tidy left its go line at ours (no
// dependency forces a consumer onto a newer Go than this module needs).
func TestConsumerModule(t *testing.T) {
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	proxy := goEnv("GOPROXY")
	if proxy == "off" {
		t.Skip("GOPROXY=off: the consumer's go mod tidy needs the module proxy (or a module cache that holds every dependency)")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	goLine := goDirective(t, filepath.Join(root, "go.mod"))

	dir := t.TempDir()
	gomod := "module example.com/consumer\n\ngo " + goLine + "\n\n" +
		"require " + modulePath + " v0.0.0\n\n" +
		"replace " + modulePath + " => " + root + "\n"
	writeFile(t, filepath.Join(dir, "go.mod"), gomod)
	writeFile(t, filepath.Join(dir, "main.go"), consumerMain)

	// The host's proxy and module cache; no -mod flag and no workspace, so
	// tidy resolves the consumer exactly as a user's machine would.
	var flags []string
	for _, f := range strings.Fields(goEnv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "-modfile=") {
			flags = append(flags, f)
		}
	}
	env := append(os.Environ(),
		"GOFLAGS="+strings.Join(flags, " "),
		"GOWORK=off",
		"GOPROXY="+proxy,
		"GOMODCACHE="+goEnv("GOMODCACHE"),
		"GOTOOLCHAIN=local",
	)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the consumer module: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	run("mod", "tidy")
	tidyMod := readFile(t, filepath.Join(dir, "go.mod"))
	tidySum := readFile(t, filepath.Join(dir, "go.sum"))
	for _, bad := range consumerForbidden {
		if strings.Contains(tidyMod, bad) {
			t.Errorf("the consumer's go.mod names %s after go mod tidy:\n%s", bad, tidyMod)
		}
		if strings.Contains(tidySum, bad) {
			t.Errorf("the consumer's go.sum names %s after go mod tidy:\n%s", bad, tidySum)
		}
	}
	for _, req := range requires(tidyMod) {
		for _, bad := range consumerUnrequired {
			if strings.HasPrefix(req, bad) {
				t.Errorf("the consumer's go.mod requires %s after go mod tidy: the library must not need it", req)
			}
		}
	}
	if got := goDirective(t, filepath.Join(dir, "go.mod")); got != goLine {
		t.Errorf("go mod tidy raised the consumer's go line from %s to %s: a dependency needs a newer Go than this module says\n%s",
			goLine, got, tidyMod)
	}

	// Every module the consumer's go.mod requires must provide a package it
	// builds: a requirement it does not use would be a leak from our go.mod.
	built := strings.Fields(run("list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "."))
	for _, req := range requires(tidyMod) {
		if req != modulePath && !slices.Contains(built, req) {
			t.Errorf("the consumer's go.mod requires %s, but builds none of its packages", req)
		}
	}
	t.Logf("consumer requires %v", requires(tidyMod))

	run("build", "-o", filepath.Join(dir, "consumer"), ".")
}

// goDirective returns the version on the go line of the go.mod file at path.
func goDirective(t *testing.T, path string) string {
	t.Helper()
	for _, line := range strings.Split(readFile(t, path), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s has no go line", path)
	return ""
}

// requires returns the module paths of a go.mod's require directives, in
// both the single-line and the block form.
func requires(gomod string) []string {
	var mods []string
	inBlock := false
	for _, line := range strings.Split(gomod, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "" && !strings.HasPrefix(line, "//"):
			mods = append(mods, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			mods = append(mods, strings.Fields(line)[1])
		}
	}
	return mods
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
