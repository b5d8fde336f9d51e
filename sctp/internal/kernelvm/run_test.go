package kernelvm

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKernelRun runs programs in the guest through kpeer's run command: standard output
// and standard error come back apart and line by line, with blanks and quotes intact, the
// exit status is reported, two runs at a time keep their lines apart, and a program that
// does not exist is an error.
func TestKernelRun(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, time.Minute)
	type result struct {
		res RunResult
		err error
	}
	second := make(chan result, 1)
	go func() {
		res, err := vm.Run(ctx, "two", "/bin/busybox", "seq", "1", "500")
		second <- result{res, err}
	}()
	res, err := vm.Run(ctx, "one", "/bin/busybox", "sh", "-c",
		`printf${IFS}'a\040b\040"c"\n';echo${IFS}oops>&2;echo${IFS}last;exit${IFS}3`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`a b "c"`, "last"}; !slices.Equal(res.Stdout, want) || !slices.Equal(res.Stderr, []string{"oops"}) || res.Code != 3 {
		t.Errorf("run one: stdout %q stderr %q code %d; want stdout %q stderr [oops] code 3", res.Stdout, res.Stderr, res.Code, want)
	}
	r := <-second
	if r.err != nil || r.res.Code != 0 || len(r.res.Stdout) != 500 || r.res.Stdout[0] != "1" || r.res.Stdout[499] != "500" {
		t.Errorf("run two: %d lines (%q...), code %d, %v; want 1..500, code 0", len(r.res.Stdout), r.res.Stdout[:min(3, len(r.res.Stdout))], r.res.Code, r.err)
	}
	if _, err := vm.Run(ctx, "three", "/no/such/program"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("run of a missing program: %v, want no such file", err)
	}
	if _, err := vm.Run(ctx, "four", "/bin/busybox", "echo", "two words"); err == nil {
		t.Error("an argument with a blank was accepted")
	}
}
