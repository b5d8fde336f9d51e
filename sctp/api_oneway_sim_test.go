package sctp

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimOneWayPathFailure: the server's packets to the client's primary
// address are lost while the client's packets from that address still
// arrive (a one-way failure). The server moves its data to the client's
// other address, and its SACKs too: a SACK goes to the source of the DATA
// it acknowledges (RFC 9260 section 6.4) only while that source's path is
// not failed, else the client, hearing nothing, would give the
// association up. Both directions move all their data.
func TestSimOneWayPathFailure(t *testing.T) {
	bubble(t, func(t *testing.T) {
		link := simnet.LinkConfig{Delay: 5 * time.Millisecond}
		n := simconn.New(1, simconn.Config{Link: link, Overhead: 28})
		client, client2 := netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.4:9899")
		server := netip.MustParseAddrPort("10.0.0.2:9899")
		sconn, err := n.Listen(server)
		if err != nil {
			t.Fatal(err)
		}
		multi := Paths{Multihoming: true}
		l, err := listenOn("10.0.0.2:5000", &Config{Paths: multi}, sconn)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		cconn, err := n.Listen(client)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Alias(cconn, client2); err != nil {
			t.Fatal(err)
		}
		e, err := newEndpointOn(netip.Addr{}, &Config{Paths: multi, LocalAddrs: []netip.Addr{client.Addr(), client2.Addr()}}, cconn)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		c, err := e.Dial(ctx, "10.0.0.2:5000")
		if err != nil {
			t.Fatal(err)
		}
		s, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second) // the client's second address confirmed
		n.SetLink(server, client, simnet.LinkConfig{Loss: 1})
		const volume = 1 << 20
		done := make(chan struct{})
		go func() {
			defer close(done)
			simBulk(t, s, c, volume, nil)
		}()
		simBulk(t, c, s, volume, nil)
		<-done
		for _, p := range s.Paths() {
			if p.Addr.IP == client.Addr() && p.State == PathActive {
				t.Errorf("the server's path to %v is %v after its packets were lost", client, p.State)
			}
		}
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
