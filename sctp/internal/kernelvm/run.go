package kernelvm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// RunResult is what a program run in the guest printed and how it ended.
type RunResult struct {
	// Stdout and Stderr hold the lines it printed on its standard output and
	// standard error.
	Stdout, Stderr []string
	// Code is its exit status (-1: killed).
	Code int
}

// Run runs a program in the guest (kpeer's run command: for example a program of
// Config.Programs, "/sctpperf") and returns its output once it exited. id names the run
// in kpeer's lines and must be unique among the VM's runs; the words of argv may not
// contain blanks. When ctx ends first, Run returns ctx's error and what the program
// printed so far.
func (vm *VM) Run(ctx context.Context, id string, argv ...string) (RunResult, error) {
	res := RunResult{Code: -1}
	if id == "" || strings.ContainsAny(id, " \t=") || len(argv) == 0 {
		return res, errors.New("kernelvm: Run: want an id without blanks and a program")
	}
	for _, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t") {
			return res, fmt.Errorf("kernelvm: Run: argument %q: kpeer's run takes blank-separated words", a)
		}
	}
	if err := vm.Command("run id=" + id + " " + strings.Join(argv, " ")); err != nil {
		return res, err
	}
	started, errLine := "STARTED id="+id+" ", "ERR id="+id+" cmd=run "
	l, err := vm.Wait(ctx, func(l Line) bool {
		return strings.HasPrefix(l.Raw, started) || strings.HasPrefix(l.Raw, errLine)
	})
	if err != nil {
		return res, fmt.Errorf("kernelvm: run %s: %w", id, err)
	}
	if l.Verb == "ERR" {
		return res, fmt.Errorf("kernelvm: run %s: %s", id, l.Raw)
	}
	out, exit := "OUT id="+id+" ", "EXIT id="+id+" "
	for {
		l, err := vm.Wait(ctx, func(l Line) bool {
			return strings.HasPrefix(l.Raw, out) || strings.HasPrefix(l.Raw, exit)
		})
		if err != nil {
			return res, fmt.Errorf("kernelvm: run %s: %w", id, err)
		}
		if l.Verb == "EXIT" {
			res.Code = l.Int("code")
			return res, nil
		}
		_, quoted, _ := strings.Cut(l.Raw, " line=")
		text, err := strconv.Unquote(quoted)
		if err != nil {
			return res, fmt.Errorf("kernelvm: run %s: output line %q: %w", id, l.Raw, err)
		}
		if l.Get("fd") == "2" {
			res.Stderr = append(res.Stderr, text)
		} else {
			res.Stdout = append(res.Stdout, text)
		}
	}
}
