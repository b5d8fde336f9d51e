package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMutantsWellFormed: every mutant has a unique id prefixed by its
// area, an area with packages to run, a file of the module, a change, and
// the rule it breaks; and its file is in a package of the layer order.
// (Whether the snippets still match the code is `mutate -check`'s job: a
// refactoring may move them.)
func TestMutantsWellFormed(t *testing.T) {
	root := filepath.Join("..", "..")
	ids := map[string]bool{}
	for _, m := range mutants {
		if ids[m.ID] {
			t.Errorf("%s: duplicate id", m.ID)
		}
		ids[m.ID] = true
		if !strings.HasPrefix(m.ID, m.Area+"/") {
			t.Errorf("%s: id not prefixed by its area %q", m.ID, m.Area)
		}
		if len(m.targets()) == 0 {
			t.Errorf("%s: no package to run for area %q and file %s", m.ID, m.Area, m.File)
		}
		if _, err := os.Stat(filepath.Join(root, m.File)); err != nil {
			t.Errorf("%s: %v", m.ID, err)
		}
		if m.Old == "" || m.Old == m.New || m.Rule == "" {
			t.Errorf("%s: empty snippet, no change or no rule", m.ID)
		}
	}
}

// TestSelect: areas and ids select mutants; unknown ones are errors.
func TestSelect(t *testing.T) {
	all := []mutant{{ID: "paths/a", Area: "paths"}, {ID: "ecn/b", Area: "ecn"}, {ID: "ecn/c", Area: "ecn"}}
	for _, c := range []struct {
		areas, ids string
		want       int
	}{{"", "", 3}, {"ecn", "", 2}, {"", "ecn/b,paths/a", 2}, {"paths", "ecn/b", 0}} {
		sel, err := selectMutants(all, c.areas, c.ids)
		if err != nil || len(sel) != c.want {
			t.Errorf("areas %q ids %q: %d selected (%v), want %d", c.areas, c.ids, len(sel), err, c.want)
		}
	}
	if _, err := selectMutants(all, "nope", ""); err == nil {
		t.Error("unknown area accepted")
	}
	if _, err := selectMutants(all, "", "ecn/zz"); err == nil {
		t.Error("unknown id accepted")
	}
}
