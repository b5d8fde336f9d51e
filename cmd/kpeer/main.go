//go:build linux

// Command kpeer is the Linux kernel SCTP peer that runs inside the interop test guest
// (sctp/internal/kernelvm). It is a static Go program (CGO_ENABLED=0) built on
// github.com/ishidawataru/sctp, with the socket options that library lacks set through
// raw setsockopt.
//
// kpeer reads commands, one per line, from a control channel (the guest's second serial
// port, or standard input) and from an optional file of commands run at start, and it
// answers with machine-readable lines. Every line is a verb followed by key=value words.
//
// Commands:
//
//	listen id=L port=P [addr=A[,A...]] [mode=echo|sink|source] [options] -> READY id=L port=P
//	dial id=C addr=A[,A...] port=P [bind=A[,A...]] [encap=U] [mode=source|echo|sink] [options] -> CONNECTED id=C conn=N ...
//	send id=C [conn=N] sid=S ppid=P len=N [unordered=1]             -> SENT id=C conn=N ...
//	close id=C [conn=N]   (graceful SHUTDOWN)                         -> CLOSED id=C conn=N
//	abort id=C [conn=N]   (ABORT)                                     -> ABORTED id=C conn=N
//	prio id=C [conn=N] sid=S value=V  (SCTP_STREAM_SCHEDULER_VALUE)   -> OK cmd=prio id=C
//	reset id=C [conn=N] sids=S,S... [dir=in|out|both] (SCTP_RESET_STREAMS) -> OK cmd=reset id=C ...
//	resetassoc id=C [conn=N]  (SCTP_RESET_ASSOC, SSN/TSN reset)       -> OK cmd=resetassoc id=C ...
//	addstreams id=C [conn=N] in=N out=N (SCTP_ADD_STREAMS)           -> OK cmd=addstreams id=C ...
//	authkey id=C [conn=N] keyid=K [key=HEX] [active=1] (SCTP_AUTH_KEY, SCTP_AUTH_ACTIVE_KEY) -> OK cmd=authkey id=C ...
//	authdel id=C [conn=N] keyid=K (SCTP_AUTH_DELETE_KEY)               -> OK cmd=authdel id=C ...
//	bindx id=C [conn=N] addr=A op=add|del (sctp_bindx: the kernel sends ASCONF) -> OK cmd=bindx id=C ...
//	status id=C [conn=N]  (SCTP_STATUS)  -> STATUS id=C conn=N unack=U pending=P cwnd=W srtt=MS mtu=M
//	primary id=C [conn=N] addr=A  (SCTP_PRIMARY_ADDR)                 -> OK cmd=primary id=C
//	paddrparams id=C [conn=N] [addr=A] [hbinterval=MS] [pathmaxrxt=N] [pfthld=N] [demand=1]
//	                      (SCTP_PEER_ADDR_PARAMS, SCTP_PEER_ADDR_THLDS; hbinterval=0: off; no addr: all;
//	                      demand=1: a HEARTBEAT to addr now, SPP_HB_DEMAND)
//	                                                                  -> OK cmd=paddrparams id=C
//	paths id=C [conn=N]   (SCTP_GET_PEER_ADDR_INFO per peer address)  -> PATH id=C conn=N addr=A state=S cwnd=N srtt=MS rto=MS ..., OK cmd=paths id=C
//	sysctl net.sctp.NAME=VALUE                                        -> OK cmd=sysctl
//	echo WORDS...                                                     -> ECHO WORDS...
//	run id=R PROG [ARGS...]  (a program, e.g. /sctpperf; blank-separated words) -> STARTED id=R pid=N
//
// Options of listen and dial:
//
//	ostreams=N istreams=N  requested stream counts (SCTP_INITMSG; default 65535 each)
//	sched=fcfs|prio|rr|fc|wfq or 0-4  stream scheduler (SCTP_STREAM_SCHEDULER)
//	intl=1                 I-DATA (SCTP_FRAGMENT_INTERLEAVE=2, SCTP_INTERLEAVING_SUPPORTED)
//	reset=1                stream reconfiguration requests allowed (SCTP_ENABLE_STREAM_RESET)
//	authchunks=T,T... hmac=ID,ID... authkey=ID:HEX  AUTH (RFC 4895; needs
//	                       net.sctp.auth_enable=1): chunk types the peer must authenticate
//	                       (SCTP_AUTH_CHUNK), HMAC identifiers offered (SCTP_HMAC_IDENT), an
//	                       endpoint shared key made active (SCTP_AUTH_KEY, ACTIVE_KEY)
//	buf=N                  SO_SNDBUF and SO_RCVBUF
//	log=0                  no MSG line per message (bulk transfers); DONE still reports
//	count=N size=N[,N...] streams=K ppid=P unordered=0|1|alt  what a source sends: message i
//	                       goes on stream i%K with PPID P+i%K, sizes cycle, payload byte j
//	                       of message i is byte(i*7+j)
//	expect=N               a source waits for N messages back before its "then" action
//	then=wait|close|abort  what a source does after sending (default wait)
//	pr=ttl:MS|rtx:N|prio:P|none[,...] partial reliability of what a source, echo or send
//	                       sends (PR-SCTP: sinfo_flags SCTP_PR_SCTP_TTL/RTX/PRIO,
//	                       sinfo_timetolive); a source's message i takes entry i modulo
//	                       their count, echoes and send the first
//	paddr=1                report peer address changes (SCTP_PEER_ADDR_CHANGE)
//	addr=A,B (listen), addr=A,B and bind=A,B (dial): several addresses (sctp_bindx,
//	                       sctp_connectx): multi-homing
//
// Output lines (besides the answers above):
//
//	ACCEPT id=L conn=N peer=ADDR ostreams=O istreams=I
//	MSG id=X conn=N sid=S ppid=P len=N unordered=0|1 crc=CRC32(IEEE, hex) ssn=SSN
//	EVENT id=X conn=N type=assoc_change state=comm_up|comm_lost|restart|shutdown_comp|cant_start error=E ...
//	EVENT id=X conn=N type=shutdown|remote_error|send_failed|partial_delivery
//	EVENT id=X conn=N type=peer_addr_change addr=A state=available|unreachable|made_prim|confirmed|potentially_failed|... error=E
//	EVENT id=X conn=N type=stream_reset flags=F
//	EVENT id=X conn=N type=assoc_reset flags=F local_tsn=T remote_tsn=T
//	EVENT id=X conn=N type=stream_change flags=F istreams=I ostreams=O
//	SENT id=X conn=N msgs=M bytes=B   (a source finished sending, or a send command)
//	DONE id=X conn=N msgs=M bytes=B crc=CRC32 of all bytes in arrival order end=eof|abort|error
//	ERR id=X cmd=VERB err="..."
//	OUT id=R fd=1|2 line="..."  (a line the program of run printed, Go-quoted)
//	EXIT id=R code=N            (that program ended)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

func main() {
	ctl := flag.String("ctl", "", "control device or file (commands in, lines out); empty: standard input and output")
	conf := flag.String("conf", "", "file of commands to run at start")
	flag.Parse()

	var in io.Reader = os.Stdin
	var out io.Writer = os.Stdout
	if *ctl != "" {
		f, err := os.OpenFile(*ctl, os.O_RDWR, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kpeer:", err)
			os.Exit(1)
		}
		makeRaw(f)
		in, out = f, f
	}
	p := newPeer(out)
	p.printf("HELLO kpeer pid=%d", os.Getpid())
	if *conf != "" {
		b, err := os.ReadFile(*conf)
		if err != nil && !os.IsNotExist(err) {
			p.printf("ERR id=- cmd=conf err=%q", err.Error())
		}
		for _, line := range strings.Split(string(b), "\n") {
			p.command(line)
		}
	}
	p.printf("BOOTED")
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "quit" {
			break
		}
		p.command(sc.Text())
	}
	p.printf("BYE")
}

// peer holds kpeer's listeners and connections and serializes its output lines.
type peer struct {
	mu    sync.Mutex
	out   *bufio.Writer
	conns map[string][]*conn // by command id, in accept/dial order
}

func newPeer(w io.Writer) *peer {
	return &peer{out: bufio.NewWriter(w), conns: map[string][]*conn{}}
}

// printf writes one output line; lines never interleave.
func (p *peer) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, format, args...)
	p.out.WriteString("\r\n")
	p.out.Flush()
}

// command runs one command line.
func (p *peer) command(line string) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return
	}
	verb, rest, _ := strings.Cut(line, " ")
	if verb == "run" {
		if id, err := p.run(rest); err != nil {
			p.printf("ERR id=%s cmd=run err=%q", id, err.Error())
		}
		return
	}
	args := parseArgs(rest)
	id := args.str("id", "-")
	var err error
	switch verb {
	case "listen":
		err = p.listen(id, args)
	case "dial":
		go func() {
			if err := p.dial(id, args); err != nil {
				p.printf("ERR id=%s cmd=dial err=%q", id, err.Error())
			}
		}()
	case "send":
		err = p.send(id, args)
	case "close", "abort":
		err = p.closeConn(id, verb, args)
	case "prio":
		err = p.prio(id, args)
	case "reset":
		err = p.resetStreams(id, args)
	case "resetassoc":
		err = p.resetAssoc(id, args)
	case "authkey":
		err = p.authKey(id, args)
	case "authdel":
		err = p.authDel(id, args)
	case "bindx":
		err = p.bindx(id, args)
	case "addstreams":
		err = p.addStreams(id, args)
	case "status":
		err = p.status(id, args)
	case "primary":
		err = p.primary(id, args)
	case "paddrparams":
		err = p.paddrParams(id, args)
	case "paths":
		err = p.paths(id, args)
	case "sysctl":
		err = sysctl(rest)
		if err == nil {
			p.printf("OK cmd=sysctl")
		}
	case "echo":
		p.printf("ECHO %s", rest)
	default:
		err = fmt.Errorf("unknown command %q", verb)
	}
	if err == nil {
		err = args.err
	}
	if err != nil {
		p.printf("ERR id=%s cmd=%s err=%q", id, verb, err.Error())
	}
}

func sysctl(kv string) error {
	k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
	if !ok || !strings.HasPrefix(k, "net.") || strings.Contains(k, "..") {
		return fmt.Errorf("sysctl: want net.NAME=VALUE, got %q", kv)
	}
	return os.WriteFile("/proc/sys/"+strings.ReplaceAll(k, ".", "/"), []byte(v), 0)
}
