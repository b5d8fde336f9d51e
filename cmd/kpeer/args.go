//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// args are a command's key=value words; the first parse error is kept in err.
type args struct {
	m   map[string]string
	err error
}

func parseArgs(s string) *args {
	a := &args{m: map[string]string{}}
	for _, w := range strings.Fields(s) {
		k, v, _ := strings.Cut(w, "=")
		a.m[k] = v
	}
	return a
}

func (a *args) str(k, def string) string {
	if v, ok := a.m[k]; ok {
		return v
	}
	return def
}

// int returns the integer value of k within [lo, hi], or def when k is absent.
func (a *args) int(k string, def, lo, hi int) int {
	v, ok := a.m[k]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		if a.err == nil {
			a.err = fmt.Errorf("%s=%q: want an integer in [%d, %d]", k, v, lo, hi)
		}
		return def
	}
	return n
}

// ints returns a comma-separated list of integers within [lo, hi].
func (a *args) ints(k string, def []int, lo, hi int) []int {
	v, ok := a.m[k]
	if !ok {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < lo || n > hi {
			if a.err == nil {
				a.err = fmt.Errorf("%s=%q: want integers in [%d, %d]", k, v, lo, hi)
			}
			return def
		}
		out = append(out, n)
	}
	return out
}

// schedulers are the Linux stream scheduler numbers (enum sctp_sched_type).
var schedulers = map[string]int{"fcfs": 0, "prio": 1, "rr": 2, "fc": 3, "wfq": 4}

func (a *args) sched() (int, bool) {
	v, ok := a.m["sched"]
	if !ok {
		return 0, false
	}
	if n, ok := schedulers[v]; ok {
		return n, true
	}
	return a.int("sched", 0, 0, 15), true
}

// prPolicies are the Linux PR-SCTP policies as sinfo_flags bits (SCTP_PR_SCTP_TTL, RTX,
// PRIO; RFC 7496 section 4); none is a fully reliable message.
var prPolicies = map[string]uint16{"none": 0, "ttl": 0x10, "rtx": 0x20, "prio": 0x30}

// prInfo is the partial reliability of a message: an SCTP_PR_SCTP_* policy and its
// value (sinfo_timetolive: milliseconds, retransmissions or priority).
type prInfo struct {
	policy uint16
	value  uint32
}

// prinfo parses pr=POLICY:V[,POLICY:V...] (POLICY ttl, rtx, prio or none), the partial
// reliability of the messages sent: a source's message i takes entry i modulo their
// count, echoes and send commands the first.
func (a *args) prinfo() []prInfo {
	v, ok := a.m["pr"]
	if !ok {
		return []prInfo{{}}
	}
	var out []prInfo
	for _, e := range strings.Split(v, ",") {
		name, val, _ := strings.Cut(e, ":")
		p, okp := prPolicies[name]
		n, err := strconv.ParseUint(val, 10, 32)
		if name == "none" && val == "" {
			err = nil
		}
		if !okp || err != nil {
			if a.err == nil {
				a.err = fmt.Errorf("pr=%q: want ttl:MS, rtx:N, prio:P or none, comma-separated", v)
			}
			return []prInfo{{}}
		}
		out = append(out, prInfo{p, uint32(n)})
	}
	return out
}

// makeRaw puts a serial line into raw mode: no echo, no line editing, no CR/LF mapping.
func makeRaw(f *os.File) {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return // not a terminal
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	_ = unix.IoctlSetTermios(fd, unix.TCSETS, t)
}
