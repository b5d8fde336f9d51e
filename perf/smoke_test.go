package perf

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"
)

// startServer runs Serve on a loopback port for the test's lifetime.
func startServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// smokeStacks are the stacks the smoke runs cover: those in this process,
// and the kernel's TCP, which every host has.
func smokeStacks() []string { return append(inProcessStacks(), "tcp") }

// inProcessStacks are the stacks whose associations live in this process.
func inProcessStacks() []string {
	var out []string
	for _, name := range Stacks() {
		if s, _ := Lookup(name); s.InProcess() {
			out = append(out, name)
		}
	}
	return out
}

func TestSmoke(t *testing.T) {
	addr := startServer(t)
	for _, stack := range smokeStacks() {
		for _, test := range Tests {
			t.Run(stack+"/"+test, func(t *testing.T) {
				p := Params{Test: test, Stack: stack, Duration: 200 * time.Millisecond, PerStream: true}
				p.Config.SndBuf = 64 << 10 // short drain after the run
				if test == StreamMany || test == RRMany {
					p.Config.Streams, p.Assocs = 8, 2
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				r, err := Run(ctx, addr, p, RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if r.Primary() <= 0 {
					t.Errorf("%s on %s: %v %s", test, stack, r.Primary(), r.PrimaryUnit())
				}
				var b bytes.Buffer
				WriteTable(&b, r)
				t.Logf("\n%s", b.String())
			})
		}
	}
}

func TestMemorySmoke(t *testing.T) {
	for _, stack := range inProcessStacks() {
		t.Run(stack, func(t *testing.T) {
			r, err := Memory(t.Context(), MemoryParams{Stack: stack, Assocs: 4, Streams: 16, PerAssoc: 20, AllocMsgs: 200})
			if err != nil {
				t.Fatal(err)
			}
			if r.IdleHeap <= 0 || r.AllocsPerMsg < 0 {
				t.Errorf("%+v", r)
			}
			var b bytes.Buffer
			WriteMemory(&b, []*MemoryResult{r})
			t.Logf("\n%s", b.String())
		})
	}
}

func TestInterimDuringRun(t *testing.T) {
	addr := startServer(t)
	for _, test := range []string{Stream, RR} {
		var got []Interim
		p := Params{Test: test, Stack: "pion", Duration: 700 * time.Millisecond, Interim: 200 * time.Millisecond}
		p.Config.SndBuf = 64 << 10
		r, err := Run(t.Context(), addr, p, RunOptions{OnInterim: func(in Interim) { got = append(got, in) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 2 || len(r.Interims) != len(got) {
			t.Errorf("%s: %d interim reports, %d in the result", test, len(got), len(r.Interims))
		}
		// The reports follow each other, and together they count what moved.
		var moved uint64
		var rated bool
		for i, in := range got {
			if in.Span <= 0 || i > 0 && in.At <= got[i-1].At {
				t.Errorf("%s: report %d at %.3f s spans %.3f s, after one at %.3f s", test, i, in.At, in.Span, got[max(i-1, 0)].At)
			}
			moved += in.Bytes + in.Trans
			rated = rated || in.Rate > 0
		}
		if moved == 0 || !rated {
			t.Errorf("%s: the interim reports count nothing: %+v", test, got)
		}
	}
}

// TestSmokeShards runs the many-association tests against a usctp server
// of two endpoints sharing its port (-shards 2).
func TestSmokeShards(t *testing.T) {
	addr := startServer(t)
	for _, test := range []string{StreamMany, RRMany} {
		t.Run(test, func(t *testing.T) {
			p := Params{Test: test, Stack: "usctp", Duration: 200 * time.Millisecond, Assocs: 8}
			p.Config.Streams, p.Config.Shards = 8, 2
			p.Config.SndBuf = 64 << 10
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r, err := Run(ctx, addr, p, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Primary() <= 0 {
				t.Errorf("%s with 2 shards: %v %s", test, r.Primary(), r.PrimaryUnit())
			}
		})
	}
}
