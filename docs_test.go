package usctp_test

// The documentation a clone carries: README.md is a short front door with
// the two quick-start commands, and every relative link in it and in docs/
// leads to a file of the repository. The Go examples are checked by the
// tests of package sctp (readme_test.go, multihome_doc_linux_test.go).

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeMaxLines bounds README.md: what a user needs first, and links to
// docs/ for the rest.
const readmeMaxLines = 220

// mdLink matches the target of a Markdown link or image: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// docFiles returns README.md, the other Markdown files at the root and
// those under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

func TestDocLinksResolve(t *testing.T) {
	files := docFiles(t)
	if len(files) < 2 {
		t.Fatalf("found %v: want README.md and docs/", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			p := filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, m[1])
			}
		}
	}
}

func TestREADMEFrontDoor(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move the detail to docs/", n, readmeMaxLines)
	}
	// The quick start: the same two commands, each at the start of a line of
	// a shell block.
	for _, cmd := range []string{"go run ./cmd/sctpperf", "make test"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cmd) + `\s`).MatchString(s) {
			t.Errorf("README.md has no line starting with %q (the quick start)", cmd)
		}
	}
	for _, f := range []string{"LICENSE", "CHANGELOG.md", "CONTRIBUTING.md", filepath.Join("docs", "DESIGN.md")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s is missing: %v", f, err)
		}
	}
}

// issueRef matches a reference to a tracker issue: the word and its
// number, with or without "#". The history of a change belongs in its
// commit message, not in the code, scripts and documents it leaves
// behind.
var issueRef = regexp.MustCompile(`\b[Ii]ssue #?[0-9]+`)

func TestNoIssueNumbersInTree(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".sh", ".c", ".md":
		default:
			if d.Name() != "Makefile" {
				return nil
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if issueRef.MatchString(line) {
				t.Errorf("%s:%d: names an issue: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
