package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// startListener runs sctpcat -v with args (-l and the address among
// them) and a UDP port free a moment before, in a goroutine, and returns
// once it listens: the port, its stderr and its exit code to come. When
// another program took the port in between, it tries another.
func startListener(t *testing.T, ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) (int, *readyWriter, chan int) {
	t.Helper()
	for try := 1; ; try++ {
		port := freeUDPPort(t)
		lerr := &readyWriter{ready: make(chan struct{})}
		lcode := make(chan int, 1)
		go func() {
			lcode <- run(ctx, append([]string{"-v", "-udp-port", fmt.Sprint(port)}, args...), stdin, stdout, lerr)
		}()
		select {
		case <-lerr.ready:
			return port, lerr, lcode
		case code := <-lcode:
			if !strings.Contains(lerr.String(), "address already in use") || try == 10 {
				t.Fatalf("listener exit %d: %s", code, lerr.String())
			}
		}
	}
}

// closedUDPPort returns a UDP port of loopback that answers with ICMP
// port unreachable and that no other program can take while the test
// runs: a socket the test holds is bound to it and connected elsewhere
// (port 9), so the kernel delivers it nothing from anyone else and
// answers their packets as for a port nobody holds.
func closedUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.LocalAddr().(*net.UDPAddr).Port
}

// freeUDPPort returns a UDP port free on loopback right now.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func input(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestEcho(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	port, lerr, lcode := startListener(t, ctx, []string{"-l", "-echo", "127.0.0.1:7000"}, nil, &syncBuffer{})
	in := input(300 << 10)
	for round := range 3 { // associations one after another
		var out, errb syncBuffer
		args := []string{"-echo-wait", "-v", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port),
			"-msg-size", "1000", "-sid", "3", "-ppid", "9", "-os", "8", "-sched", "rr", "127.0.0.1:7000"}
		switch round {
		case 1:
			args = append([]string{"-unordered"}, args...)
		case 2:
			args = append([]string{"-reset-after", "50"}, args...)
		}
		code := run(context.Background(), args, bytes.NewReader(in), &out, &errb)
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errb.String())
		}
		if out.String() != string(in) {
			t.Fatalf("round %d: echoed %d bytes of %d", round, len(out.String()), len(in))
		}
		if !strings.Contains(errb.String(), "event: up") || !strings.Contains(errb.String(), "stats:") {
			t.Fatalf("-v output: %s", errb.String())
		}
		if round == 2 && !strings.Contains(errb.String(), "event: stream reset (outgoing, streams [3])") {
			t.Fatalf("-reset-after: -v output: %s", errb.String())
		}
	}
	cancel()
	if code := <-lcode; code != 0 {
		t.Fatalf("listener exit %d: %s", code, lerr.String())
	}
	// The echo server's -v lines name their association.
	labels := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(lerr.String()), "\n") {
		if strings.HasPrefix(line, "listening on") {
			continue
		}
		label, _, ok := strings.Cut(line, "] ")
		if !ok || !strings.HasPrefix(label, "[127.0.0.1:") {
			t.Fatalf("listener line without its association: %q", line)
		}
		labels[label] = true
	}
	if len(labels) != 3 {
		t.Errorf("%d associations labelled in the listener's output, want 3: %s", len(labels), lerr.String())
	}
}

func TestCopy(t *testing.T) {
	var lout syncBuffer
	port, lerr, lcode := startListener(t, context.Background(), []string{"-l", "127.0.0.1:7001"}, nil, &lout)
	in := input(1 << 20)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"-udp-port", "0", "-remote-udp-port", fmt.Sprint(port), "-msg-size", "4000", "127.0.0.1:7001"},
		bytes.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("connect exit %d: %s", code, errb.String())
	}
	if code := <-lcode; code != 0 {
		t.Fatalf("listener exit %d: %s", code, lerr.String())
	}
	if lout.String() != string(in) {
		t.Fatalf("listener got %d bytes of %d", len(lout.String()), len(in))
	}
}

// TestCopyPartialReliability: messages sent with a PR-SCTP policy over a
// loss-free loopback all arrive.
func TestCopyPartialReliability(t *testing.T) {
	var lout syncBuffer
	port, lerr, lcode := startListener(t, context.Background(), []string{"-l", "127.0.0.1:7003"}, nil, &lout)
	in := input(256 << 10)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"-udp-port", "0", "-remote-udp-port", fmt.Sprint(port), "-msg-size", "1000",
		"-pr-policy", "ttl", "-pr-value", "30000", "127.0.0.1:7003"}, bytes.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("connect exit %d: %s", code, errb.String())
	}
	if code := <-lcode; code != 0 {
		t.Fatalf("listener exit %d: %s", code, lerr.String())
	}
	if lout.String() != string(in) {
		t.Fatalf("listener got %d bytes of %d", len(lout.String()), len(in))
	}
}

func TestFailures(t *testing.T) {
	var errb syncBuffer
	if code := run(context.Background(), []string{"-bogus"}, nil, &syncBuffer{}, &errb); code != 2 {
		t.Fatalf("bad flag: exit %d", code)
	}
	if code := run(context.Background(), []string{"-sched", "nope", "127.0.0.1:1"}, nil, &syncBuffer{}, &errb); code != 2 {
		t.Fatalf("bad scheduler: exit %d", code)
	}
	if code := run(context.Background(), []string{"-pr-policy", "forever", "127.0.0.1:1"}, nil, &syncBuffer{}, &errb); code != 2 {
		t.Fatalf("bad PR policy: exit %d", code)
	}
	port := closedUDPPort(t)
	errb = syncBuffer{}
	code := run(context.Background(), []string{"-timeout", "300ms", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port), "127.0.0.1:7002"},
		strings.NewReader("x"), &syncBuffer{}, &errb)
	if code != 1 || !strings.Contains(errb.String(), "connection refused") {
		t.Fatalf("nobody there: exit %d: %s", code, errb.String())
	}
}

// TestAuthEcho: -auth-key on both ends authenticates DATA and SACK (AUTH,
// RFC 4895); the echo comes back byte-exact and -v reports AUTH chunks sent
// and verified, none dropped.
func TestAuthEcho(t *testing.T) {
	key := "7:00112233445566778899aabbccddeeff"
	ctx, cancel := context.WithCancel(context.Background())
	port, lerr, lcode := startListener(t, ctx, []string{"-l", "-echo", "-auth-key", key, "127.0.0.1:7002"}, nil, &syncBuffer{})
	in := input(200 << 10)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"-echo-wait", "-v", "-auth-key", key, "-auth-hmac", "1", "-udp-port", "0",
		"-remote-udp-port", fmt.Sprint(port), "-msg-size", "3000", "127.0.0.1:7002"}, bytes.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.String() != string(in) {
		t.Fatalf("echoed %d bytes of %d", len(out.String()), len(in))
	}
	if !strings.Contains(errb.String(), "stats: auth hmac 3, AUTH sent") || !strings.Contains(errb.String(), "dropped: bad HMAC 0, unknown key 0, unsupported HMAC 0, unauthenticated chunks 0") {
		t.Fatalf("-v output: %s", errb.String())
	}
	cancel()
	if code := <-lcode; code != 0 {
		t.Fatalf("listener exit %d: %s", code, lerr.String())
	}
	if _, _, err := parse([]string{"-auth-key", "zz", "x:1"}, &syncBuffer{}); err == nil {
		t.Fatal("-auth-key zz accepted")
	}
}

// TestAddrFlags: -add-addr and -del-addr after N messages send ASCONF
// requests. On loopback the listener's association has one address, so
// the delete of it is refused as the last remaining one (RFC 5061), and
// the peer's answer reaches the command, which exits 1 saying so.
func TestAddrFlags(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, _, _ := startListener(t, ctx, []string{"-l", "-echo", "-dynamic-addrs", "127.0.0.1:7003"}, nil, &syncBuffer{})
	var out, errb syncBuffer
	code := run(context.Background(), []string{"-del-addr", "127.0.0.1", "-addr-after", "2", "-udp-port", "0",
		"-remote-udp-port", fmt.Sprint(port), "-msg-size", "100", "127.0.0.1:7003"}, bytes.NewReader(input(1000)), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "delete address 127.0.0.1") || !strings.Contains(errb.String(), "DELETE-LAST-REMAINING-ADDRESS") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, _, err := parse([]string{"-add-addr", "nope", "x:1"}, &syncBuffer{}); err == nil {
		t.Fatal("-add-addr nope accepted")
	}
}

// TestMultihomeFlag: -multihome turns Config.Paths.Multihoming on (a listener on
// no address then lists the host's addresses); it is off by default.
func TestMultihomeFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{[]string{"-l", ":7000"}, false}, {[]string{"-multihome", "-l", ":7000"}, true}, {[]string{"-multihome", "127.0.0.1:7000"}, true}} {
		_, cfg, err := parse(tc.args, &syncBuffer{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if cfg.Paths.Multihoming != tc.want {
			t.Errorf("%q: Multihoming %v", tc.args, cfg.Paths.Multihoming)
		}
	}
}

// readyWriter is a syncBuffer that closes ready once something containing
// "listening on" was written (a listener's -v line): the listener's socket
// is bound.
type readyWriter struct {
	syncBuffer
	once  sync.Once
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.String(), "listening on") {
		w.once.Do(func() { close(w.ready) })
	}
	return n, err
}

// TestListenSendsStdin: like netcat, "sctpcat -l < file" sends the file
// to the first client and shuts the association down at its end; a client
// with nothing to send ("sctpcat HOST:PORT < /dev/null") receives until
// then. Flags may follow the address.
func TestListenSendsStdin(t *testing.T) {
	in := input(300_000)
	var lout syncBuffer
	port, lerr, lcode := startListener(t, context.Background(), []string{"-l", "-msg-size", "3000", "127.0.0.1:7006"},
		bytes.NewReader(in), &lout)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"127.0.0.1:7006", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port)},
		bytes.NewReader(nil), &out, &errb)
	if code != 0 {
		t.Fatalf("connect exit %d: %s", code, errb.String())
	}
	if code := <-lcode; code != 0 {
		t.Fatalf("listener exit %d: %s", code, lerr.String())
	}
	if out.String() != string(in) {
		t.Fatalf("client got %d bytes of %d", len(out.String()), len(in))
	}
	if lout.String() != "" {
		t.Errorf("listener printed %d bytes; the client sent none", len(lout.String()))
	}
}

// TestArgumentCount: anything but one address is a one-line usage error
// (exit 2) that names what was given, not the whole flag list.
func TestArgumentCount(t *testing.T) {
	for _, args := range [][]string{{}, {"127.0.0.1:1", "127.0.0.1:2"}, {"127.0.0.1:1", "-v", "extra"}} {
		var errb syncBuffer
		if code := run(context.Background(), args, nil, &syncBuffer{}, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if s := errb.String(); !strings.Contains(s, "one HOST:PORT argument expected") || strings.Count(s, "\n") != 1 {
			t.Errorf("%q: stderr %q, want one line naming the arguments", args, s)
		}
	}
}

// endless is a reader of zeros that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestKilledReportsOnce: a client killed (its context canceled, as by
// SIGTERM) aborts its association and says so once: -v's events, with a
// full queue's send failures as the first and a count, no error line for
// the abort it made itself; the echo server reports the peer's abort once
// too, by its event line.
func TestKilledReportsOnce(t *testing.T) {
	lctx, lcancel := context.WithCancel(context.Background())
	port, lerr, lcode := startListener(t, lctx, []string{"-l", "-echo", "127.0.0.1:7009"}, nil, &syncBuffer{})
	ctx, cancel := context.WithCancel(context.Background())
	var errb syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"-v", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port), "127.0.0.1:7009"}, endless{}, &syncBuffer{}, &errb)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errb.String(), "event: up") || !strings.Contains(lerr.String(), "event: up") {
		if time.Now().After(deadline) {
			t.Fatalf("no association: %s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // a queue fills
	cancel()
	if c := <-code; c != 1 {
		t.Errorf("killed client exit %d, want 1", c)
	}
	out := errb.String()
	if strings.Contains(out, "sctpcat:") || strings.Count(out, "event: down") != 1 {
		t.Errorf("killed client's output reports its end %d times, with an error line %v:\n%s",
			strings.Count(out, "event: down"), strings.Contains(out, "sctpcat:"), out)
	}
	if n := strings.Count(out, "event: send failed ("); n > 1 {
		t.Errorf("%d send failure lines, want the first and a count:\n%s", n, out)
	}
	deadline = time.Now().Add(10 * time.Second)
	for !strings.Contains(lerr.String(), "event: down") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	lcancel()
	<-lcode
	if l := lerr.String(); strings.Count(l, "event: down") != 1 || strings.Contains(l, "sctpcat:") {
		t.Errorf("echo server reports the peer's abort %d times, with an error line %v:\n%s",
			strings.Count(l, "event: down"), strings.Contains(l, "sctpcat:"), l)
	}
}
