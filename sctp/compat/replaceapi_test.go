package sctp

// Each replace module under this directory (a module with the path of the
// package it stands in for) exports the API of the original its go.mod
// pins, but for the differences its package documentation lists.
// TestReplaceModuleAPI compares the two with go/types, from the
// compiler's export data of both builds.

import (
	"fmt"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// replaceModules are the replace modules: the directory of each, the
// import path of the original it replaces (which this module requires, at
// the pinned version) and the packages of this repository whose types its
// API names as its own (the ishidawataru module re-exports compat's).
var replaceModules = []struct {
	dir, original string
	home          []string
}{
	{dir: replaceDir, original: originalPath, home: []string{compatPath}},
	{dir: "pion", original: "github.com/pion/sctp"},
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
// types, types with their underlying type, exported fields with their
// tags, size (for
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
					case f.Exported() && s.Tag(i) != "":
						emit("type " + name + " struct, " + f.Name() + " " + w.typ(f.Type()) + " " + strconv.Quote(s.Tag(i)))
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

// docDifferences returns the API differences the package documentation
// of the replace module in dir lists: in its "Differences from the
// original's API" section, each code line "added: feature" (the
// replacement has it, the original does not) or "missing: feature" (the
// other way).
func docDifferences(t *testing.T, dir string) (added, removed []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatalf("%s/doc.go has no package documentation", dir)
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
			t.Errorf("%s/doc.go: code line %q in the differences section is neither \"added: feature\" nor \"missing: feature\"", dir, code)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// TestReplaceModuleAPI: each replace module is vetted and tidy, and
// exports the API of the pinned original (linux/amd64) exactly but for the
// differences its package documentation lists; the list holds no
// difference that is not there.
func TestReplaceModuleAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replace modules")
	}
	for _, m := range replaceModules {
		t.Run(m.dir, func(t *testing.T) {
			for _, args := range [][]string{{"vet", "."}, {"mod", "tidy", "-diff"}} {
				if out, err := goCmd(m.dir, args...).CombinedOutput(); err != nil {
					t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), m.dir, err, out)
				}
			}
			original := apiLines(loadExported(t, ".", m.original))
			replacement := apiLines(loadExported(t, m.dir, m.original), m.home...)
			if len(original) < 100 {
				t.Fatalf("%s exports %d features: the loader is broken", m.original, len(original))
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
			docAdded, docRemoved := docDifferences(t, m.dir)
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
					"(added: the replacement has it, missing: the original has it):\n%s", m.original, m.dir, b.String())
			}
		})
	}
}
