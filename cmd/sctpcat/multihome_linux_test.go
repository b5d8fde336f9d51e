//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// sctpcat over a multi-homed association on loopback (Linux: every 127/8
// address is the host's): -l with two addresses, a client with -bind two
// of its own and the server's list; -v prints the second server address
// confirmed (a path state change) and both paths at the end. The second
// path is listed active or still unconfirmed: the copy is in the send
// buffer at once, and its paths are printed before the shutdown, which may
// come before the confirmation's round trip (the event then says so later).
func TestMultihomedCopy(t *testing.T) {
	var lout syncBuffer
	port, lerr, lcode := startListener(t, context.Background(), []string{"-l", "127.0.0.1,127.0.0.2:7005"}, nil, &lout)
	in := input(1 << 20)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"-v", "-bind", "127.0.0.3,127.0.0.4", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port),
		"-msg-size", "4000", "127.0.0.1,127.0.0.2:7005"}, bytes.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("connect exit %d: %s", code, errb.String())
	}
	if code := <-lcode; code != 0 {
		t.Fatalf("listener exit %d: %s", code, lerr.String())
	}
	if lout.String() != string(in) {
		t.Fatalf("listener got %d bytes of %d", len(lout.String()), len(in))
	}
	v := errb.String()
	for _, re := range []string{
		`event: peer address change 127\.0\.0\.2:7005/udp:\d+ \(reachability, active\)`,
		`path: 127\.0\.0\.1:7005/udp:\d+ active primary=true in-use=true`,
		`path: 127\.0\.0\.2:7005/udp:\d+ (active|unconfirmed) primary=false`,
	} {
		if !regexp.MustCompile(re).MatchString(v) {
			t.Errorf("-v output lacks %q:\n%s", re, v)
		}
	}
	if !strings.Contains(lerr.String(), "association from 127.0.0.3:") {
		t.Errorf("listener -v: %s", lerr.String())
	}
	var e syncBuffer
	if code := run(context.Background(), []string{"-l", "-bind", "127.0.0.3", "127.0.0.1:7006"}, nil, &syncBuffer{}, &e); code != 2 {
		t.Errorf("-bind with -l: exit %d", code)
	}
}
