package sctp_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"strings"
	"testing"
)

// The Go examples of README.md and docs/ are functions of this package's
// tests, copied into the Markdown as written: checkDocBlock fails when
// the two drift apart, so every example a reader sees is one a test runs.

// goBlocks returns the fenced ```go blocks of the Markdown file at path.
func goBlocks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur strings.Builder
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		fence := strings.TrimSpace(line)
		switch {
		case !in && fence == "```go":
			in = true
			cur.Reset()
		case in && fence == "```":
			in = false
			blocks = append(blocks, cur.String())
		case in:
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	return blocks
}

// funcSource returns the source of the top-level function name declared
// in the Go file at path, from its doc comment to its closing brace.
func funcSource(t *testing.T, path, name string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Name.Name != name {
			continue
		}
		start := fd.Pos()
		if fd.Doc != nil {
			start = fd.Doc.Pos()
		}
		return string(src[fset.Position(start).Offset:fset.Position(fd.End()).Offset])
	}
	t.Fatalf("%s: no function %s", path, name)
	return ""
}

// sameModuloIndent reports whether a and b hold the same lines, ignoring
// leading and trailing white space on each line and blank lines at
// either end.
func sameModuloIndent(a, b string) bool {
	norm := func(s string) []string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSpace(l)
		}
		return lines
	}
	la, lb := norm(a), norm(b)
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if la[i] != lb[i] {
			return false
		}
	}
	return true
}

// checkDocBlock fails unless a ```go block of the Markdown file md is the
// function name of the Go file src, modulo indentation.
func checkDocBlock(t *testing.T, md, src, name string) {
	t.Helper()
	want := funcSource(t, src, name)
	blocks := goBlocks(t, md)
	for _, b := range blocks {
		if sameModuloIndent(b, want) {
			return
		}
	}
	t.Errorf("%s has no ```go block equal to %s in %s (found %d Go blocks); copy the function into it:\n%s",
		md, name, src, len(blocks), want)
}

// captureStdout runs f with os.Stdout writing into a pipe, and returns
// what f printed and f's error. The examples print, as a reader's program
// would; the tests check what they printed.
func captureStdout(t *testing.T, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	ferr := f()
	os.Stdout = old
	w.Close()
	s := <-out
	r.Close()
	return s, ferr
}
