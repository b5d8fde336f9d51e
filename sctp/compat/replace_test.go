package sctp

// The replace module (ishidawataru/, module github.com/ishidawataru/sctp)
// puts this package in the original's place with one replace directive.
// TestReplaceModuleAPI compares its exported API with the original's, the
// version this module's go.mod pins; replaceModule sets up a module that
// uses it as a program does, for the tests of original_test.go and
// thirdparty_test.go.

import (
	"fmt"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
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

// loadExported type-checks the package at path, as the module in dir
// resolves it, from the compiler's export data.
func loadExported(t *testing.T, dir, path string) *types.Package {
	t.Helper()
	cmd := goCmd(dir, "list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}", path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %s in %s: %v\n%s", path, dir, err, stderr.String())
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[p] = file
		}
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(p string) (io.ReadCloser, error) {
		file, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(file)
	})
	p, err := imp.Import(path)
	if err != nil {
		t.Fatalf("importing %s from %s: %v", path, dir, err)
	}
	return p
}

// apiLines returns the exported API of p, one sorted line per feature:
// constants with their type and value, variables and functions with their
// types, types with their underlying type, exported fields, size (for
// structs of exported and blank fields only: the kernel's layouts) and
// exported methods. Types of p and of the packages in home are written
// unqualified, aliases resolved, parameter names left out.
func apiLines(p *types.Package, home ...string) []string {
	w := apiText{home: append(home, p.Path())}
	sizes := types.SizesFor("gc", "amd64")
	var lines []string
	emit := func(s string) { lines = append(lines, s) }
	for _, name := range p.Scope().Names() {
		obj := p.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			emit("const " + name + " " + w.typ(obj.Type()) + " = " + obj.Val().ExactString())
		case *types.Var:
			emit("var " + name + " " + w.typ(obj.Type()))
		case *types.Func:
			emit("func " + name + w.signature(obj.Type().(*types.Signature)))
		case *types.TypeName:
			named, ok := types.Unalias(obj.Type()).(*types.Named)
			if !ok || named.Obj().Name() != name {
				emit("type " + name + " = " + w.typ(obj.Type()))
				continue
			}
			under := named.Underlying()
			if s, ok := under.(*types.Struct); ok {
				emit("type " + name + " struct")
				plain := true
				for i := range s.NumFields() {
					f := s.Field(i)
					switch {
					case f.Embedded() && f.Exported():
						emit("type " + name + " struct, embedded " + w.typ(f.Type()))
					case f.Exported():
						emit("type " + name + " struct, " + f.Name() + " " + w.typ(f.Type()))
					case f.Name() != "_":
						plain = false
					}
				}
				if plain {
					emit("type " + name + " struct, size " + strconv.FormatInt(sizes.Sizeof(s), 10))
				}
			} else {
				emit("type " + name + " " + w.typ(under))
			}
			ptr := types.NewMethodSet(types.NewPointer(named))
			val := types.NewMethodSet(named)
			for i := range ptr.Len() {
				m := ptr.At(i).Obj()
				if !m.Exported() {
					continue
				}
				recv := "*" + name
				if val.Lookup(m.Pkg(), m.Name()) != nil {
					recv = name
				}
				emit("method (" + recv + ") " + m.Name() + w.signature(m.Type().(*types.Signature)))
			}
		}
	}
	slices.Sort(lines)
	return lines
}

// apiText writes types for apiLines.
type apiText struct {
	home []string // package paths whose types are written unqualified
}

func (w apiText) typ(t types.Type) string {
	var b strings.Builder
	w.write(&b, t)
	return b.String()
}

func (w apiText) write(b *strings.Builder, t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		w.write(b, types.Unalias(t))
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
			b.WriteString(t.Name())
		} else {
			b.WriteString(types.Typ[t.Kind()].Name()) // byte as uint8, rune as int32
		}
	case *types.Named:
		if pkg := t.Obj().Pkg(); pkg != nil && !slices.Contains(w.home, pkg.Path()) {
			b.WriteString(pkg.Path() + ".")
		}
		b.WriteString(t.Obj().Name())
		if args := t.TypeArgs(); args.Len() > 0 {
			b.WriteString("[")
			for i := range args.Len() {
				if i > 0 {
					b.WriteString(", ")
				}
				w.write(b, args.At(i))
			}
			b.WriteString("]")
		}
	case *types.Pointer:
		b.WriteString("*")
		w.write(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		w.write(b, t.Elem())
	case *types.Array:
		b.WriteString("[" + strconv.FormatInt(t.Len(), 10) + "]")
		w.write(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		w.write(b, t.Key())
		b.WriteString("]")
		w.write(b, t.Elem())
	case *types.Chan:
		b.WriteString([...]string{types.SendRecv: "chan ", types.SendOnly: "chan<- ", types.RecvOnly: "<-chan "}[t.Dir()])
		w.write(b, t.Elem())
	case *types.Signature:
		b.WriteString("func" + w.signature(t))
	case *types.Struct:
		b.WriteString("struct{")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString("; ")
			}
			if f := t.Field(i); !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			w.write(b, t.Field(i).Type())
		}
		b.WriteString("}")
	case *types.Interface:
		var parts []string
		for i := range t.NumEmbeddeds() {
			parts = append(parts, w.typ(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			parts = append(parts, m.Name()+w.signature(m.Type().(*types.Signature)))
		}
		b.WriteString("interface{" + strings.Join(parts, "; ") + "}")
	default:
		b.WriteString(t.String())
	}
}

// signature writes a function's parameter and result types, without
// names.
func (w apiText) signature(sig *types.Signature) string {
	tuple := func(t *types.Tuple, variadic bool) string {
		var parts []string
		for i := range t.Len() {
			if variadic && i == t.Len()-1 {
				parts = append(parts, "..."+w.typ(t.At(i).Type().(*types.Slice).Elem()))
				continue
			}
			parts = append(parts, w.typ(t.At(i).Type()))
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	s := tuple(sig.Params(), sig.Variadic())
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		s += " " + w.typ(res.At(0).Type())
	default:
		s += " " + tuple(res, false)
	}
	return s
}

// docDifferences returns the API differences the replace module's package
// documentation lists: in its "Differences from the original's API"
// section, each code line "added: feature" (the replacement has it, the
// original does not) or "missing: feature" (the other way).
func docDifferences(t *testing.T) (added, removed []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(replaceDir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatalf("%s/doc.go has no package documentation", replaceDir)
	}
	in := false
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "# ") {
			in = line == "# Differences from the original's API"
			continue
		}
		code, ok := strings.CutPrefix(line, "\t")
		if !in || !ok {
			continue
		}
		if s, ok := strings.CutPrefix(code, "added: "); ok {
			added = append(added, s)
		} else if s, ok := strings.CutPrefix(code, "missing: "); ok {
			removed = append(removed, s)
		} else {
			t.Errorf("%s/doc.go: code line %q in the differences section is neither \"added: feature\" nor \"missing: feature\"", replaceDir, code)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// TestReplaceModuleAPI: the replace module is vetted and tidy, and exports
// the API of the pinned original (linux/amd64) exactly but for the
// differences its package documentation lists; the list holds no
// difference that is not there.
func TestReplaceModuleAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replace module")
	}
	for _, args := range [][]string{{"vet", "."}, {"mod", "tidy", "-diff"}} {
		if out, err := goCmd(replaceDir, args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), replaceDir, err, out)
		}
	}
	original := apiLines(loadExported(t, ".", originalPath))
	replacement := apiLines(loadExported(t, replaceDir, originalPath), compatPath)
	if len(original) < 100 {
		t.Fatalf("the original exports %d features: the loader is broken", len(original))
	}
	var added, removed []string
	for _, l := range replacement {
		if _, ok := slices.BinarySearch(original, l); !ok {
			added = append(added, l)
		}
	}
	for _, l := range original {
		if _, ok := slices.BinarySearch(replacement, l); !ok {
			removed = append(removed, l)
		}
	}
	docAdded, docRemoved := docDifferences(t)
	var b strings.Builder
	for _, d := range []struct {
		kind        string
		got, listed []string
	}{{"added", added, docAdded}, {"missing", removed, docRemoved}} {
		for _, l := range d.got {
			if !slices.Contains(d.listed, l) {
				fmt.Fprintf(&b, "\tnot listed: %s: %s\n", d.kind, l)
			}
		}
		for _, l := range d.listed {
			if !slices.Contains(d.got, l) {
				fmt.Fprintf(&b, "\tlisted, no difference: %s: %s\n", d.kind, l)
			}
		}
	}
	if b.Len() > 0 {
		t.Errorf("the replace module's API differs from %s's otherwise than %s/doc.go lists "+
			"(added: the replacement has it, missing: the original has it):\n%s", originalPath, replaceDir, b.String())
	}
}
