package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/perf"
)

// TestMain lets the test binary play sctpperf when the self-spawning test
// starts it again as the server.
func TestMain(m *testing.M) {
	if os.Getenv("SCTPPERF_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	p := o.params
	if p.Test != perf.Stream || p.Stack != "usctp" || p.Duration != 10*time.Second || p.MsgSize != 1452 ||
		p.Config.Transport != "udp" || p.Config.Streams != 1 || o.host != "" || o.port != perf.DefaultPort ||
		o.interim != time.Second {
		t.Errorf("defaults: %+v %+v", o, p)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(strings.Fields("-t sctp_rr_many -H 192.0.2.1 -p 2000 -l 2.5 -r 64,1024 -s 65536 -S 131072 "+
		"-stack pion -assocs 4 -streams 8 -sched wfq -weights 1,2,3,4 -interleave -v -json -D 0"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	p := o.params
	if p.Test != perf.RRMany || o.host != "192.0.2.1" || o.port != 2000 || p.Duration != 2500*time.Millisecond ||
		p.ReqSize != 64 || p.RespSize != 1024 || p.Config.SndBuf != 65536 || p.Config.RcvBuf != 131072 ||
		p.Stack != "pion" || p.Assocs != 4 || p.Config.Streams != 8 || p.Config.Sched != "wfq" ||
		len(p.Config.Weights) != 4 || p.Config.Weights[3] != 4 || !p.Config.Interleave || !p.PerStream ||
		!o.json || o.interim != 0 || p.Config.MaxMsg != 1024 {
		t.Errorf("parsed: %+v %+v", o, p)
	}
	o, err = parseFlags(strings.Fields("-t SCTP_STREAM_MANY -compare usctp,pion -rounds 8 -r 7"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.params.Config.Streams != 65535 || len(o.compare) != 2 || o.rounds != 8 || o.params.ReqSize != 7 || o.params.RespSize != 7 {
		t.Errorf("parsed: %+v", o)
	}
}

// TestHelpDefaults checks that -h states each flag's default once: -D's
// default depends on -l, and its usage says so; the flag package must not
// print a sentinel beside it.
func TestHelpDefaults(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &out); err == nil {
		t.Fatal("-h: no error")
	}
	help := out.String()
	i := strings.Index(help, "  -D ")
	if i < 0 {
		t.Fatalf("no -D in help:\n%s", help)
	}
	d, _, _ := strings.Cut(help[i+5:], "\n  -")
	if n := strings.Count(d, "default"); n != 1 {
		t.Errorf("-D's help names %d defaults, want 1: %q", n, d)
	}
	for _, args := range []string{"-D 0", "-D 250ms"} {
		if _, err := parseFlags(strings.Fields(args), &bytes.Buffer{}); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}

func TestParseFlagsErrors(t *testing.T) {
	for _, args := range []string{
		"-t TCP_STREAM", "-l 0", "-r 0,1", "-r a,b", "-weights 1,x", "-prios 70000",
		"-weights 1 -prios 1", "-stack quic", "-compare usctp,nope", "-rounds 0", "-streams 65536", "extra",
		"-streams 2 -weights 1,2,3", "-D -1s", "-D x",
	} {
		if _, err := parseFlags(strings.Fields(args), &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestSelfSpawn runs sctpperf as a user does, with no -H: the server runs
// in a child process (this test binary, started again as sctpperf).
func TestSelfSpawn(t *testing.T) {
	t.Setenv("SCTPPERF_TEST_MAIN", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	err := run(ctx, strings.Fields("-l 0.3 -s 65536 -stack pion"), strings.NewReader(""), &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	for _, want := range []string{"SCTP STREAM TEST to 127.0.0.1", "10^6bits/s", "1452"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	err = run(ctx, strings.Fields("-t SCTP_RR -l 0.3 -json"), strings.NewReader(""), &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	var r perf.Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("-json: %v\n%s", err, out.String())
	}
	if r.TransRate <= 0 || r.Params.Stack != "usctp" {
		t.Errorf("result %+v", r)
	}
}

func TestCompareAndMemory(t *testing.T) {
	t.Setenv("SCTPPERF_TEST_MAIN", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	if err := run(ctx, strings.Fields("-t SCTP_RR -l 0.2 -compare usctp,pion -rounds 2"), strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("compare: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "usctp/pion = ") || strings.Count(errb.String(), "round ") != 4 {
		t.Errorf("compare output:\n%s\n%s", out.String(), errb.String())
	}
	out.Reset()
	if err := run(ctx, strings.Fields("-memory -compare usctp,pion -assocs 2 -streams 10"), strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("memory: %v", err)
	}
	if !strings.Contains(out.String(), "idle heap") || !strings.Contains(out.String(), "pion") {
		t.Errorf("memory output:\n%s", out.String())
	}
}

func TestKernelStackError(t *testing.T) {
	t.Setenv("SCTPPERF_TEST_MAIN", "1")
	var out, errb bytes.Buffer
	err := run(t.Context(), strings.Fields("-stack kernel -transport ip -l 0.2"), strings.NewReader(""), &out, &errb)
	if err == nil {
		t.Skip("this kernel has SCTP")
	}
	if !strings.Contains(err.Error(), "kernel has no SCTP") {
		t.Errorf("error %v, want kernel has no SCTP", err)
	}
}
