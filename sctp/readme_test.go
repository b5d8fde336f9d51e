package sctp_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// hello runs a server and a client in one program with the default settings:
// SCTP over UDP (RFC 6951), the server on UDP port 9899.
func hello(ctx context.Context) error {
	l, err := sctp.Listen("127.0.0.1:5000", nil) // SCTP port 5000
	if err != nil {
		return err
	}
	defer l.Close()
	c, err := sctp.Dial(ctx, "127.0.0.1:5000", nil) // from a UDP port the system picks
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		return err
	}
	if _, err := c.WriteMsg([]byte("hello"), sctp.SendInfo{Stream: 1, PPID: 51}); err != nil {
		return err
	}
	buf := make([]byte, 1500)
	n, info, err := s.ReadMsg(buf) // one whole message (info.EOR), its stream and PPID
	if err != nil {
		return err
	}
	fmt.Printf("%s on stream %d, PPID %d\n", buf[:n], info.Stream, info.PPID)
	return c.Shutdown(ctx)
}

// TestREADMEExample runs the README's example as written: a server and a
// client in one process with the default settings (the server on UDP port
// 9899, the client on a port the system picks), one message and a
// graceful shutdown.
func TestREADMEExample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := captureStdout(t, func() error { return hello(ctx) })
	if errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("UDP port 9899, the default this test is about, is taken by another program on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := "hello on stream 1, PPID 51\n"; out != want {
		t.Errorf("printed %q, want %q", out, want)
	}
}

// TestREADMEExampleIsTested checks that README.md shows hello exactly as
// TestREADMEExample runs it.
func TestREADMEExampleIsTested(t *testing.T) {
	checkDocBlock(t, "../README.md", "readme_test.go", "hello")
}

// TestDialDefaults: a server listening on the wildcard address with the
// defaults (UDP encapsulation on 9899) and two clients dialing with the
// defaults (but OutStreams) in the same process: each Dial takes a UDP port
// the system picks, so neither collides with the listener's 9899, and a
// message keeps its stream, PPID and boundaries.
func TestDialDefaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, buf := []byte("hello"), make([]byte, 1500)

	l, err := sctp.Listen("0.0.0.0:5000", nil) // SCTP port 5000, UDP encapsulation on 9899
	if errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("UDP port 9899, the default this test is about, is taken by another program on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan *sctp.Association, 2)
	go func() {
		for {
			as, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- as
		}
	}()
	c, err := sctp.Dial(ctx, "127.0.0.1:5000", &sctp.Config{OutStreams: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	as := <-accepted
	if _, err := c.WriteMsg(msg, sctp.SendInfo{Stream: 3, PPID: 51}); err != nil {
		t.Fatal(err)
	}
	n, info, err := as.ReadMsg(buf) // info.Stream, info.PPID, info.EOR
	if err != nil || string(buf[:n]) != "hello" || info.Stream != 3 || info.PPID != 51 || !info.EOR {
		t.Fatalf("ReadMsg: %q %+v %v", buf[:n], info, err)
	}

	// A second default Dial in the same process.
	c2, err := sctp.Dial(ctx, "127.0.0.1:5000", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	<-accepted
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c2.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
