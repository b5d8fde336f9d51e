package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinary builds sctpcat and runs an echo server and a client as two
// processes on loopback: exit codes, -echo, -echo-wait, -v, and SIGTERM
// ending the server.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "sctpcat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	port, srv, serr, drained := startServerProcess(t, bin)
	defer srv.Process.Kill()
	in := input(200 << 10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli := exec.CommandContext(ctx, bin, "-echo-wait", "-v", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port),
		"-msg-size", "1400", "-os", "4", "-sid", "2", "127.0.0.1:7010")
	cli.Stdin = bytes.NewReader(in)
	var cout, cerr bytes.Buffer
	cli.Stdout, cli.Stderr = &cout, &cerr
	if err := cli.Run(); err != nil {
		t.Fatalf("client: %v\n%s", err, cerr.String())
	}
	if !bytes.Equal(cout.Bytes(), in) {
		t.Fatalf("echoed %d bytes of %d", cout.Len(), len(in))
	}
	if !strings.Contains(cerr.String(), "event: shutdown") {
		t.Fatalf("client -v: %s", cerr.String())
	}
	srv.Process.Signal(syscall.SIGTERM)
	<-drained // Wait closes the pipe: read it to its end first
	if err := srv.Wait(); err != nil {
		t.Fatalf("server: %v\n%s", err, serr.String())
	}
	// Nobody listening: exit status 1 with the reason.
	cli = exec.Command(bin, "-timeout", "300ms", "-udp-port", "0", "-remote-udp-port", fmt.Sprint(port), "127.0.0.1:7010")
	cli.Stdin = strings.NewReader("x")
	cerr.Reset()
	cli.Stderr = &cerr
	err := cli.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(cerr.String(), "sctpcat:") {
		t.Fatalf("no server: %v, %s", err, cerr.String())
	}
}

// startServerProcess starts bin as an echo server (-l -echo -v) on a UDP
// port free a moment before and returns once it says it listens: the
// port, the process, its stderr so far and a channel closed when its
// stderr ends. The client starts only then: a fixed pause was too short
// on a loaded host, and the INIT met a closed port. When another program
// took the port in between, it tries another.
func startServerProcess(t *testing.T, bin string) (int, *exec.Cmd, *syncBuffer, chan struct{}) {
	t.Helper()
	for try := 1; ; try++ {
		port := freeUDPPort(t)
		serr := &syncBuffer{}
		srv := exec.Command(bin, "-l", "-echo", "-v", "-udp-port", fmt.Sprint(port), "127.0.0.1:7010")
		pipe, err := srv.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		ready, drained := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(drained)
			sc := bufio.NewScanner(pipe)
			said := false
			for sc.Scan() {
				serr.Write(append(sc.Bytes(), '\n'))
				if !said && strings.HasPrefix(sc.Text(), "listening on ") {
					close(ready)
					said = true
				}
			}
		}()
		select {
		case <-ready:
			return port, srv, serr, drained
		case <-drained:
			srv.Wait()
			if !strings.Contains(serr.String(), "address already in use") || try == 10 {
				t.Fatalf("the server ended before it listened: %s", serr.String())
			}
		case <-time.After(30 * time.Second):
			srv.Process.Kill()
			t.Fatalf("the server did not say it listens: %s", serr.String())
		}
	}
}
