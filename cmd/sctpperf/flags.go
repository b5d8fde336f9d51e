package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/usctp/usctp/perf"
)

// options are sctpperf's parsed command line.
type options struct {
	params   perf.Params
	host     string // -H: the server; empty runs one on loopback
	port     int    // -p: control port
	listen   string // -L: server listen host
	server   bool
	spawned  bool // hidden: started by a client to serve on loopback
	netns    int  // -netns: the veth MTU of a run in two namespaces (0: loopback)
	compare  []string
	rounds   int
	json     bool
	verbose  bool
	memory   bool
	interim  time.Duration
	cpuprof  string
	memprof  string
	memAssoc int
	memMsgs  int
}

// parseFlags parses args (without the program name).
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	p := &o.params
	fs := flag.NewFlagSet("sctpperf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		secs                         float64
		rr, weights, prios, cmp, stk string
	)
	fs.StringVar(&p.Test, "t", perf.Stream, "test: "+strings.Join(perf.Tests, ", "))
	fs.StringVar(&o.host, "H", "", "server host (none: run a server on loopback in a child process); a list of IP addresses a,b runs over a multi-homed association (usctp): the control connection goes to the first, the server listens on all")
	fs.IntVar(&o.port, "p", perf.DefaultPort, "control port")
	fs.StringVar(&o.listen, "L", "", "-server: host to listen on (default all)")
	fs.Float64Var(&secs, "l", 10, "test length in seconds")
	fs.IntVar(&p.MsgSize, "m", 1452, "STREAM: message size in bytes")
	fs.StringVar(&rr, "r", "1,1", "RR: request and response sizes, req,resp")
	fs.IntVar(&p.Config.SndBuf, "s", 0, "send buffer in bytes (0: the stack's default)")
	fs.IntVar(&p.Config.RcvBuf, "S", 0, "receive buffer (advertised window) in bytes (0: the stack's default)")
	fs.StringVar(&stk, "stack", "usctp", "stack: "+strings.Join(perf.Stacks(), ", "))
	fs.StringVar(&p.Config.Transport, "transport", "udp", "udp (RFC 6951 encapsulation) or ip (protocol 132)")
	fs.IntVar(&p.Config.Streams, "streams", 0, "streams used and negotiated (default 1, 65535 for the _MANY tests)")
	fs.IntVar(&p.Assocs, "assocs", 1, "associations")
	fs.StringVar(&p.Config.Sched, "sched", "", "stream scheduler: fcfs, prio, rr, fc, wfq, rrp (default: the stack's)")
	fs.BoolVar(&p.Config.Interleave, "interleave", false, "negotiate I-DATA (RFC 8260)")
	fs.IntVar(&p.Config.Shards, "shards", 0, "usctp server: endpoints sharing the port through SO_REUSEPORT (0, 1: one)")
	fs.IntVar(&p.Config.MTU, "mtu", 0, "usctp: path MTU, IP header included: the upper bound of path MTU discovery (0: the interface's MTU, 65535 on loopback)")
	fs.BoolVar(&p.Config.NoPMTUD, "no-pmtud", false, "usctp: no path MTU discovery: every packet sized for -mtu")
	fs.IntVar(&p.Endpoints, "endpoints", 0, "client: local endpoints the associations are dialed from, in turn (usctp; 0: one per association)")
	fs.IntVar(&p.Config.SendBudget, "budget", 0, "usctp: bytes the associations of an endpoint hold together in their send buffers (0: the default; negative: none)")
	fs.IntVar(&p.Config.RecvBudget, "rbudget", 0, "usctp: bytes the associations of an endpoint receiving at once advertise together as receive windows (0 or negative: none, the default)")
	fs.DurationVar(&p.Config.BusyPoll, "busypoll", 0, "usctp: busy-poll budget of socket reads (0: the default, 50µs adaptive; negative: off)")
	fs.StringVar(&weights, "weights", "", "per-stream weights w0,w1,... (wfq, fc)")
	fs.StringVar(&prios, "prios", "", "per-stream priorities p0,p1,... (prio, lower first)")
	fs.BoolVar(&o.server, "server", false, "be the server (netserver)")
	fs.BoolVar(&o.spawned, "spawned", false, "internal: serve for the parent process on loopback")
	fs.IntVar(&o.netns, "netns", 0, "run client and server in two network namespaces joined by a veth pair of this `MTU`, GSO and GRO on (root; 0: loopback)")
	fs.StringVar(&cmp, "compare", "", "stacks to compare, e.g. usctp,pion: alternating runs, medians and ratios")
	fs.IntVar(&o.rounds, "rounds", 5, "-compare: rounds")
	fs.BoolVar(&o.json, "json", false, "print results as JSON")
	fs.BoolVar(&o.verbose, "v", false, "verbose: bytes delivered per stream")
	fs.BoolVar(&o.memory, "memory", false, "memory mode: heap per association and allocations per message (in-process stacks)")
	var interim interimFlag
	fs.Var(&interim, "D", "interim result interval, a `duration` (default 1s for runs of 5 s or more, 0 for none)")
	fs.StringVar(&o.cpuprof, "cpuprofile", "", "write a CPU profile of this process (and the spawned server's to FILE.server)")
	fs.IntVar(&o.memMsgs, "msgs", 0, "-memory: messages each association carries in the traffic phase (0: 100)")
	fs.StringVar(&o.memprof, "memprofile", "", "-memory: write heap profiles taken with every association idle (FILE) and after traffic (FILE.traffic)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	p.Stack = stk
	if hosts := strings.Split(o.host, ","); len(hosts) > 1 {
		for i, h := range hosts {
			hosts[i] = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(h), "["), "]")
		}
		o.host, p.Config.Hosts = hosts[0], hosts
	}
	if secs <= 0 {
		return nil, errors.New("-l: the test length must be positive")
	}
	p.Duration = time.Duration(secs * float64(time.Second))
	var err error
	if p.ReqSize, p.RespSize, err = parseRR(rr); err != nil {
		return nil, err
	}
	if p.Config.Weights, err = parseList(weights); err != nil {
		return nil, fmt.Errorf("-weights: %w", err)
	}
	if p.Config.Prios, err = parseList(prios); err != nil {
		return nil, fmt.Errorf("-prios: %w", err)
	}
	if len(p.Config.Weights) > 0 && len(p.Config.Prios) > 0 {
		return nil, errors.New("-weights and -prios exclude each other")
	}
	if cmp != "" {
		o.compare = strings.Split(cmp, ",")
		for _, s := range o.compare {
			if _, err := perf.Lookup(s); err != nil {
				return nil, err
			}
		}
	}
	if _, err := perf.Lookup(p.Stack); err != nil {
		return nil, err
	}
	if o.rounds < 1 {
		return nil, errors.New("-rounds must be at least 1")
	}
	o.interim = interim.d
	if !interim.set {
		o.interim = 0
		if p.Duration >= 5*time.Second {
			o.interim = time.Second
		}
	}
	p.Interim = o.interim
	p.PerStream = o.verbose
	o.memAssoc = p.Assocs
	if !o.server {
		if err := p.Normalize(); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// parseRR parses netperf's -r: "req,resp", or one size for both.
func parseRR(s string) (req, resp int, err error) {
	a, b, two := strings.Cut(s, ",")
	if req, err = strconv.Atoi(strings.TrimSpace(a)); err != nil || req <= 0 {
		return 0, 0, fmt.Errorf("-r %q: sizes must be positive integers", s)
	}
	resp = req
	if two {
		if resp, err = strconv.Atoi(strings.TrimSpace(b)); err != nil || resp <= 0 {
			return 0, 0, fmt.Errorf("-r %q: sizes must be positive integers", s)
		}
	}
	return req, resp, nil
}

// parseList parses comma-separated 16-bit values.
func parseList(s string) ([]uint16, error) {
	if s == "" {
		return nil, nil
	}
	var out []uint16
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
		if err != nil {
			return nil, fmt.Errorf("%q: want values 0..65535", f)
		}
		out = append(out, uint16(v))
	}
	return out, nil
}

// interimFlag is -D: a duration whose default depends on the test length,
// so the flag package must print no default of its own for it (a
// DurationVar with a sentinel printed "(default -1ns)" after the usage's
// own description of the default).
type interimFlag struct {
	d   time.Duration
	set bool
}

// String returns the duration given, or "" when -D was not given.
func (f *interimFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.d.String()
}

// Set parses a duration of at least zero.
func (f *interimFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	f.d, f.set = d, true
	return nil
}
