// Command sctpcat is netcat for SCTP, over usctp.
//
//	sctpcat [flags] HOST:PORT      connect, send stdin, copy what arrives to stdout
//	sctpcat -l [flags] HOST:PORT   listen, the same with the first association
//
// Flags may also follow HOST:PORT. A side that sent something shuts the
// association down once its stdin ends (SCTP has no half-close); a side
// whose stdin was empty receives until the peer ends the association.
//
// HOST:PORT is the IP address and the SCTP port. A multi-homed endpoint
// takes a list of IP addresses and one port, "10.0.0.1,10.0.1.1:7000"
// (IPv6 addresses in brackets): with -l the addresses to listen on, else
// the peer's addresses, tried in turn for the INIT; -bind ADDRS chooses
// the local addresses of a client ("10.0.0.2,10.0.1.2"). Either list of
// two or more turns multi-homing on, and -v prints each path's state
// changes ("event: peer address change: 10.0.0.1:9899
// potentially-failed reachable=false") and, in connect mode, the paths
// at the end of the input.
//
// Stdin is cut into messages of -msg-size bytes. In listen mode -echo sends every message
// back on its stream with its PPID instead, serving every association at
// once until killed (an idle peer keeps no other waiting). The echo holds
// at most -echo-buffer bytes of a message per association: a longer
// message comes back as several messages of at most that size, in order,
// whose bytes are the message's; in connect mode -echo-wait waits after the
// end of input until as many bytes came back as were sent. Connect mode
// then shuts the association down gracefully and exits 0; an ABORT, a
// failure or a timeout exits 1 with the reason on stderr; bad usage
// exits 2. -pr-policy ttl|rtx|prio with -pr-value N sends the messages
// partially reliable (PR-SCTP, RFC 3758 and RFC 7496: a lifetime of N ms,
// at most N retransmissions, or priority N); with -v, messages given up
// show as send-failed events and in the final statistics. -auth-key
// [ID:]HEX authenticates chunks (AUTH, RFC 4895) with that endpoint-pair
// shared key (the peer must offer AUTH too: Linux needs
// net.sctp.auth_enable=1), -auth-chunks the chunk types the peer must
// authenticate (default DATA and SACK when a key is given), -auth-hmac the
// HMAC identifiers (1 SHA-1, 3 SHA-256) in order of preference.
// -dynamic-addrs accepts the peer's address changes (ASCONF, RFC 5061);
// in connect mode -add-addr IP and -del-addr IP ask the peer, after
// -addr-after messages, to add or delete one of our addresses, and a
// refusal ends the association with exit status 1.
package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	listen, unordered, interleave, verbose, echo, echoWait bool
	transport, schedName, pcap, prPolicy, bind             string
	prValue                                                uint
	udpPort, remoteUDPPort, os, is, sid, ppid, msgSize     int
	resetAfter, echoBuffer                                 int
	timeout                                                time.Duration
	addr                                                   string
	authKey, authChunks, authHMAC                          string
	addAddr, delAddr                                       string
	addrAfter                                              int
	dynamicAddrs                                           bool
	multihome                                              bool
}

func parse(args []string, stderr io.Writer) (*options, *sctp.Config, error) {
	var o options
	fs := flag.NewFlagSet("sctpcat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sctpcat [-l] [flags] HOST:PORT")
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.listen, "l", false, "listen on HOST:PORT instead of connecting")
	fs.StringVar(&o.bind, "bind", "", "connect mode: local IP `addresses` to bind, comma-separated (IPv6 in brackets); two or more make the association multi-homed")
	fs.StringVar(&o.transport, "transport", "udp", "transport: udp (RFC 6951 encapsulation) or ip (raw IP, needs CAP_NET_RAW)")
	fs.IntVar(&o.udpPort, "udp-port", 0, "local UDP encapsulation `port` (0: the default, 9899 with -l, one the system picks when dialing)")
	fs.IntVar(&o.remoteUDPPort, "remote-udp-port", 9899, "peer's UDP encapsulation port")
	fs.IntVar(&o.os, "os", 0, "outbound streams requested (0: 10 when connecting; when listening, as many as the peer opened)")
	fs.IntVar(&o.is, "is", 65535, "inbound streams accepted")
	fs.IntVar(&o.sid, "sid", 0, "stream id of sent messages")
	fs.IntVar(&o.ppid, "ppid", 0, "payload protocol identifier of sent messages")
	fs.BoolVar(&o.unordered, "unordered", false, "send messages unordered")
	fs.IntVar(&o.msgSize, "msg-size", 1024, "cut stdin into messages of this many bytes")
	fs.IntVar(&o.resetAfter, "reset-after", 0, "connect mode: reset the sending stream (RFC 6525) after every N messages; 0: never")
	fs.StringVar(&o.schedName, "sched", "fcfs", "stream scheduler: fcfs, prio, rr, fc, wfq, rrp")
	fs.BoolVar(&o.interleave, "interleave", false, "ask for I-DATA interleaving (RFC 8260)")
	fs.StringVar(&o.prPolicy, "pr-policy", "none", "partial reliability of sent messages (PR-SCTP): none, ttl, rtx or prio")
	fs.UintVar(&o.prValue, "pr-value", 0, "value of -pr-policy: lifetime in ms (ttl), most retransmissions (rtx), priority, 0 highest (prio)")
	fs.StringVar(&o.pcap, "pcap", "", "write every packet sent and received to this pcap file")
	fs.BoolVar(&o.verbose, "v", false, "print events and final statistics on stderr")
	fs.BoolVar(&o.echo, "echo", false, "listen mode: send every message back instead of printing it")
	fs.IntVar(&o.echoBuffer, "echo-buffer", 64<<10, "listen mode with -echo: most bytes of a message held per association; longer messages are echoed in parts of this size")
	fs.BoolVar(&o.echoWait, "echo-wait", false, "connect mode: after end of input, wait until as many bytes came back as were sent")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "connect, echo-wait and shutdown timeout")
	fs.StringVar(&o.authKey, "auth-key", "", "authenticate chunks (AUTH, RFC 4895) with this endpoint-pair shared key: `[ID:]HEX` (key id 0 by default)")
	fs.StringVar(&o.authChunks, "auth-chunks", "", "chunk types the peer must authenticate, comma-separated numbers (default with -auth-key: 0,3, DATA and SACK)")
	fs.BoolVar(&o.multihome, "multihome", false, "use the peer's other addresses as paths; an endpoint bound to no address (-l :PORT, or connect mode without -bind) also lists the host's addresses")
	fs.BoolVar(&o.dynamicAddrs, "dynamic-addrs", false, "accept the peer's address changes (ASCONF, RFC 5061; turns on AUTH and multi-homing)")
	fs.StringVar(&o.addAddr, "add-addr", "", "connect mode: after -addr-after messages, ask the peer to add this local `IP` (ASCONF; implies -dynamic-addrs)")
	fs.StringVar(&o.delAddr, "del-addr", "", "connect mode: after -addr-after messages (and the -add-addr), ask the peer to delete this local `IP`")
	fs.IntVar(&o.addrAfter, "addr-after", 1, "connect mode: messages sent before -add-addr and -del-addr")
	fs.StringVar(&o.authHMAC, "auth-hmac", "", "HMAC identifiers offered, comma-separated, in order of preference: 1 (SHA-1), 3 (SHA-256); default 3,1")
	// Flags may follow the address, as with netcat: parse again after
	// each argument that is not a flag.
	var addrs []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return nil, nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		addrs = append(addrs, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(addrs) != 1 {
		return nil, nil, fmt.Errorf("one HOST:PORT argument expected, got %d (%s); see sctpcat -h", len(addrs), strings.Join(addrs, " "))
	}
	o.addr = addrs[0]
	cfg := &sctp.Config{Extensions: sctp.Extensions{Interleaving: o.interleave}, Pcap: o.pcap}
	switch o.transport {
	case "udp":
	case "ip":
		cfg.Transport = sctp.IP
	default:
		return nil, nil, fmt.Errorf("-transport %q: udp or ip", o.transport)
	}
	switch {
	case o.udpPort < 0 || o.udpPort > 65535:
		return nil, nil, fmt.Errorf("-udp-port %d out of range", o.udpPort)
	case o.udpPort == 0: // sctp.Config's default for the role
	default:
		cfg.UDPPort = uint16(o.udpPort)
	}
	if o.remoteUDPPort < 1 || o.remoteUDPPort > 65535 {
		return nil, nil, fmt.Errorf("-remote-udp-port %d out of range", o.remoteUDPPort)
	}
	cfg.RemoteUDPPort = uint16(o.remoteUDPPort)
	if o.os < 0 || o.os > 65535 || o.is < 1 || o.is > 65535 {
		return nil, nil, errors.New("-os and -is must be in 1..65535")
	}
	cfg.OutStreams, cfg.InStreams = uint16(o.os), uint16(o.is)
	if o.sid < 0 || o.sid > 65535 {
		return nil, nil, fmt.Errorf("-sid %d out of range", o.sid)
	}
	if o.ppid < 0 || int64(o.ppid) > 1<<32-1 {
		return nil, nil, fmt.Errorf("-ppid %d out of range", o.ppid)
	}
	if o.resetAfter < 0 {
		return nil, nil, fmt.Errorf("-reset-after %d out of range", o.resetAfter)
	}
	if o.echoBuffer < 1 || o.echoBuffer > 1<<24 {
		return nil, nil, fmt.Errorf("-echo-buffer %d out of range", o.echoBuffer)
	}
	if o.msgSize < 1 || o.msgSize > 1<<24 {
		return nil, nil, fmt.Errorf("-msg-size %d out of range", o.msgSize)
	}
	if _, err := sctp.ParsePRPolicy(o.prPolicy); err != nil {
		return nil, nil, fmt.Errorf("-pr-policy: %w", err)
	}
	if o.prValue > 1<<32-1 {
		return nil, nil, fmt.Errorf("-pr-value %d out of range", o.prValue)
	}
	k, err := sctp.ParseScheduler(o.schedName)
	if err != nil {
		return nil, nil, fmt.Errorf("-sched: %w", err)
	}
	cfg.Scheduler = k
	if err := parseAuth(&o, cfg); err != nil {
		return nil, nil, err
	}
	for _, a := range []struct{ flag, v string }{{"-add-addr", o.addAddr}, {"-del-addr", o.delAddr}} {
		if a.v != "" {
			if _, err := netip.ParseAddr(a.v); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", a.flag, err)
			}
			o.dynamicAddrs = true
		}
	}
	if o.addrAfter < 1 {
		return nil, nil, fmt.Errorf("-addr-after %d out of range", o.addrAfter)
	}
	cfg.Extensions.DynamicAddrs = o.dynamicAddrs
	cfg.Paths.Multihoming = cfg.Paths.Multihoming || o.multihome
	if o.bind != "" {
		if o.listen {
			return nil, nil, errors.New("-bind is for connect mode: with -l, list the addresses in HOST:PORT")
		}
		for _, s := range strings.Split(o.bind, ",") {
			ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
			if err != nil {
				return nil, nil, fmt.Errorf("-bind: %w", err)
			}
			cfg.LocalAddrs = append(cfg.LocalAddrs, ip)
		}
	}
	return &o, cfg, nil
}

// parseAuth sets the AUTH fields of cfg from -auth-key, -auth-chunks and
// -auth-hmac.
func parseAuth(o *options, cfg *sctp.Config) error {
	if o.authKey != "" {
		id, hx := uint64(0), o.authKey
		if i, h, ok := strings.Cut(o.authKey, ":"); ok {
			n, err := strconv.ParseUint(i, 10, 16)
			if err != nil {
				return fmt.Errorf("-auth-key: key id %q: want 0..65535", i)
			}
			id, hx = n, h
		}
		key, err := hex.DecodeString(hx)
		if err != nil {
			return errors.New("-auth-key: the key is not hexadecimal")
		}
		cfg.Extensions.AuthKeys = []sctp.AuthKey{{ID: uint16(id), Key: key}}
		if o.authChunks == "" {
			cfg.Extensions.AuthChunks = []chunk.Type{chunk.TypeData, chunk.TypeSack}
		}
	}
	nums := func(flag, s string, max uint64) ([]uint64, error) {
		var out []uint64
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil || n > max {
				return nil, fmt.Errorf("%s: %q: want numbers up to %d", flag, f, max)
			}
			out = append(out, n)
		}
		return out, nil
	}
	if o.authChunks != "" {
		ts, err := nums("-auth-chunks", o.authChunks, 255)
		if err != nil {
			return err
		}
		for _, t := range ts {
			cfg.Extensions.AuthChunks = append(cfg.Extensions.AuthChunks, chunk.Type(t))
		}
	}
	if o.authHMAC != "" {
		ids, err := nums("-auth-hmac", o.authHMAC, 65535)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if id != uint64(sctp.AuthHMACSHA1) && id != uint64(sctp.AuthHMACSHA256) {
				return fmt.Errorf("-auth-hmac: %d: want 1 (SHA-1) or 3 (SHA-256)", id)
			}
			cfg.Extensions.AuthHMAC = append(cfg.Extensions.AuthHMAC, uint16(id))
		}
	}
	return nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, cfg, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "sctpcat:", err)
		}
		return 2
	}
	if o.listen {
		err = listen(ctx, o, cfg, stdin, stdout, stderr)
	} else {
		err = connect(ctx, o, cfg, stdin, stdout, stderr)
	}
	if err != nil {
		// The end of the association is said once: -v printed its
		// event, and an abort this program made when killed is no
		// news.
		var ae *sctp.AbortError
		if ctx.Err() == nil && !(o.verbose && errors.As(err, &ae)) {
			fmt.Fprintln(stderr, "sctpcat:", err)
		}
		return 1
	}
	return 0
}

// logEvents prints the association's events when -v is set.
func logEvents(o *options, as *sctp.Association, stderr io.Writer, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Send failures in a row (an abort with a full queue reports
		// every message) print as the first and a count of the rest.
		var more, moreBytes int
		flush := func() {
			if more > 0 {
				fmt.Fprintf(stderr, "event: send failed: %d more messages, %d bytes\n", more, moreBytes)
				more, moreBytes = 0, 0
			}
		}
		last := sctp.EventKind(255)
		for ev := range as.Events() {
			if !o.verbose {
				continue
			}
			if ev.Kind == sctp.EventSendFailed && last == sctp.EventSendFailed {
				more++
				moreBytes += len(ev.Msg)
				continue
			}
			flush()
			last = ev.Kind
			fmt.Fprintln(stderr, "event: "+ev.String())
		}
		flush()
	}()
}

func printStats(o *options, as *sctp.Association, stderr io.Writer) {
	if !o.verbose {
		return
	}
	s := as.Stats()
	fmt.Fprintf(stderr, "stats: packets in %d out %d, bytes in %d out %d, retransmits %d (fast %d, repeat fast %d, probes %d, T3 %d, spurious %d), srtt %v rto %v cwnd %d\n",
		s.PacketsIn, s.PacketsOut, s.BytesIn, s.BytesOut, s.Retransmits, s.FastRetransmit, s.RepeatFastRetransmits, s.Probes, s.T3Expiries, s.SpuriousRetransmits, s.SRTT, s.RTO, s.Cwnd)
	fmt.Fprintf(stderr, "stats: ECN %v: CE marks received %d, ECNE out %d in %d, window reductions %d, CWR out %d in %d\n",
		as.ECN(), s.ECNMarks, s.ECNEchoesOut, s.ECNEchoesIn, s.ECNReductions, s.CWRsOut, s.CWRsIn)
	fmt.Fprintf(stderr, "stats: PLPMTU %d, PMTU probes %d acked %d lost %d, PTB used %d ignored %d, black holes %d\n",
		s.PLPMTU, s.PMTUProbes, s.PMTUProbeAcks, s.PMTUProbesLost, s.PTBUsed, s.PTBIgnored, s.PMTUBlackHoles)
	for _, p := range as.Paths() { // none once the association ended
		fmt.Fprintf(stderr, "path %v: PLPMTU %d (%v)\n", p.Addr, p.MTU, p.PMTU)
	}
	if ab := s.PRAbandoned; ab[1]+ab[2]+ab[3] > 0 || s.ForwardTSNsIn > 0 {
		fmt.Fprintf(stderr, "stats: abandoned ttl %d rtx %d prio %d (%d never sent), FORWARD-TSN out %d in %d, partial deliveries aborted %d\n",
			ab[sctp.PRTTL], ab[sctp.PRRtx], ab[sctp.PRPrio], s.PRAbandonedUnsent, s.ForwardTSNsOut, s.ForwardTSNsIn, s.PartialDeliveriesAborted)
	}
	if id, ok := as.Authenticated(); ok {
		a := s.Auth
		fmt.Fprintf(stderr, "stats: auth hmac %d, AUTH sent %d verified %d, dropped: bad HMAC %d, unknown key %d, unsupported HMAC %d, unauthenticated chunks %d\n",
			id, a.Sent, a.Verified, a.BadHMAC, a.UnknownKey, a.UnsupportedHMAC, a.Missing)
	}
}

// printPaths prints the paths of a multi-homed association when -v is set.
func printPaths(o *options, as *sctp.Association, stderr io.Writer) {
	if !o.verbose {
		return
	}
	if p := as.Paths(); len(p) > 1 {
		for _, x := range p {
			fmt.Fprintf(stderr, "path: %v %v primary=%v in-use=%v srtt %v rto %v cwnd %d errors %d\n",
				x.Addr, x.State, x.Primary, x.InUse, x.SRTT, x.RTO, x.Cwnd, x.Errors)
		}
	}
}

// listen serves one association, or with -echo every association at
// once until ctx is done.
func listen(ctx context.Context, o *options, cfg *sctp.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	l, err := sctp.Listen(o.addr, cfg)
	if err != nil {
		return err
	}
	defer l.Close()
	if o.verbose {
		fmt.Fprintf(stderr, "listening on %s (%s transport, local %v)\n", o.addr, cfg.Transport, l.Addr())
	}
	if !o.echo {
		as, err := l.AcceptContext(ctx)
		if err != nil {
			return err
		}
		if o.verbose {
			fmt.Fprintf(stderr, "association from %v\n", as.RemoteAddrs()[0])
		}
		return serve(ctx, o, as, stdin, stdout, stderr)
	}
	stderr = &lockedWriter{w: stderr} // the associations' goroutines share it
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		as, err := l.AcceptContext(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil // killed: the normal end of an echo server
			}
			return err
		}
		// The lines of each association start with its peer's address.
		aerr := &prefixWriter{w: stderr, prefix: fmt.Sprintf("[%v] ", as.RemoteAddrs()[0])}
		if o.verbose {
			fmt.Fprintln(aerr, "association up")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ae *sctp.AbortError
			if err := serve(ctx, o, as, nil, stdout, aerr); err != nil && !(o.verbose && errors.As(err, &ae)) {
				fmt.Fprintln(aerr, "sctpcat:", err)
			}
		}()
	}
}

// prefixWriter writes to w with prefix at the start of every line. A
// write should hold whole lines, as fmt.Fprintln's do.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for rest := b; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		out = append(append(out, p.prefix...), line...)
		rest = rest[len(line):]
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// serve copies or echoes one association's messages until it ends. It
// sends stdin (when not nil) to the association as connect mode does,
// and once stdin ended, if it sent anything, shuts the association down;
// it goes on copying what arrives until the association ends.
func serve(ctx context.Context, o *options, as *sctp.Association, stdin io.Reader, stdout, stderr io.Writer) error {
	var wg sync.WaitGroup
	logEvents(o, as, stderr, &wg)
	stop := context.AfterFunc(ctx, func() { as.Abort("sctpcat killed") })
	defer stop()
	if stdin != nil && !o.echo {
		go func() {
			// A write refused because the association ends (the peer
			// shut it down, or was killed) ends the input; the reads
			// below report how the association ended.
			if sent, err := sendInput(o, as, stdin, nil); err == nil && sent > 0 {
				sctx, cancel := context.WithTimeout(ctx, o.timeout)
				as.Shutdown(sctx)
				cancel()
			}
		}()
	}
	var err error
	if o.echo {
		err = echo(as, o.echoBuffer)
	} else {
		buf := make([]byte, 64<<10)
		for {
			var n int
			if n, _, err = as.ReadMsg(buf); err != nil {
				break
			}
			if _, err = stdout.Write(buf[:n]); err != nil {
				as.Abort("stdout: " + err.Error())
				break
			}
		}
	}
	if err == io.EOF {
		err = nil
	}
	as.Close()
	wg.Wait()
	printStats(o, as, stderr)
	return err
}

// echo sends every message of as back on its stream with its PPID and
// order, holding at most size bytes of it: a message that fills the
// buffer before its end goes back in parts of size bytes, each its own
// message, the last one with the rest. A peer announcing a message of any
// size costs the echo no more than size bytes. With I-DATA the parts of
// messages on several streams may alternate between reads: a part of
// another message sends what is held of the first one back first.
func echo(as *sctp.Association, size int) error {
	buf := make([]byte, size)
	n := 0
	var cur sctp.RecvInfo // the message whose first n bytes buf holds
	send := func(p []byte, info sctp.RecvInfo) error {
		_, err := as.WriteMsg(p, sctp.SendInfo{Stream: info.Stream, PPID: info.PPID, Unordered: info.Unordered})
		return err
	}
	for {
		m, info, err := as.ReadMsg(buf[n:])
		if err != nil {
			return err
		}
		if n > 0 && (info.Stream != cur.Stream || info.TSN != cur.TSN || info.Unordered != cur.Unordered) {
			if err := send(buf[:n], cur); err != nil {
				return err
			}
			copy(buf, buf[n:n+m])
			n = 0
		}
		n += m
		cur = info
		if info.Aborted {
			n = 0 // the peer gave the message up (PR-SCTP): drop its parts held
			continue
		}
		if !info.EOR && n < len(buf) {
			continue
		}
		if err := send(buf[:n], info); err != nil {
			return err
		}
		n = 0
	}
}

// connect sends stdin and copies what arrives to stdout.
func connect(ctx context.Context, o *options, cfg *sctp.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	dctx, cancel := context.WithTimeout(ctx, o.timeout)
	as, err := sctp.Dial(dctx, o.addr, cfg)
	cancel()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { as.Abort("sctpcat killed") })
	defer stop()
	var wg sync.WaitGroup
	logEvents(o, as, stderr, &wg)
	var mu sync.Mutex
	var received int64
	got := make(chan struct{}, 1)
	readErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, _, err := as.ReadMsg(buf)
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				readErr <- err
				return
			}
			if _, err := stdout.Write(buf[:n]); err != nil {
				as.Abort("stdout: " + err.Error())
				readErr <- err
				return
			}
			mu.Lock()
			received += int64(n)
			mu.Unlock()
			select {
			case got <- struct{}{}:
			default:
			}
		}
	}()
	sent, werr := sendInput(o, as, stdin, func(msgs int, sid uint16) error {
		if msgs == o.addrAfter {
			if err := changeAddrs(ctx, o, as, stderr); err != nil {
				as.Abort("address change failed")
				return err
			}
		}
		if o.resetAfter > 0 && msgs%o.resetAfter == 0 {
			if err := as.ResetStreams(ctx, sctp.DirOutgoing, sid); err != nil {
				return fmt.Errorf("reset stream %d: %w", sid, err)
			}
		}
		return nil
	})
	if werr == nil && o.echoWait {
		timer := time.NewTimer(o.timeout)
		defer timer.Stop()
	wait:
		for {
			mu.Lock()
			r := received
			mu.Unlock()
			if r >= sent {
				break
			}
			select {
			case <-got:
			case err := <-readErr:
				readErr <- err
				break wait
			case <-timer.C:
				werr = fmt.Errorf("echo-wait: %d of %d bytes came back in %v", r, sent, o.timeout)
				as.Abort("echo-wait timeout")
				break wait
			}
		}
	}
	printPaths(o, as, stderr) // while the association lives
	if werr == nil && sent == 0 && !o.echoWait {
		// Nothing to send: receive until the peer ends the association
		// (netcat's "sctpcat HOST:PORT < /dev/null" fetching what a
		// listener sends).
		rerr := <-readErr
		as.Close()
		wg.Wait()
		printStats(o, as, stderr)
		return rerr
	}
	if werr == nil {
		sctx, cancel := context.WithTimeout(ctx, o.timeout)
		werr = as.Shutdown(sctx)
		cancel()
		if werr != nil {
			as.Abort("shutdown failed")
		}
	}
	rerr := <-readErr
	as.Close()
	wg.Wait()
	printStats(o, as, stderr)
	if werr != nil {
		return werr
	}
	return rerr
}

// sendInput cuts stdin into messages of -msg-size bytes and sends them on
// as with the -sid, -ppid, -unordered and -pr-* settings until stdin ends,
// and returns the bytes sent. After message number msgs (from 1) it calls
// after, when not nil; an error from it ends the input. A nil stdin sends
// nothing.
func sendInput(o *options, as *sctp.Association, stdin io.Reader, after func(msgs int, sid uint16) error) (int64, error) {
	buf := make([]byte, o.msgSize)
	var sent int64
	pol, _ := sctp.ParsePRPolicy(o.prPolicy)
	info := sctp.SendInfo{Stream: uint16(o.sid), PPID: uint32(o.ppid), Unordered: o.unordered,
		PR: sctp.PR{Policy: pol, Value: uint32(o.prValue)}}
	var werr error
	if stdin == nil {
		return 0, nil
	}
	for msgs := 1; ; msgs++ {
		n, err := io.ReadFull(stdin, buf)
		if n > 0 {
			if _, werr = as.WriteMsg(buf[:n], info); werr != nil {
				break
			}
			sent += int64(n)
			if after != nil {
				if werr = after(msgs, info.Stream); werr != nil {
					break
				}
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			werr = fmt.Errorf("stdin: %w", err)
			as.Abort("stdin failed")
			break
		}
	}
	return sent, werr
}

// changeAddrs sends -add-addr and -del-addr's requests (ASCONF) and waits
// for the peer's answers.
func changeAddrs(ctx context.Context, o *options, as *sctp.Association, stderr io.Writer) error {
	for _, r := range []struct {
		name string
		v    string
		f    func(context.Context, netip.Addr) error
	}{{"add", o.addAddr, as.AddLocalAddr}, {"delete", o.delAddr, as.RemoveLocalAddr}} {
		if r.v == "" {
			continue
		}
		ip := netip.MustParseAddr(r.v)
		cctx, cancel := context.WithTimeout(ctx, o.timeout)
		err := r.f(cctx, ip)
		cancel()
		if err != nil {
			return fmt.Errorf("%s address %v: %w", r.name, ip, err)
		}
		if o.verbose {
			fmt.Fprintf(stderr, "asconf: %s %v: done\n", r.name, ip)
		}
	}
	return nil
}
