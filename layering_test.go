package usctp_test

// The layering of docs/DESIGN.md ("Layers"), enforced with `go list -deps`:
// flexarray, then stream, then sched and interleave, then the transfer
// engine, the association core, the sockets and the public API under sctp,
// then perf and cmd. Nothing imports upward, and the lower layers use the
// standard library only.

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/usctp/usctp"

// layer names a group of packages (by path prefix inside the module) and
// what they may import.
type layer struct {
	prefix string   // package path relative to the module, or prefix ending in "/"
	mayUse []string // module-relative prefixes this layer may import
	extern []string // module paths outside the standard library it may import
}

// testSupport is the module's test-support package: it imports the
// standard library only, and every layer's tests may import it.
const testSupport = "internal/testsupport"

// indexHeap is the module's indexed heap: it imports the standard library
// only, and every layer may import it.
const indexHeap = "internal/indexheap"

// crc32c is the module's CRC32c: it imports the standard library only, and
// sctp/chunk, hence every layer above it, uses it.
const crc32c = "internal/crc32c"

var layers = []layer{
	{prefix: testSupport},
	{prefix: indexHeap, mayUse: []string{testSupport}},
	{prefix: crc32c, mayUse: []string{testSupport}},
	{prefix: "flexarray", mayUse: []string{indexHeap, testSupport}},
	{prefix: "stream", mayUse: []string{"flexarray", indexHeap, testSupport}},
	{prefix: "sched", mayUse: []string{"stream", "flexarray", indexHeap, testSupport}},
	{prefix: "sctp/chunk", mayUse: []string{crc32c, indexHeap, testSupport}},
	{prefix: "interleave", mayUse: []string{"stream", "flexarray", "sctp/chunk", crc32c, indexHeap, testSupport}},
	// The path MTU prober: a state machine over the standard library.
	{prefix: "sctp/internal/plpmtud", mayUse: []string{testSupport}},
	// The leaf of value types that cross the layers: enums of the
	// packages below it aliased, nothing of the layers that use it.
	{prefix: "sctp/internal/api", mayUse: []string{"sctp/internal/plpmtud", "sctp/chunk", "interleave", "sched", "stream", "flexarray", crc32c, indexHeap, testSupport}},
	{prefix: "sctp/internal/assoc", mayUse: []string{"sctp/internal/transfer", "sctp/internal/plpmtud", "sctp/internal/api", "sctp/internal/ratelimit", "sctp/chunk", "interleave", "sched", "stream", "flexarray", crc32c, indexHeap, testSupport}},
	// cilium/ebpf loads the socket selection program that shares a UDP
	// port between processes (netio's host groups).
	{prefix: "sctp", mayUse: []string{"sctp", "interleave", "sched", "stream", "flexarray", crc32c, indexHeap, testSupport},
		extern: []string{"golang.org/x/sys", "github.com/cilium/ebpf"}},
	{prefix: "perf", mayUse: []string{"perf", "sctp", "interleave", "sched", "stream", "flexarray", crc32c, indexHeap, testSupport},
		extern: []string{"golang.org/x/net", "golang.org/x/sys", "github.com/cilium/ebpf", "github.com/google/gopacket",
			"github.com/ishidawataru/sctp", "github.com/pion/"}},
	{prefix: "cmd", mayUse: []string{""}, extern: []string{""}},
}

// layerOf returns the most specific layer for a module-relative package path.
func layerOf(rel string) (layer, bool) {
	best, found := layer{}, false
	for _, l := range layers {
		if under(rel, l.prefix) && (!found || len(l.prefix) > len(best.prefix)) {
			best, found = l, true
		}
	}
	return best, found
}

// under reports whether rel is the package prefix or below it.
func under(rel, prefix string) bool {
	return prefix == "" || rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		rel, ok := strings.CutPrefix(pkg, modulePath+"/")
		if !ok {
			continue // the module root holds only this test
		}
		l, ok := layerOf(rel)
		if !ok {
			t.Errorf("package %s is outside the layout of docs/DESIGN.md", pkg)
			continue
		}
		checked++
		for _, dep := range fields[1:] {
			if isStd(dep) {
				continue
			}
			if drel, ok := strings.CutPrefix(dep, modulePath+"/"); ok {
				if !allowed(drel, l.mayUse) {
					t.Errorf("%s imports %s: upward or sideways in the layering", pkg, dep)
				}
				continue
			}
			if !allowedExtern(dep, l.extern) {
				t.Errorf("%s depends on %s: not allowed for layer %q", pkg, dep, l.prefix)
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list found no package of the module")
	}
}

// sctpImports are the packages of the module that package sctp itself
// (not its tests) may import directly: the core, the sockets and the leaf
// value package. Everything else below the public API is reached through
// them.
var sctpImports = []string{"sctp/internal/assoc", "sctp/internal/netio", "sctp/internal/api"}

// TestSctpDirectImports checks the packages of the module that package
// sctp imports directly (go list's Imports, tests excluded) against
// sctpImports.
func TestSctpDirectImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./sctp").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	found := false
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, modulePath+"/")
		switch {
		case !ok:
			continue // the standard library and other modules: TestLayering
		case rel == "sctp/internal/assoc":
			found = true
		}
		if slices.Contains(sctpImports, rel) {
			continue
		}
		t.Errorf("package sctp imports %s: from the module it may import only %v", p, sctpImports)
	}
	if !found {
		t.Fatal("package sctp does not import the core: go list failed?")
	}
}

func allowed(rel string, mayUse []string) bool {
	for _, p := range mayUse {
		if under(rel, p) {
			return true
		}
	}
	return false
}

func allowedExtern(dep string, extern []string) bool {
	for _, p := range extern {
		if strings.HasPrefix(dep, p) {
			return true
		}
	}
	return false
}

// TestLayeringRules checks the rule table itself, so a broken table cannot
// pass everything.
func TestLayeringRules(t *testing.T) {
	cases := []struct {
		pkg, dep string
		ok       bool
	}{
		{"flexarray", "stream", false},
		{"stream", "flexarray", true},
		{"stream", "sched", false},
		{"sched", "stream", true},
		{"sched", "interleave", false},
		{"interleave", "sctp/chunk", true},
		{"interleave", "sctp", false},
		{"sctp/chunk", "flexarray", false},
		{"sctp/chunk", "stream", false},
		{"sctp", "interleave", true},
		{"sctp", "perf", false},
		{"sctp/internal/simnet", "sctp/chunk", true},
		{"sctp/internal/assoc", "sctp/internal/transfer", true},
		{"sctp/internal/assoc", "sctp/internal/netio", false},
		{"sctp/internal/assoc", "sctp", false},
		{"sctp/internal/assoc", "sctp/internal/api", true},
		{"sctp/internal/transfer", "sctp/internal/api", true},
		{"sctp", "sctp/internal/api", true},
		{"sctp/internal/api", "sched", true},
		{"sctp/internal/api", "interleave", true},
		{"sctp/internal/api", "sctp/chunk", true},
		{"sctp/internal/api", "sctp/internal/transfer", false},
		{"sctp/internal/api", "sctp/internal/assoc", false},
		{"sctp/internal/api", "sctp/internal/netio", false},
		{"sctp/internal/api", "sctp/internal/plpmtud", true},
		{"sctp/internal/transfer", "sctp/internal/plpmtud", true},
		{"sctp/internal/assoc", "sctp/internal/plpmtud", true},
		{"sctp/internal/plpmtud", "internal/testsupport", true},
		{"sctp/internal/plpmtud", "sctp/internal/api", false},
		{"sctp/internal/plpmtud", "sctp/internal/transfer", false},
		{"sctp/internal/plpmtud", "sctp/chunk", false},
		{"sctp/internal/plpmtud", "stream", false},
		{"sctp/internal/api", "sctp", false},
		{"perf", "sctp", true},
		{"perf", "cmd/sctpperf", false},
		{"cmd/sctpperf", "perf", true},
		{"flexarray", "internal/testsupport", true},
		{"sctp/chunk", "internal/testsupport", true},
		{"sctp/internal/transfer", "internal/testsupport", true},
		{"internal/testsupport", "flexarray", false},
		{"internal/indexheap", "flexarray", false},
		{"internal/indexheap", "internal/testsupport", true},
		{"internal/testsupport", "internal/indexheap", false},
		{"flexarray", "internal/indexheap", true},
		{"sched", "internal/indexheap", true},
		{"interleave", "internal/indexheap", true},
		{"sctp/internal/transfer", "internal/indexheap", true},
		{"sctp/internal/assoc", "internal/indexheap", true},
		{"sctp", "internal/indexheap", true},
		{"perf", "internal/indexheap", true},
		{"cmd/sctpperf", "internal/indexheap", true},
	}
	for _, c := range cases {
		l, ok := layerOf(c.pkg)
		if !ok {
			t.Errorf("%s: no layer", c.pkg)
			continue
		}
		if got := allowed(c.dep, l.mayUse); got != c.ok {
			t.Errorf("%s -> %s: allowed=%v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
	if l, _ := layerOf("sctp"); allowedExtern("github.com/pion/sctp", l.extern) {
		t.Error("sctp may not depend on pion")
	}
}
