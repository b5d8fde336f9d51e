package usctp_test

// The layering of ../shared/DESIGN.md, enforced with `go list -deps`:
// flexarray, then stream, then sched and interleave, then sctp, then perf and
// cmd. Nothing imports upward, and the lower layers use the standard library
// only.

import (
	"bufio"
	"bytes"
	"os/exec"
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

var layers = []layer{
	{prefix: testSupport},
	{prefix: "flexarray", mayUse: []string{testSupport}},
	{prefix: "stream", mayUse: []string{"flexarray", testSupport}},
	{prefix: "sched", mayUse: []string{"stream", "flexarray", testSupport}},
	{prefix: "sctp/chunk", mayUse: []string{testSupport}},
	{prefix: "interleave", mayUse: []string{"stream", "flexarray", "sctp/chunk", testSupport}},
	{prefix: "sctp/internal/plpmtud", mayUse: []string{testSupport}},
	{prefix: "sctp/internal/assoc", mayUse: []string{"sctp/internal/transfer", "sctp/internal/plpmtud", "sctp/internal/ratelimit", "sctp/chunk", "interleave", "sched", "stream", "flexarray", testSupport}},
	{prefix: "sctp", mayUse: []string{"sctp", "interleave", "sched", "stream", "flexarray", testSupport},
		extern: []string{"golang.org/x/net", "golang.org/x/sys", "github.com/google/gopacket"}},
	{prefix: "perf", mayUse: []string{"perf", "sctp", "interleave", "sched", "stream", "flexarray", testSupport},
		extern: []string{"golang.org/x/net", "golang.org/x/sys", "github.com/google/gopacket",
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
			t.Errorf("package %s is outside the layout of DESIGN.md", pkg)
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
		{"perf", "sctp", true},
		{"perf", "cmd/sctpperf", false},
		{"cmd/sctpperf", "perf", true},
		{"flexarray", "internal/testsupport", true},
		{"sctp/chunk", "internal/testsupport", true},
		{"sctp/internal/transfer", "internal/testsupport", true},
		{"internal/testsupport", "flexarray", false},
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
