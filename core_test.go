package usctp_test

// The association core is sans-I/O (docs/DESIGN.md, "The association
// core"): sctp/internal/assoc owns no socket, goroutine, lock or clock.
// The layering table keeps sctp/internal/netio and golang.org/x/sys out
// of its dependencies; the tests here keep out the standard library's
// I/O, locks and clock.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const corePkg = modulePath + "/sctp/internal/assoc"

// coreForbidden are the standard packages the core must not import
// itself: sockets, files and processes, locks, system calls. (The module
// packages it uses may keep sync.Pool free lists, as docs/DESIGN.md allows, and
// the standard library's fmt imports os and sync inside; neither gives
// the core a socket, a lock or a clock of its own.)
var coreForbidden = []string{"net", "os", "sync", "syscall"}

// moduleForbidden are the standard packages that no package of this
// module the core depends on may import (sync is allowed there: the
// transfer engine keeps sync.Pool free lists).
var moduleForbidden = []string{"net", "os", "syscall"}

// coreForbiddenDeps must not be anywhere in its dependencies.
var coreForbiddenDeps = []string{"net", "golang.org/x/sys", modulePath + "/sctp/internal/netio"}

// coreClock are the functions of package time that read the clock or
// sleep: the core is handed the time.
var coreClock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

func TestCoreImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}|{{join .Deps " "}}`, "./sctp/internal/assoc").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports, deps, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
	for _, p := range strings.Fields(imports) {
		if banned(p, coreForbidden) {
			t.Errorf("%s imports %s", corePkg, p)
		}
	}
	var mods []string
	for _, p := range strings.Fields(deps) {
		if banned(p, coreForbiddenDeps) {
			t.Errorf("%s depends on %s", corePkg, p)
		}
		if strings.HasPrefix(p, modulePath+"/") {
			mods = append(mods, p)
		}
	}
	if len(mods) == 0 {
		t.Fatal("the core depends on no package of the module: go list failed?")
	}
	out, err = exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}} {{join .Imports " "}}`}, mods...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, p := range f[1:] {
			if banned(p, moduleForbidden) {
				t.Errorf("%s, which the core uses, imports %s", f[0], p)
			}
		}
	}
}

// banned reports whether package path p is one of list or below one
// (sync/atomic is sync's), except that net is matched exactly: net/netip,
// plain address values, is allowed.
func banned(p string, list []string) bool {
	for _, b := range list {
		if p == b || (b != "net" && strings.HasPrefix(p, b+"/")) {
			return true
		}
	}
	return false
}

func TestCoreNoClockNoGoroutine(t *testing.T) {
	files, err := filepath.Glob("sctp/internal/assoc/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no core files: %v", err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		timePkg := importName(f, "time")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%v: the core starts a goroutine", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && timePkg != "" && id.Name == timePkg {
					for _, fn := range coreClock {
						if n.Sel.Name == fn {
							t.Errorf("%v: the core calls time.%s: it is handed the time", fset.Position(n.Pos()), fn)
						}
					}
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no non-test file in the core")
	}
}

// importName returns the name under which f imports path, "" if it does
// not.
func importName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if strings.Trim(im.Path.Value, `"`) != path {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}
