package usctp_test

// The exported API of a package as text, one line per feature, in the
// manner of Go's own api/*.txt files:
//
//	pkg sctp, const DefaultEventQueue untyped int = 64
//	pkg sctp, func Dial(context.Context, string, *Config) (*Association, error)
//	pkg sctp, method (*Association) Close() error
//	pkg sctp, type Config struct
//	pkg sctp, type Config struct, OutStreams uint16
//	pkg sctp, type Transport uint8
//	pkg sctp, var ErrClosed error
//
// Packages of this module are named by their path inside it (sctp,
// sctp/chunk), others by their import path (context, net/netip). A public
// alias of a type users cannot name (one in an internal package, or
// unexported) is written as if the type were declared under the alias:
// its fields and methods are listed under the public name, so a change to
// the hidden type shows as a change of the public API, and the hidden type
// is written by its public name wherever it appears. Aliases are resolved
// everywhere else, so a declaration moved behind an alias reads the same.

import (
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// apiWriter writes the API of the packages of one module.
type apiWriter struct {
	mod     string          // the module path
	pkg     *types.Package  // the package being written
	aliases []publicAlias   // public names of hidden types, by package path and name
	leaks   map[string]bool // hidden types written with no public name
	inEmbed bool            // writing an embedded field's type
}

// publicAlias is a public package's alias of a hidden type.
type publicAlias struct {
	pkg    *types.Package
	name   string
	target types.Type
}

// apiFeatures returns the sorted API lines of the packages pkgs of module
// mod.
func apiFeatures(mod string, pkgs []*types.Package) []string {
	lines, _ := apiFeaturesLeaks(mod, pkgs)
	return lines
}

// apiFeaturesLeaks is apiFeatures that also returns the hidden types the
// API names but users cannot (no public alias): changes to their fields
// and methods escape the API text.
func apiFeaturesLeaks(mod string, pkgs []*types.Package) (lines, leaks []string) {
	w := &apiWriter{mod: mod, leaks: map[string]bool{}}
	for _, p := range pkgs {
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() || !tn.IsAlias() {
				continue
			}
			if t := types.Unalias(tn.Type()); w.hidden(t) {
				w.aliases = append(w.aliases, publicAlias{p, name, t})
			}
		}
	}
	for _, p := range pkgs {
		w.pkg = p
		lines = append(lines, w.features()...)
	}
	slices.Sort(lines)
	for l := range w.leaks {
		leaks = append(leaks, l)
	}
	slices.Sort(leaks)
	return slices.Compact(lines), leaks
}

// hidden reports whether t is a named type users cannot name: one declared
// in an internal package or unexported.
func (w *apiWriter) hidden(t types.Type) bool {
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	return !n.Obj().Exported() || isInternal(n.Obj().Pkg().Path())
}

// isInternal reports whether an import path is inside an internal
// directory, where only its parent's tree may import it.
func isInternal(path string) bool {
	return path == "internal" || strings.HasPrefix(path, "internal/") ||
		strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/")
}

// relPath is how the API text names the package at an import path.
func (w *apiWriter) relPath(path string) string {
	if rel, ok := strings.CutPrefix(path, w.mod+"/"); ok {
		return rel
	}
	return path
}

// features returns the API lines of w.pkg.
func (w *apiWriter) features() []string {
	prefix := "pkg " + w.relPath(w.pkg.Path()) + ", "
	var lines []string
	emit := func(s string) { lines = append(lines, prefix+s) }
	for _, name := range w.pkg.Scope().Names() {
		obj := w.pkg.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			emit("const " + name + " " + w.typ(obj.Type()) + " = " + obj.Val().ExactString())
		case *types.Var:
			emit("var " + name + " " + w.typ(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			emit("func " + name + w.typeParams(sig.TypeParams()) + w.signature(sig))
		case *types.TypeName:
			if !obj.IsAlias() {
				w.typeDecl(emit, name, obj.Type().(*types.Named), true)
				continue
			}
			t := types.Unalias(obj.Type())
			if w.hidden(t) {
				w.typeDecl(emit, name, t.(*types.Named), false)
			} else {
				emit("type " + name + " = " + w.typ(t))
			}
		}
	}
	return lines
}

// typeDecl writes the declaration of the named type t under name, its
// exported fields or interface methods, and its exported methods. A
// defined generic type is written with its type parameters (own); an
// alias's target is written as instantiated.
func (w *apiWriter) typeDecl(emit func(string), name string, t *types.Named, own bool) {
	head := name
	recv := name
	if own && t.TypeParams().Len() > 0 {
		head += w.typeParams(t.TypeParams())
		var names []string
		for i := range t.TypeParams().Len() {
			names = append(names, t.TypeParams().At(i).Obj().Name())
		}
		recv += "[" + strings.Join(names, ", ") + "]"
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		emit("type " + head + " struct")
		w.fields(emit, "type "+head+" struct, ", t, u, 0)
	case *types.Interface:
		var names []string
		unexported := false
		for i := range u.NumMethods() {
			m := u.Method(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			emit("type " + head + " interface, " + m.Name() + w.signature(m.Type().(*types.Signature)))
		}
		slices.Sort(names)
		if unexported {
			names = append(names, "unexported methods")
		}
		if len(names) == 0 {
			emit("type " + head + " interface {}")
		} else {
			emit("type " + head + " interface { " + strings.Join(names, ", ") + " }")
		}
		for i := range u.NumEmbeddeds() {
			if e := u.EmbeddedType(i); !types.IsInterface(e) {
				emit("type " + head + " interface, " + w.typ(e))
			}
		}
		return // an interface's methods are its declaration
	default:
		emit("type " + head + " " + w.typ(u))
	}
	ptr := types.NewMethodSet(types.NewPointer(t))
	val := types.NewMethodSet(t)
	for i := range ptr.Len() {
		m := ptr.At(i).Obj()
		if !m.Exported() {
			continue
		}
		r := "*" + recv
		if val.Lookup(m.Pkg(), m.Name()) != nil {
			r = recv
		}
		emit("method (" + r + ") " + m.Name() + w.signature(m.Type().(*types.Signature)))
	}
}

// fields writes the exported fields of struct s, a part of the type root,
// with the line prefix head: embedded ones as "embedded T", and through an
// embedded hidden struct that no public package aliases (exported or not)
// the exported fields it promotes
// (those a selector on root reaches: not shadowed, not ambiguous). An
// unexported embedded field is not written itself: its promoted methods
// are in the method set.
func (w *apiWriter) fields(emit func(string), head string, root types.Type, s *types.Struct, depth int) {
	if depth > 4 {
		return
	}
	for i := range s.NumFields() {
		f := s.Field(i)
		if depth > 0 {
			if obj, _, _ := types.LookupFieldOrMethod(root, true, f.Pkg(), f.Name()); obj != f {
				continue
			}
		}
		if f.Embedded() {
			if f.Exported() {
				w.inEmbed = true // its fields and methods are promoted: not a leak
				emit(head + "embedded " + w.typ(f.Type()))
				w.inEmbed = false
			}
			base := types.Unalias(f.Type())
			if p, ok := base.(*types.Pointer); ok {
				base = types.Unalias(p.Elem())
			}
			if es, ok := base.Underlying().(*types.Struct); ok && w.hidden(base) && !w.aliased(base) {
				w.fields(emit, head, root, es, depth+1)
			}
			continue
		}
		if f.Exported() {
			emit(head + f.Name() + " " + w.typ(f.Type()))
		}
	}
}

// aliased reports whether a public package aliases the hidden type t: its
// fields are then written under that public name, not again where it is
// embedded.
func (w *apiWriter) aliased(t types.Type) bool {
	for _, a := range w.aliases {
		if types.Identical(a.target, t) {
			return true
		}
	}
	return false
}

// typ writes a type: aliases resolved, hidden named types by a public
// alias where one exists, byte and rune as uint8 and int32.
func (w *apiWriter) typ(t types.Type) string {
	var b strings.Builder
	w.writeType(&b, t)
	return b.String()
}

func (w *apiWriter) writeType(b *strings.Builder, t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		w.writeType(b, types.Unalias(t))
	case *types.Basic:
		if t.Kind() == types.UnsafePointer || t.Info()&types.IsUntyped != 0 {
			b.WriteString(t.Name())
		} else {
			b.WriteString(types.Typ[t.Kind()].Name())
		}
	case *types.Pointer:
		b.WriteString("*")
		w.writeType(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		w.writeType(b, t.Elem())
	case *types.Array:
		b.WriteString("[" + strconv.FormatInt(t.Len(), 10) + "]")
		w.writeType(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		w.writeType(b, t.Key())
		b.WriteString("]")
		w.writeType(b, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
			if c, ok := types.Unalias(t.Elem()).(*types.Chan); ok && c.Dir() == types.RecvOnly {
				b.WriteString("(")
				w.writeType(b, c)
				b.WriteString(")")
				return
			}
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		w.writeType(b, t.Elem())
	case *types.Signature:
		b.WriteString("func")
		b.WriteString(w.signature(t))
	case *types.Struct:
		b.WriteString("struct{")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString("; ")
			}
			f := t.Field(i)
			if !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			w.writeType(b, f.Type())
		}
		b.WriteString("}")
	case *types.Interface:
		if t.Empty() {
			b.WriteString("any")
			return
		}
		if t.IsImplicit() && t.NumEmbeddeds() == 1 {
			w.writeType(b, t.EmbeddedType(0))
			return
		}
		var parts []string
		for i := range t.NumEmbeddeds() {
			if e := t.EmbeddedType(i); !types.IsInterface(types.Unalias(e)) || t.NumMethods() == 0 {
				parts = append(parts, w.typ(e))
			}
		}
		for i := range t.NumMethods() {
			m := t.Method(i)
			parts = append(parts, m.Name()+w.signature(m.Type().(*types.Signature)))
		}
		b.WriteString("interface{ " + strings.Join(parts, "; ") + " }")
	case *types.Union:
		for i := range t.Len() {
			if i > 0 {
				b.WriteString(" | ")
			}
			if t.Term(i).Tilde() {
				b.WriteString("~")
			}
			w.writeType(b, t.Term(i).Type())
		}
	case *types.TypeParam:
		b.WriteString(t.Obj().Name())
	case *types.Named:
		b.WriteString(w.namedType(t))
	case *types.Tuple:
		w.tuple(b, t, false)
	default:
		b.WriteString(t.String())
	}
}

// namedType writes a named type: a hidden one by its public alias (this
// package's if it has one, else the first public package's), others by
// their package and name, with their type arguments.
func (w *apiWriter) namedType(t *types.Named) string {
	obj := t.Obj()
	if obj.Pkg() == nil {
		return obj.Name() // error, comparable
	}
	if w.hidden(t) {
		var found *publicAlias
		for i, a := range w.aliases {
			if types.Identical(a.target, t) && (found == nil || a.pkg == w.pkg && found.pkg != w.pkg) {
				found = &w.aliases[i]
			}
		}
		if found != nil {
			return w.qualify(found.pkg) + found.name
		}
	}
	s := w.qualify(obj.Pkg()) + obj.Name()
	if w.hidden(t) && !w.inEmbed {
		w.leaks[w.relPath(obj.Pkg().Path())+"."+obj.Name()] = true
	}
	if args := t.TypeArgs(); args.Len() > 0 {
		var parts []string
		for i := range args.Len() {
			parts = append(parts, w.typ(args.At(i)))
		}
		s += "[" + strings.Join(parts, ", ") + "]"
	}
	return s
}

// qualify returns the prefix that names a type of package p.
func (w *apiWriter) qualify(p *types.Package) string {
	if p == w.pkg {
		return ""
	}
	return w.relPath(p.Path()) + "."
}

// signature writes a function's parameter and result types (no names,
// no receiver).
func (w *apiWriter) signature(sig *types.Signature) string {
	var b strings.Builder
	w.tuple(&b, sig.Params(), sig.Variadic())
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		b.WriteString(" ")
		w.writeType(&b, res.At(0).Type())
	default:
		b.WriteString(" ")
		w.tuple(&b, res, false)
	}
	return b.String()
}

func (w *apiWriter) tuple(b *strings.Builder, t *types.Tuple, variadic bool) {
	b.WriteString("(")
	for i := range t.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			b.WriteString("...")
			typ = typ.(*types.Slice).Elem()
		}
		w.writeType(b, typ)
	}
	b.WriteString(")")
}

// typeParams writes a type parameter list with the constraints.
func (w *apiWriter) typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	var parts []string
	for i := range tps.Len() {
		tp := tps.At(i)
		parts = append(parts, tp.Obj().Name()+" "+w.typ(tp.Constraint()))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// featureIdent returns the identifier an API line is about, as CHANGELOG.md
// must name it: "Dial" for a function, constant, variable or type,
// "Config.Timers" for a field, "Association.Close" for a method or an
// interface method, "Endpoint.Mutex" for an embedded field.
func featureIdent(line string) string {
	_, rest, ok := strings.Cut(line, ", ") // drop "pkg path"
	if !ok {
		return line
	}
	kind, rest, _ := strings.Cut(rest, " ")
	switch kind {
	case "const", "var", "func":
		return identPrefix(rest)
	case "method":
		recv, m, _ := strings.Cut(strings.TrimPrefix(rest, "("), ") ")
		return identPrefix(strings.TrimPrefix(recv, "*")) + "." + identPrefix(m)
	case "type":
		name := identPrefix(rest)
		rest = skipBrackets(rest[len(name):])
		for _, k := range []string{" struct, ", " interface, "} {
			member, ok := strings.CutPrefix(rest, k)
			if !ok {
				continue
			}
			if e, ok := strings.CutPrefix(member, "embedded "); ok {
				e = strings.TrimLeft(e, "*")
				e = e[:len(identPrefixDotted(e))]
				return name + "." + e[strings.LastIndex(e, ".")+1:]
			}
			if m := identPrefix(member); m != "" {
				return name + "." + m
			}
		}
		return name
	}
	return line
}

// identPrefix returns the Go identifier s starts with.
func identPrefix(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !isIdentRune(r) })
	if i < 0 {
		return s
	}
	return s[:i]
}

// identPrefixDotted returns the dotted name (an import path and a type
// name, such as sctp/chunk.Type) s starts with.
func identPrefixDotted(s string) string {
	i := strings.IndexAny(s, "[( ")
	if i < 0 {
		return s
	}
	return s[:i]
}

// skipBrackets drops a leading type parameter list from s.
func skipBrackets(s string) string {
	if !strings.HasPrefix(s, "[") {
		return s
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return s
}

func isIdentRune(r rune) bool {
	return r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r > 0x7f
}
