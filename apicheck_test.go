package usctp_test

// Tests of the API checker itself on small synthetic packages, so that a
// broken checker cannot pass every change.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testMod = "example.com/m"

// mapImporter imports the packages already type-checked.
type mapImporter map[string]*types.Package

func (m mapImporter) Import(path string) (*types.Package, error) {
	if p, ok := m[path]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("package %s not in the test", path)
}

// checkSources type-checks one source file per package of testMod, in
// the order given (imports first), and returns the API of the public ones.
func checkSources(t *testing.T, srcs ...[2]string) []string {
	t.Helper()
	imp := mapImporter{}
	var public []*types.Package
	fset := token.NewFileSet()
	for _, s := range srcs {
		path := testMod + "/" + s[0]
		f, err := parser.ParseFile(fset, s[0]+".go", s[1], 0)
		if err != nil {
			t.Fatal(err)
		}
		conf := types.Config{Importer: imp}
		p, err := conf.Check(path, fset, []*ast.File{f}, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		imp[path] = p
		if !isInternal(s[0]) {
			public = append(public, p)
		}
	}
	return apiFeatures(testMod, public)
}

// The package pair: internal/api.Counters gains a field, pub.Config loses
// one, pub.Conn gains a method and pub.Dial takes one more parameter.
const (
	apiV1Internal = `package api

type Counters struct {
	Sent uint64
	lost uint64
}

func (c *Counters) Total() uint64 { return c.Sent + c.lost }
`
	apiV2Internal = `package api

type Counters struct {
	Sent    uint64
	Dropped uint64
	lost    uint64
}

func (c *Counters) Total() uint64 { return c.Sent + c.lost }
`
	apiV1Pub = `package pub

import "example.com/m/internal/api"

type Counters = api.Counters

type Config struct {
	OutStreams uint16
	Retries    int
}

type Conn struct{ c api.Counters }

func (c *Conn) Close() error { return nil }

func (c *Conn) Counters() api.Counters { return c.c }

func Dial(addr string, cfg *Config) (*Conn, error) { return nil, nil }
`
	apiV2Pub = `package pub

import "example.com/m/internal/api"

type Counters = api.Counters

type Config struct {
	OutStreams uint16
}

type Conn struct{ c api.Counters }

func (c *Conn) Close() error { return nil }

func (c *Conn) Abort(reason string) {}

func (c *Conn) Counters() api.Counters { return c.c }

func Dial(addr string, cfg *Config, port uint16) (*Conn, error) { return nil, nil }
`
)

func TestAPICheckerDiff(t *testing.T) {
	v1 := checkSources(t, [2]string{"internal/api", apiV1Internal}, [2]string{"pub", apiV1Pub})
	v2 := checkSources(t, [2]string{"internal/api", apiV2Internal}, [2]string{"pub", apiV2Pub})

	// The alias is followed: the hidden type's fields and methods are
	// listed under the public name, which also names it in signatures.
	for _, want := range []string{
		"pkg pub, type Counters struct",
		"pkg pub, type Counters struct, Sent uint64",
		"pkg pub, method (*Counters) Total() uint64",
		"pkg pub, method (*Conn) Counters() Counters",
	} {
		if !slices.Contains(v1, want) {
			t.Errorf("v1 API lacks %q:\n%s", want, strings.Join(v1, "\n"))
		}
	}
	for _, l := range v1 {
		if strings.Contains(l, "internal") || strings.Contains(l, "lost") || strings.Contains(l, "pkg internal") {
			t.Errorf("v1 API shows a hidden name: %q", l)
		}
	}

	removed, added := diffFeatures(v1, v2)
	wantRemoved := []string{
		"pkg pub, func Dial(string, *Config) (*Conn, error)",
		"pkg pub, type Config struct, Retries int",
	}
	wantAdded := []string{
		"pkg pub, func Dial(string, *Config, uint16) (*Conn, error)",
		"pkg pub, method (*Conn) Abort(string)",
		"pkg pub, type Counters struct, Dropped uint64",
	}
	if !slices.Equal(removed, wantRemoved) || !slices.Equal(added, wantAdded) {
		t.Errorf("diff:\n%swant:\n%s", formatDiff(removed, added), formatDiff(wantRemoved, wantAdded))
	}

	// The changelog names three of the four features.
	log := "# Changelog\n\n## [Unreleased]\n\n### Changed\n- `Dial` takes the peer's port.\n" +
		"- `Conn.Abort` aborts; `Config.Retries` is gone.\n\n## [0.1.0] - 2026-12-06\n\n- Counters.Dropped\n"
	section, ok := unreleasedSection(log)
	if !ok {
		t.Fatal("no Unreleased section found")
	}
	missing := uncoveredFeatures(slices.Concat(removed, added), section)
	if len(missing) != 1 || missing[0].ident != "Counters.Dropped" {
		t.Errorf("uncovered %v, want only Counters.Dropped (it is named under 0.1.0, not Unreleased)", missing)
	}
	if _, ok := unreleasedSection("# Changelog\n\n## [0.1.0]\n- Dial\n"); ok {
		t.Error("found an Unreleased section in a changelog without one")
	}
	if s, ok := unreleasedSection("## Unreleased\n- Dial\n### Added\n- Conn\n## [0.1.0]\n- Abort\n"); !ok ||
		!mentions(s, "Dial") || !mentions(s, "Conn") || mentions(s, "Abort") {
		t.Errorf("unreleasedSection without brackets = %q, %v", s, ok)
	}
}

func TestAPIFeatureForms(t *testing.T) {
	got := checkSources(t,
		[2]string{"internal/impl", `package impl

type Base struct{ Depth int }

func (Base) Hidden() {}
`},
		[2]string{"other", `package other

type Kind uint8
`},
		[2]string{"pub", `package pub

import (
	"example.com/m/internal/impl"
	"example.com/m/other"
)

const (
	Untyped     = 1 << 10
	Typed   Mode = 2
	Name         = "usctp"
)

var ErrX error

type Mode int

func (m Mode) String() string { return "" }

type Ordered interface{ ~int | ~uint16 }

type Heap[T Ordered, V any] struct{ Items []T }

func (h *Heap[T, V]) Push(x T, v ...V) {}

func New[T Ordered](n int) *Heap[T, struct{}] { return nil }

type Reader interface {
	Read(p []byte) (n int, err error)
	private()
}

type Wrapper struct {
	Mode
	impl.Base
	inner
	C <-chan chan<- rune
	M map[string][2]other.Kind
	F func(...int) (bool, error)
}

type inner struct{ Shallow, Depth string }

type Kind = other.Kind

type Base = impl.Base
`},
	)
	wantLines := []string{
		`pkg other, type Kind uint8`,
		`pkg pub, const Name untyped string = "usctp"`,
		`pkg pub, const Typed Mode = 2`,
		`pkg pub, const Untyped untyped int = 1024`,
		`pkg pub, func New[T Ordered](int) *Heap[T, struct{}]`,
		`pkg pub, method (*Heap[T, V]) Push(T, ...V)`,
		`pkg pub, method (Base) Hidden()`,
		`pkg pub, method (Mode) String() string`,
		`pkg pub, method (Wrapper) Hidden()`,
		`pkg pub, method (Wrapper) String() string`,
		`pkg pub, type Base struct`,
		`pkg pub, type Base struct, Depth int`,
		`pkg pub, type Heap[T Ordered, V any] struct`,
		`pkg pub, type Heap[T Ordered, V any] struct, Items []T`,
		`pkg pub, type Kind = other.Kind`,
		`pkg pub, type Mode int`,
		`pkg pub, type Ordered interface {}`,
		`pkg pub, type Ordered interface, ~int | ~uint16`,
		`pkg pub, type Reader interface { Read, unexported methods }`,
		`pkg pub, type Reader interface, Read([]uint8) (int, error)`,
		`pkg pub, type Wrapper struct`,
		`pkg pub, type Wrapper struct, C <-chan chan<- int32`,
		`pkg pub, type Wrapper struct, F func(...int) (bool, error)`,
		`pkg pub, type Wrapper struct, M map[string][2]other.Kind`,
		`pkg pub, type Wrapper struct, Shallow string`,
		`pkg pub, type Wrapper struct, embedded Base`,
		`pkg pub, type Wrapper struct, embedded Mode`,
		`pkg pub, var ErrX error`,
	}
	// Hidden and String are in the value method sets: listed once, with
	// the value receiver. Depth is ambiguous in Wrapper (Base's and
	// inner's): not listed.
	if !slices.Equal(got, wantLines) {
		removed, added := diffFeatures(wantLines, got)
		t.Errorf("API lines differ (-want +got):\n%s", formatDiff(removed, added))
	}
}

func TestAPILeaks(t *testing.T) {
	impl := [2]string{"internal/impl", "package impl\n\ntype Base struct{ Depth int }\n\ntype other struct{}\n"}
	for _, c := range []struct {
		pub   string
		leaks []string
	}{
		{"package pub\n\nimport \"example.com/m/internal/impl\"\n\nfunc F() impl.Base { return impl.Base{} }\n",
			[]string{"internal/impl.Base"}},
		{"package pub\n\nimport \"example.com/m/internal/impl\"\n\ntype Base = impl.Base\n\nfunc F() impl.Base { return impl.Base{} }\n",
			nil},
		{"package pub\n\nimport \"example.com/m/internal/impl\"\n\ntype T struct{ impl.Base }\n",
			nil},
		{"package pub\n\ntype hidden struct{}\n\nfunc F() *hidden { return nil }\n",
			[]string{"pub.hidden"}},
	} {
		imp := mapImporter{}
		var pub *types.Package
		fset := token.NewFileSet()
		for _, s := range [][2]string{impl, {"pub", c.pub}} {
			f, err := parser.ParseFile(fset, s[0]+".go", s[1], 0)
			if err != nil {
				t.Fatal(err)
			}
			p, err := (&types.Config{Importer: imp}).Check(testMod+"/"+s[0], fset, []*ast.File{f}, nil)
			if err != nil {
				t.Fatal(err)
			}
			imp[p.Path()], pub = p, p
		}
		if _, leaks := apiFeaturesLeaks(testMod, []*types.Package{pub}); !slices.Equal(leaks, c.leaks) {
			t.Errorf("leaks %q, want %q in\n%s", leaks, c.leaks, c.pub)
		}
	}
}

func TestAPIFeatureIdent(t *testing.T) {
	for _, c := range []struct{ line, ident string }{
		{"pkg sctp, func Dial(context.Context, string, *Config) (*Association, error)", "Dial"},
		{"pkg flexarray, func New[T any](int) *Array[T]", "New"},
		{"pkg sctp, const DefaultBusyPoll time.Duration = 50000", "DefaultBusyPoll"},
		{"pkg sctp, var ErrClosed error", "ErrClosed"},
		{"pkg sctp, method (*Association) Close() error", "Association.Close"},
		{"pkg sctp, method (Addr) String() string", "Addr.String"},
		{"pkg flexarray, method (*Array[T]) Get(int) *T", "Array.Get"},
		{"pkg sctp, type Config struct", "Config"},
		{"pkg sctp, type Config struct, OutStreams uint16", "Config.OutStreams"},
		{"pkg stream, type Table[O, I any] struct, Out []O", "Table.Out"},
		{"pkg sctp, type Stats struct, embedded Counters", "Stats.Counters"},
		{"pkg x, type T struct, embedded *sctp/chunk.Header", "T.Header"},
		{"pkg perf, type Conn interface { Close, Recv, Send }", "Conn"},
		{"pkg perf, type Conn interface, Recv([]uint8) (int, uint16, uint32, error)", "Conn.Recv"},
		{"pkg sctp, type PMTUState uint8", "PMTUState"},
		{"pkg sctp/compat, type NotificationHandler func([]uint8) error", "NotificationHandler"},
		{"pkg pub, type Kind = other.Kind", "Kind"},
	} {
		if got := featureIdent(c.line); got != c.ident {
			t.Errorf("featureIdent(%q) = %q, want %q", c.line, got, c.ident)
		}
	}
}

func TestAPIMentions(t *testing.T) {
	text := "- `sctp.Dialer` is new; Config.Timers groups the timers; (*Association).Close_x\n"
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"Dialer", true},
		{"Dial", false}, // only as part of Dialer
		{"Config.Timers", true},
		{"Config", true},
		{"Timers", true},
		{"Association.Close", false},
		{"Close", false}, // only as part of Close_x
		{"Conn", false},
	} {
		if got := mentions(text, c.name); got != c.ok {
			t.Errorf("mentions(%q) = %v, want %v", c.name, got, c.ok)
		}
	}
}

func TestAPILastRelease(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"current.txt", "v0.9.0.txt", "v0.10.0.txt", "v0.2.1.txt", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := lastReleaseAPI(dir)
	if err != nil || filepath.Base(got) != "v0.10.0.txt" {
		t.Errorf("lastReleaseAPI = %q, %v; want v0.10.0.txt", got, err)
	}
}
