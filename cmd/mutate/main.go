// Command mutate measures how well the test suite catches realistic bugs:
// it plants the mutants of mutants.go (single-token bugs in the path
// selection, AUTH, ASCONF, PLPMTUD, RACK-TLP, ECN and compat notification
// code) one at a time and runs the tests of the packages each concerns. A
// mutant is caught when a test fails (or times out) and survives when
// every test passes; the score of an area is the share caught.
//
// Mutants are planted with `go test -overlay`: the tree is never written.
// A mutant whose original snippet does not occur exactly once in its
// file is reported as "snippet not found" (the code moved on: update the
// mutant) and counts as neither caught nor survived; one that does not
// build is reported as such.
//
//	go run ./cmd/mutate                      # every mutant, a table per area
//	go run ./cmd/mutate -area paths,ecn      # the mutants of some areas
//	go run ./cmd/mutate -id paths/alt-same   # one mutant (comma-separated ids)
//	go run ./cmd/mutate -list                # the mutants, without running
//	go run ./cmd/mutate -check               # only whether every snippet matches
//	go run ./cmd/mutate -id ID -pkg ./sctp/internal/assoc -run TestX   # one test against it
//
// The exit status is 0 when every mutant ran, 1 when a snippet was not found
// or a mutant did not build, 2 on bad usage.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// outcome is what planting one mutant gave.
type outcome int

const (
	caught outcome = iota
	survived
	notFound // the snippet is not exactly once in the file
	noBuild  // the mutated tree does not compile
)

func (o outcome) String() string {
	return [...]string{"CAUGHT", "SURVIVED", "SNIPPET NOT FOUND", "BUILD FAILED"}[o]
}

// result is the outcome of one mutant with what decided it.
type result struct {
	m       *mutant
	outcome outcome
	by      string // the package and test that caught it, or why it did not run
	took    time.Duration
}

func main() {
	areaFlag := flag.String("area", "", "comma-separated areas to run (default all)")
	idFlag := flag.String("id", "", "comma-separated mutant ids to run")
	list := flag.Bool("list", false, "list the mutants and exit")
	check := flag.Bool("check", false, "only check that every snippet occurs exactly once")
	timeout := flag.Duration("timeout", 5*time.Minute, "go test -timeout of each package run")
	pkg := flag.String("pkg", "", "run only this package's tests (with -run), instead of the area's packages")
	runRE := flag.String("run", "", "with -pkg: the go test -run pattern")
	without := flag.String("without", "", "comma-separated packages whose runs are left out (e.g. ./sctp for a quick pass)")
	verbose := flag.Bool("v", false, "print the output of the tests that caught or failed to build a mutant")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	sel, err := selectMutants(mutants, *areaFlag, *idFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	if *list {
		for _, m := range sel {
			fmt.Printf("%-32s %s\n%32s %s\n", m.ID, m.File, "", m.Rule)
		}
		return
	}
	tmp, err := os.MkdirTemp("", "mutate")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(tmp)
	var results []result
	bad := false
	for i := range sel {
		m := sel[i]
		var r result
		if *check {
			r = result{m: m, outcome: caught}
			if _, err := plant(root, m); err != nil {
				r = result{m: m, outcome: notFound, by: err.Error()}
			}
			if r.outcome == notFound {
				fmt.Printf("%-20s %-32s %s\n", r.outcome, m.ID, r.by)
				bad = true
			}
			continue
		}
		ts := m.targets()
		if *pkg != "" {
			ts = []target{{*pkg, *runRE, ""}}
		}
		ts = slices.DeleteFunc(ts, func(t target) bool { return splitSet(*without)[t.Pkg] })
		r = run(root, tmp, m, ts, *timeout, *verbose)
		results = append(results, r)
		fmt.Printf("%-20s %-32s %6.1fs %s\n", r.outcome, m.ID, r.took.Seconds(), r.by)
		if r.outcome == notFound || r.outcome == noBuild {
			bad = true
		}
	}
	if *check {
		if !bad {
			fmt.Printf("all %d snippets found\n", len(sel))
		}
	} else {
		report(results)
	}
	if bad {
		os.Exit(1)
	}
}

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module")
	}
	return filepath.Dir(mod), nil
}

// selectMutants returns the mutants of the areas and ids asked for, all
// when neither is.
func selectMutants(all []mutant, areas, ids string) ([]*mutant, error) {
	wantArea := splitSet(areas)
	wantID := splitSet(ids)
	for a := range wantArea {
		if _, ok := areaTargets[a]; !ok {
			return nil, fmt.Errorf("unknown area %q", a)
		}
	}
	var sel []*mutant
	seen := map[string]bool{}
	for i := range all {
		m := &all[i]
		seen[m.ID] = true
		if len(wantArea) > 0 && !wantArea[m.Area] || len(wantID) > 0 && !wantID[m.ID] {
			continue
		}
		sel = append(sel, m)
	}
	var unknown []string
	for id := range wantID {
		if !seen[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown mutant ids %s", strings.Join(unknown, ","))
	}
	return sel, nil
}

func splitSet(s string) map[string]bool {
	set := map[string]bool{}
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			set[f] = true
		}
	}
	return set
}

// plant returns the content of m's file with the mutation applied, or an
// error when the original snippet does not occur exactly once.
func plant(root string, m *mutant) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		return nil, err
	}
	switch n := bytes.Count(src, []byte(m.Old)); n {
	case 1:
	case 0:
		return nil, fmt.Errorf("%s: snippet %q not found", m.File, m.Old)
	default:
		return nil, fmt.Errorf("%s: snippet %q found %d times", m.File, m.Old, n)
	}
	return bytes.Replace(src, []byte(m.Old), []byte(m.New), 1), nil
}

// failRE finds the name of a failing test in go test's output.
var failRE = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)|^panic: test timed out`)

// run plants m through an overlay and runs its targets in order, stopping
// at the first that fails.
func run(root, tmp string, m *mutant, targets []target, timeout time.Duration, verbose bool) result {
	start := time.Now()
	res := result{m: m}
	src, err := plant(root, m)
	if err != nil {
		res.outcome, res.by = notFound, err.Error()
		return res
	}
	mutated := filepath.Join(tmp, filepath.Base(m.File))
	overlay := filepath.Join(tmp, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, m.File): mutated}})
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		res.outcome, res.by = noBuild, err.Error()
		return res
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		res.outcome, res.by = noBuild, err.Error()
		return res
	}
	res.outcome = survived
	for _, t := range targets {
		args := []string{"-n", "10", "go", "test", "-overlay", overlay, "-count=1", "-failfast",
			"-timeout", timeout.String()}
		if t.Run != "" {
			args = append(args, "-run", t.Run)
		}
		if t.Skip != "" {
			args = append(args, "-skip", t.Skip)
		}
		args = append(args, t.Pkg)
		// The test binary's own timeout fires first; this one catches a
		// build or a process that hangs.
		ctx, cancel := context.WithTimeout(context.Background(), timeout+2*time.Minute)
		cmd := exec.CommandContext(ctx, "nice", args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			continue
		}
		if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
			res.outcome, res.by = noBuild, t.Pkg
		} else {
			res.outcome = caught
			res.by = t.Pkg
			if sm := failRE.FindSubmatch(out); sm != nil {
				name := string(sm[1])
				if name == "" {
					name = "timeout"
				}
				res.by += " " + name
			} else if ctx.Err() != nil {
				res.by += " (killed after " + (timeout + 2*time.Minute).String() + ")"
			}
		}
		if verbose {
			os.Stdout.Write(out)
		}
		break
	}
	res.took = time.Since(start)
	return res
}

// report prints the score per area and in all.
func report(results []result) {
	type score struct{ caught, survived, invalid int }
	per := map[string]*score{}
	var areas []string
	total := score{}
	for _, r := range results {
		s := per[r.m.Area]
		if s == nil {
			s = &score{}
			per[r.m.Area] = s
			areas = append(areas, r.m.Area)
		}
		switch r.outcome {
		case caught:
			s.caught++
			total.caught++
		case survived:
			s.survived++
			total.survived++
		default:
			s.invalid++
			total.invalid++
		}
	}
	slices.SortFunc(areas, func(a, b string) int { return strings.Compare(a, b) })
	fmt.Printf("\n%-10s %7s %9s %8s %6s\n", "area", "caught", "survived", "invalid", "score")
	line := func(name string, s score) {
		pct := "-"
		if n := s.caught + s.survived; n > 0 {
			pct = fmt.Sprintf("%.0f%%", 100*float64(s.caught)/float64(n))
		}
		fmt.Printf("%-10s %7d %9d %8d %6s\n", name, s.caught, s.survived, s.invalid, pct)
	}
	for _, a := range areas {
		line(a, *per[a])
	}
	line("all", total)
	var surv []string
	for _, r := range results {
		if r.outcome == survived {
			surv = append(surv, r.m.ID)
		}
	}
	if len(surv) > 0 {
		fmt.Printf("\nsurvivors: %s\n", strings.Join(surv, " "))
	}
}
