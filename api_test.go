package usctp_test

// The exported API of the module's public packages is recorded in api/
// (api/README.md): api/current.txt is the tree's, api/vX.Y.Z.txt each
// release's. TestAPI keeps api/current.txt equal to the tree, and makes
// every feature added or removed since the last release named in
// CHANGELOG.md's Unreleased section.

import (
	"bufio"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update", false, "TestAPI: rewrite api/current.txt from the tree's exported API")

const (
	apiDir     = "api"
	apiCurrent = "api/current.txt"
	changelog  = "CHANGELOG.md"
)

func TestAPI(t *testing.T) {
	pkgs := loadPublicPackages(t)
	got, leaks := apiFeaturesLeaks(modulePath, pkgs)
	if len(got) == 0 {
		t.Fatal("the public packages export nothing: the API loader is broken")
	}
	for _, l := range leaks {
		var where []string
		for _, f := range got {
			if strings.Contains(f, l) {
				where = append(where, "\t"+f)
			}
		}
		t.Errorf("the exported API names %s, which users cannot name and whose fields and methods "+
			"the API files do not track; give it a public alias (type X = %s) or keep it out of the API:\n%s",
			l, l, strings.Join(where, "\n"))
	}
	text := strings.Join(got, "\n") + "\n"
	if *updateAPI {
		if err := os.WriteFile(apiCurrent, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d features)", apiCurrent, len(got))
	}
	current, err := readAPIFile(apiCurrent)
	if err != nil {
		t.Fatalf("%v\nrun `go test -run TestAPI -update .` to write it", err)
	}
	if removed, added := diffFeatures(current, got); len(removed)+len(added) > 0 {
		t.Errorf("the exported API differs from %s; if the change is meant, run\n"+
			"\tgo test -run TestAPI -update .\n"+
			"and name each added or removed feature in %s's Unreleased section.\n%s",
			apiCurrent, changelog, formatDiff(removed, added))
	}

	release, err := lastReleaseAPI(apiDir)
	if err != nil {
		t.Fatal(err)
	}
	base, err := readAPIFile(release)
	if err != nil {
		t.Fatal(err)
	}
	removed, added := diffFeatures(base, current)
	if len(removed)+len(added) == 0 {
		return
	}
	log, err := os.ReadFile(changelog)
	if err != nil {
		t.Fatalf("the API changed since %s but %v", release, err)
	}
	unreleased, ok := unreleasedSection(string(log))
	if !ok {
		t.Fatalf("the API changed since %s but %s has no \"## [Unreleased]\" section", release, changelog)
	}
	if missing := uncoveredFeatures(slices.Concat(removed, added), unreleased); len(missing) > 0 {
		var b strings.Builder
		for _, m := range missing {
			fmt.Fprintf(&b, "\t%s\t(%s)\n", m.ident, m.line)
		}
		t.Errorf("%s's Unreleased section does not name these features added or removed since %s\n"+
			"(each identifier must appear in it as written, e.g. Config.Timers or Association.Close):\n%s",
			changelog, release, b.String())
	}
}

// loadPublicPackages type-checks the module's public packages from the
// compiler's export data: every package of the module outside internal/,
// cmd/ and testdata/ that is not a command.
func loadPublicPackages(t *testing.T) []*types.Package {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{len .GoFiles}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[1] == "main" || f[2] == "0" {
			continue
		}
		if publicPackage(f[0]) {
			paths = append(paths, f[0])
		}
	}
	if len(paths) == 0 {
		t.Fatal("go list found no public package")
	}

	// One go list builds (or finds in the build cache) the export data of
	// the packages and all their dependencies.
	args := append([]string{"list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var pkgs []*types.Package
	for _, path := range paths {
		p, err := imp.Import(path)
		if err != nil {
			t.Fatalf("importing %s: %v", path, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// publicPackage reports whether a package of this module is part of its
// public API.
func publicPackage(path string) bool {
	rel, ok := strings.CutPrefix(path, modulePath+"/")
	if !ok {
		return false // the root package holds only tests
	}
	if isInternal(rel) || rel == "cmd" || strings.HasPrefix(rel, "cmd/") {
		return false
	}
	return !slices.Contains(strings.Split(rel, "/"), "testdata")
}

// readAPIFile reads an API file: one feature a line, blank lines and
// lines starting with # ignored.
func readAPIFile(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines), sc.Err()
}

// releaseFile matches the API file of a release.
var releaseFile = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)\.txt$`)

// lastReleaseAPI returns the API file of the newest release in dir.
func lastReleaseAPI(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	best, bestV := "", []int(nil)
	for _, e := range entries {
		m := releaseFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v := make([]int, 3)
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		if bestV == nil || slices.Compare(v, bestV) > 0 {
			best, bestV = e.Name(), v
		}
	}
	if best == "" {
		return "", fmt.Errorf("no release API file (vX.Y.Z.txt) in %s", dir)
	}
	return filepath.Join(dir, best), nil
}

// diffFeatures returns the features of the sorted list old missing from
// the sorted list new, and those of new missing from old.
func diffFeatures(old, new []string) (removed, added []string) {
	for _, l := range old {
		if _, ok := slices.BinarySearch(new, l); !ok {
			removed = append(removed, l)
		}
	}
	for _, l := range new {
		if _, ok := slices.BinarySearch(old, l); !ok {
			added = append(added, l)
		}
	}
	return removed, added
}

func formatDiff(removed, added []string) string {
	var b strings.Builder
	for _, l := range removed {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range added {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// unreleasedSection returns the text of a Keep a Changelog file's
// "## [Unreleased]" section (brackets optional), up to the next "## "
// heading.
func unreleasedSection(log string) (string, bool) {
	var b strings.Builder
	in, found := false, false
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "## ") {
			heading := strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "## ")), "[]")
			in = strings.EqualFold(heading, "Unreleased")
			found = found || in
			continue
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String(), found
}

// uncovered is a changed API feature its changelog section does not name.
type uncovered struct{ ident, line string }

// uncoveredFeatures returns the features among lines whose identifier
// (featureIdent) does not appear in text as a whole name: not preceded or
// followed by a letter, digit or underscore.
func uncoveredFeatures(lines []string, text string) []uncovered {
	var missing []uncovered
	for _, l := range lines {
		id := featureIdent(l)
		if !mentions(text, id) {
			missing = append(missing, uncovered{id, l})
		}
	}
	return missing
}

// mentions reports whether text contains name not as part of a longer
// identifier.
func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		before := start == 0 || !isIdentRune(rune(text[start-1]))
		after := end == len(text) || !isIdentRune(rune(text[end]))
		if before && after {
			return true
		}
		i = start + 1
	}
}
