//go:build linux

package sctp_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// multihomed runs a server and a client of two addresses each on one host (on
// Linux every 127/8 address is the host's) and moves the client's data to the
// server's second address once a HEARTBEAT has confirmed it.
func multihomed(ctx context.Context) error {
	l, err := sctp.Listen("127.0.0.1,127.0.0.2:5000", nil) // a server on two addresses
	if err != nil {
		return err
	}
	defer l.Close()
	c, err := sctp.Dial(ctx, "127.0.0.1,127.0.0.2:5000", &sctp.Config{ // INIT tries them in turn
		LocalAddrs: []netip.Addr{netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("127.0.0.4")}})
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		return err
	}
	buf := make([]byte, 1500)
	send := func(msg string) error { // from the client to the server
		if _, err := c.WriteMsg([]byte(msg), sctp.SendInfo{}); err != nil {
			return err
		}
		n, _, err := s.ReadMsg(buf)
		fmt.Printf("%s\n", buf[:n])
		return err
	}
	paths := func(as *sctp.Association) {
		for _, p := range as.Paths() {
			fmt.Println(p.Addr, p.State, "primary:", p.Primary, "in use:", p.InUse)
		}
	}
	if err := send("over the first path"); err != nil {
		return err
	}
	second := netip.MustParseAddr("127.0.0.2")
	for confirmed := false; !confirmed; { // until a HEARTBEAT ACK confirms the second address
		select {
		case ev := <-c.Events():
			confirmed = ev.Kind == sctp.EventPeerAddrChange && ev.Addr.IP == second &&
				ev.PathState == sctp.PathActive
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	paths(c) // 127.0.0.1 carries the data; 127.0.0.2 is active and idle
	// New data goes to the second address while it answers.
	if err := c.SetPrimary(second); err != nil {
		return err
	}
	paths(c) // 127.0.0.2 is the primary and carries the data
	if err := send("over the second path"); err != nil {
		return err
	}
	paths(s) // the server's paths: the client's two addresses
	return c.Shutdown(ctx)
}

// TestDocMultihoming runs the multi-homing example of docs/multihoming.md
// as written and checks what it printed: a message arrives; the client's
// paths are the server's two addresses, the one the INIT went to first is
// the primary and carries the data, the other is confirmed by a HEARTBEAT;
// SetPrimary moves new data there and a message sent then arrives; the
// server's paths are the client's two addresses.
func TestDocMultihoming(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := captureStdout(t, func() error { return multihomed(ctx) })
	if errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("UDP port 9899, the default the example uses, is taken by another program on this host: %v", err)
	}
	if err != nil {
		t.Fatalf("%v; printed:\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		"over the first path",
		"127.0.0.1:5000/udp:9899 active primary: true in use: true",
		"127.0.0.2:5000/udp:9899 active primary: false in use: false",
		"127.0.0.1:5000/udp:9899 active primary: false in use: false",
		"127.0.0.2:5000/udp:9899 active primary: true in use: true",
		"over the second path",
		"127.0.0.3:", // the client's SCTP and UDP ports are ephemeral,
		"127.0.0.4:", // and its second address may not be confirmed yet
	}
	ok := len(lines) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = lines[i] == want[i] || strings.HasSuffix(want[i], ":") && strings.HasPrefix(lines[i], want[i])
	}
	if !ok {
		t.Errorf("printed:\n%s\nwant lines:\n%s", out, strings.Join(want, "\n"))
	}
}

// TestDocMultihomingIsTested checks that docs/multihoming.md shows
// multihomed exactly as TestDocMultihoming runs it.
func TestDocMultihomingIsTested(t *testing.T) {
	checkDocBlock(t, "../docs/multihoming.md", "multihome_doc_linux_test.go", "multihomed")
}
