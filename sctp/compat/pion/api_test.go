package sctp_test

// TestAPI compares this package's exported API with the original's, the
// version usctp's go.mod pins (the module two directories up requires it
// for its benchmarks), and fails on any difference the package
// documentation does not list.

import (
	"fmt"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	originalPath = "github.com/pion/sctp"
	usctpRoot    = "../../.."
)

// goCmd returns a go command run in dir for linux/amd64, outside any
// workspace.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOWORK=off")
	return cmd
}

// loadExported type-checks package path as the module in dir resolves it,
// from the compiler's export data.
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

// features returns p's exported API, one sorted line per feature:
// constants with type and value, variables and functions with their types,
// types with their underlying type, exported fields and struct tags, and
// method sets (value and pointer). Types of p are unqualified, aliases
// resolved, parameter names left out.
func features(p *types.Package) []string {
	w := typeWriter{home: p.Path()}
	var out []string
	add := func(s string) { out = append(out, s) }
	for _, name := range p.Scope().Names() {
		obj := p.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const " + name + " " + w.typ(obj.Type()) + " = " + obj.Val().ExactString())
		case *types.Var:
			add("var " + name + " " + w.typ(obj.Type()))
		case *types.Func:
			add("func " + name + w.sig(obj.Type().(*types.Signature)))
		case *types.TypeName:
			named, ok := types.Unalias(obj.Type()).(*types.Named)
			if !ok || named.Obj().Name() != name {
				add("type " + name + " = " + w.typ(obj.Type()))
				continue
			}
			if s, ok := named.Underlying().(*types.Struct); ok {
				add("type " + name + " struct")
				for i := range s.NumFields() {
					if f := s.Field(i); f.Exported() {
						add(fmt.Sprintf("type %s struct, %s %s %q", name, f.Name(), w.typ(f.Type()), s.Tag(i)))
					}
				}
			} else {
				add("type " + name + " " + w.typ(named.Underlying()))
			}
			ptr, val := types.NewMethodSet(types.NewPointer(named)), types.NewMethodSet(named)
			for i := range ptr.Len() {
				m := ptr.At(i).Obj()
				if !m.Exported() {
					continue
				}
				recv := "*" + name
				if val.Lookup(m.Pkg(), m.Name()) != nil {
					recv = name
				}
				add("method (" + recv + ") " + m.Name() + w.sig(m.Type().(*types.Signature)))
			}
		}
	}
	slices.Sort(out)
	return out
}

// typeWriter writes types for features.
type typeWriter struct{ home string }

func (w typeWriter) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Alias:
		return w.typ(types.Unalias(t))
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 {
			return t.Name()
		}
		return types.Typ[t.Kind()].Name() // byte as uint8
	case *types.Named:
		s := t.Obj().Name()
		if pkg := t.Obj().Pkg(); pkg != nil && pkg.Path() != w.home {
			s = pkg.Path() + "." + s
		}
		return s
	case *types.Pointer:
		return "*" + w.typ(t.Elem())
	case *types.Slice:
		return "[]" + w.typ(t.Elem())
	case *types.Array:
		return "[" + strconv.FormatInt(t.Len(), 10) + "]" + w.typ(t.Elem())
	case *types.Map:
		return "map[" + w.typ(t.Key()) + "]" + w.typ(t.Elem())
	case *types.Chan:
		return [...]string{types.SendRecv: "chan ", types.SendOnly: "chan<- ", types.RecvOnly: "<-chan "}[t.Dir()] + w.typ(t.Elem())
	case *types.Signature:
		return "func" + w.sig(t)
	case *types.Struct:
		var parts []string
		for i := range t.NumFields() {
			f := t.Field(i)
			if f.Embedded() {
				parts = append(parts, w.typ(f.Type()))
			} else {
				parts = append(parts, f.Name()+" "+w.typ(f.Type()))
			}
		}
		return "struct{" + strings.Join(parts, "; ") + "}"
	case *types.Interface:
		var parts []string
		for i := range t.NumEmbeddeds() {
			parts = append(parts, w.typ(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			parts = append(parts, m.Name()+w.sig(m.Type().(*types.Signature)))
		}
		return "interface{" + strings.Join(parts, "; ") + "}"
	}
	return t.String()
}

// sig writes a signature's parameter and result types.
func (w typeWriter) sig(s *types.Signature) string {
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
	r := tuple(s.Params(), s.Variadic())
	switch s.Results().Len() {
	case 0:
	case 1:
		r += " " + w.typ(s.Results().At(0).Type())
	default:
		r += " " + tuple(s.Results(), false)
	}
	return r
}

// listedDifferences returns the code lines "added: feature" and "missing:
// feature" of the package documentation's section "Differences from the
// original's API".
func listedDifferences(t *testing.T) (added, missing []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
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
			missing = append(missing, s)
		} else {
			t.Errorf("doc.go: %q in the differences section is neither \"added: feature\" nor \"missing: feature\"", code)
		}
	}
	return added, missing
}

// TestAPI: the package exports the pinned original's API (linux/amd64)
// but for the differences its documentation lists, and the list names no
// difference that is not there.
func TestAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both packages")
	}
	original := features(loadExported(t, usctpRoot, originalPath))
	mine := features(loadExported(t, ".", originalPath))
	if len(original) < 200 {
		t.Fatalf("the original exports %d features: the loader is broken", len(original))
	}
	listedAdded, listedMissing := listedDifferences(t)
	var b strings.Builder
	check := func(kind string, got, listed []string) {
		for _, l := range got {
			if !slices.Contains(listed, l) {
				fmt.Fprintf(&b, "\tnot listed: %s: %s\n", kind, l)
			}
		}
		for _, l := range listed {
			if !slices.Contains(got, l) {
				fmt.Fprintf(&b, "\tlisted, no difference: %s: %s\n", kind, l)
			}
		}
	}
	var added, missing []string
	for _, l := range mine {
		if _, ok := slices.BinarySearch(original, l); !ok {
			added = append(added, l)
		}
	}
	for _, l := range original {
		if _, ok := slices.BinarySearch(mine, l); !ok {
			missing = append(missing, l)
		}
	}
	check("added", added, listedAdded)
	check("missing", missing, listedMissing)
	if b.Len() > 0 {
		t.Errorf("the API differs from %s's otherwise than doc.go lists "+
			"(added: this package has it, missing: the original has it):\n%s", originalPath, b.String())
	}
}
