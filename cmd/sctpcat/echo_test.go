package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// startEcho runs "sctpcat -l -echo" on a free UDP port and returns the
// port and a function that stops it and checks its exit.
func startEcho(t *testing.T, addr string, extra ...string) (int, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := append(append([]string{"-l", "-echo"}, extra...), addr)
	port, lerr, lcode := startListener(t, ctx, args, nil, &syncBuffer{})
	return port, func() {
		cancel()
		if code := <-lcode; code != 0 {
			t.Errorf("listener exit %d: %s", code, lerr.String())
		}
	}
}

// dialEcho opens an association to the echo server on port.
func dialEcho(t *testing.T, port int, addr string) *sctp.Association {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	as, err := sctp.Dial(ctx, addr, &sctp.Config{RemoteUDPPort: uint16(port)})
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// TestEchoConcurrent checks that an association that is open and idle does
// not keep the echo server from serving the next ones.
func TestEchoConcurrent(t *testing.T) {
	const addr = "127.0.0.1:7010"
	port, stop := startEcho(t, addr)
	defer stop()
	idle := dialEcho(t, port, addr) // opens and says nothing
	defer idle.Close()
	in := input(64 << 10)
	for round := range 2 {
		var out, errb syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(context.Background(), []string{"-echo-wait", "-timeout", "10s", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port),
				"-msg-size", "1000", addr}, bytes.NewReader(in), &out, &errb)
		}()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("round %d: exit %d: %s", round, code, errb.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: not served while another association is idle", round)
		}
		if out.String() != string(in) {
			t.Fatalf("round %d: echoed %d bytes of %d", round, len(out.String()), len(in))
		}
	}
}

// TestEchoInParts: a message longer than -echo-buffer comes back as
// messages of at most that size whose bytes are the message's, so the
// server's memory does not follow the size of the messages a peer sends.
func TestEchoInParts(t *testing.T) {
	const addr, size = "127.0.0.1:7011", 16 << 10
	port, stop := startEcho(t, addr, "-echo-buffer", fmt.Sprint(size))
	defer stop()
	as := dialEcho(t, port, addr)
	defer as.Close()
	msg := input(200 << 10)
	small := []byte("short message")
	for _, m := range [][]byte{msg, small} {
		if _, err := as.WriteMsg(m, sctp.SendInfo{Stream: 2, PPID: 77}); err != nil {
			t.Fatal(err)
		}
	}
	as.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got []byte
	buf := make([]byte, 256<<10)
	parts := 0
	for len(got) < len(msg)+len(small) {
		n, info, err := as.ReadMsg(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		if !info.EOR || n > size || info.Stream != 2 || info.PPID != 77 {
			t.Fatalf("echoed part %d: %d bytes, EOR %v, stream %d, PPID %d", parts, n, info.EOR, info.Stream, info.PPID)
		}
		got = append(got, buf[:n]...)
		parts++
	}
	if !bytes.Equal(got, append(append([]byte(nil), msg...), small...)) {
		t.Fatal("echoed bytes differ")
	}
	if want := (len(msg)+size-1)/size + 1; parts != want {
		t.Fatalf("%d messages came back, want %d", parts, want)
	}
}
