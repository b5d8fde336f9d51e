package sctp_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// TestREADMEExample runs the README's example as written, server and
// client in one process on one host: Listen on the wildcard address with
// the defaults (UDP encapsulation on 9899), then Dial with the defaults
// but OutStreams. It failed with "bind: address already in use" on UDP
// 9899 when Dial's default port was 9899 too; Dial now defaults to a port
// the system picks, so a second default Dial works as well.
func TestREADMEExample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, buf := []byte("hello"), make([]byte, 1500)

	l, err := sctp.Listen("0.0.0.0:5000", nil) // SCTP port 5000, UDP encapsulation on 9899
	if errors.Is(err, syscall.EADDRINUSE) {
		t.Skipf("UDP port 9899 is taken by another program on this host: %v", err)
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
