package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"syscall"

	"github.com/usctp/usctp/perf"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sctpperf:", err)
		os.Exit(1)
	}
}

// run is sctpperf with its inputs and outputs as arguments.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.netns != 0 && !o.server && os.Getenv(netnsEnv) == "" {
		if o.host != "" {
			return fmt.Errorf("-netns runs its own server: it takes no -H")
		}
		return runInNetns(ctx, o.netns, args, stdin, stdout, stderr)
	}
	if o.cpuprof != "" {
		f, err := os.Create(o.cpuprof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	switch {
	case o.server:
		return serve(ctx, o, stdin, stdout)
	case o.memory:
		return memory(ctx, o, stdout)
	}
	addr := net.JoinHostPort(o.host, strconv.Itoa(o.port))
	if o.host == "" {
		a, stop, err := spawnServer(ctx, o.cpuprof, os.Getenv(netnsEnv))
		if err != nil {
			return err
		}
		defer stop()
		addr = a
	}
	if len(o.compare) > 0 {
		return compare(ctx, o, addr, stdout, stderr)
	}
	return single(ctx, o, addr, stdout)
}

func serve(ctx context.Context, o *options, stdin io.Reader, stdout io.Writer) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(o.listen, strconv.Itoa(o.port)))
	if err != nil {
		return err
	}
	if o.spawned {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() { io.Copy(io.Discard, stdin); cancel() }() // the parent is gone
		fmt.Fprintf(stdout, "%s%s\n", readyPrefix, ln.Addr())
	} else {
		fmt.Fprintf(stdout, "sctpperf server listening on %s (stacks: %v)\n", ln.Addr(), perf.Stacks())
	}
	return perf.Serve(ctx, ln)
}

func single(ctx context.Context, o *options, addr string, stdout io.Writer) error {
	p := o.params
	host := o.host
	if host == "" {
		host = "127.0.0.1 (loopback, server in a child process)"
	}
	var ro perf.RunOptions
	if !o.json {
		perf.WriteBanner(stdout, &p, host)
		if p.Interim > 0 {
			ro.OnInterim = func(in perf.Interim) { perf.WriteInterim(stdout, &p, in) }
		}
	}
	r, err := perf.Run(ctx, addr, p, ro)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(stdout, r)
	}
	fmt.Fprintln(stdout)
	perf.WriteTable(stdout, r)
	return nil
}

func compare(ctx context.Context, o *options, addr string, stdout, stderr io.Writer) error {
	progress := func(round int, r *perf.Result) {
		fmt.Fprintf(stderr, "round %d %-10s %12.2f %s\n", round+1, r.Params.Stack, r.Primary(), r.PrimaryUnit())
	}
	p := o.params
	p.Interim = 0
	c, err := perf.Compare(ctx, addr, p, o.compare, o.rounds, progress)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(stdout, c)
	}
	perf.WriteComparison(stdout, c)
	return nil
}

func memory(ctx context.Context, o *options, stdout io.Writer) error {
	stacks := o.compare
	if len(stacks) == 0 {
		stacks = []string{o.params.Stack}
	}
	streams := o.params.Config.Streams
	var rs []*perf.MemoryResult
	for _, s := range stacks {
		mp := perf.MemoryParams{Stack: s, Assocs: o.memAssoc, Streams: streams, MsgSize: o.params.MsgSize, PerAssoc: o.memMsgs}
		if o.memprof != "" {
			name := o.memprof
			if len(stacks) > 1 {
				name += "." + s
			}
			f, err := os.Create(name)
			if err != nil {
				return err
			}
			defer f.Close()
			mp.IdleProfile = f
			ft, err := os.Create(name + ".traffic")
			if err != nil {
				return err
			}
			defer ft.Close()
			mp.TrafficProfile = ft
		}
		r, err := perf.Memory(ctx, mp)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		rs = append(rs, r)
	}
	if o.json {
		return writeJSON(stdout, rs)
	}
	perf.WriteMemory(stdout, rs)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
