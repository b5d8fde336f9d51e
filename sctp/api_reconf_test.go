package sctp

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// waitEvent returns the next event of kind k on a, skipping others.
func waitEvent(t *testing.T, a *Association, k EventKind) Event {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-a.Events():
			if !ok {
				t.Fatalf("events closed waiting for %v", k)
			}
			if ev.Kind == k {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %v event", k)
		}
	}
}

// readN reads n messages and returns, per message, "stream/ssn/payload".
func readN(t *testing.T, a *Association, n int) []string {
	t.Helper()
	buf := make([]byte, 2000)
	var out []string
	for range n {
		m, info, err := a.ReadMsg(buf)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d/%d/%s", info.Stream, info.SSN, buf[:m]))
	}
	return out
}

// TestSimStreamReconfig runs every RFC 6525 request through the public
// API over a lossy link, with the first request lost (and retransmitted)
// and then its response lost (the retransmitted request gets the same
// answer): resets each way, both directions at once, and added streams.
func TestSimStreamReconfig(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.02, Dup: 0.02, Reorder: 0.05}
	simPair(t, link, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		ca, sa := netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")
		write := func(a *Association, sid uint16, msgs ...string) {
			for _, m := range msgs {
				if _, err := a.WriteMsg([]byte(m), SendInfo{Stream: sid}); err != nil {
					t.Fatal(err)
				}
			}
		}

		// Outgoing reset of stream 3 with the request, then the response,
		// lost on the way.
		write(c, 3, "a", "b")
		if got := readN(t, s, 2); !slices.Equal(got, []string{"3/0/a", "3/1/b"}) {
			t.Fatalf("before reset: %v", got)
		}
		n.SetLink(ca, sa, simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
		done := make(chan error, 1)
		go func() { done <- c.ResetStreams(ctx, DirOutgoing, 3) }()
		time.Sleep(1500 * time.Millisecond)
		write(c, 3, "c") // waits for the reset
		n.SetLink(ca, sa, link)
		n.SetLink(sa, ca, simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1})
		time.Sleep(2500 * time.Millisecond)
		n.SetLink(sa, ca, link)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if ev := waitEvent(t, c, EventStreamReset); ev.Direction != DirOutgoing || !slices.Equal(ev.Streams, []uint16{3}) || ev.Err != nil {
			t.Fatalf("client event %+v", ev)
		}
		if ev := waitEvent(t, s, EventStreamReset); ev.Direction != DirIncoming || !slices.Equal(ev.Streams, []uint16{3}) {
			t.Fatalf("server event %+v", ev)
		}
		if got := readN(t, s, 1); !slices.Equal(got, []string{"3/0/c"}) {
			t.Fatalf("after reset: %v", got)
		}
		if r := c.Stats().Reconf; r.Retransmits < 2 {
			t.Fatalf("client counters %+v: the request was lost, it must have been sent again", r)
		}
		if r := s.Stats().Reconf; r.DupRequests < 1 {
			t.Fatalf("server counters %+v: the response was lost, the request must have come again", r)
		}

		// The server asks the client to reset its outgoing stream 4, and
		// both directions of stream 5 at once.
		write(c, 4, "d")
		readN(t, s, 1)
		if err := s.ResetStreams(ctx, DirIncoming, 4); err != nil {
			t.Fatal(err)
		}
		if ev := waitEvent(t, c, EventStreamReset); ev.Direction != DirOutgoing || !slices.Equal(ev.Streams, []uint16{4}) {
			t.Fatalf("client event %+v", ev)
		}
		write(c, 4, "e")
		if got := readN(t, s, 1); !slices.Equal(got, []string{"4/0/e"}) {
			t.Fatalf("after incoming reset: %v", got)
		}
		write(c, 4, "e2")
		if err := c.Stream(4).Reset(ctx); err != nil {
			t.Fatal(err)
		}
		write(c, 4, "e3")
		if got := readN(t, s, 2); !slices.Equal(got, []string{"4/1/e2", "4/0/e3"}) {
			t.Fatalf("Stream.Reset: %v", got)
		}
		if err := s.ResetStreams(ctx, DirBoth); err != nil {
			t.Fatal(err)
		}
		write(c, 4, "f")
		write(s, 4, "g")
		if got := readN(t, s, 1); !slices.Equal(got, []string{"4/0/f"}) {
			t.Fatalf("after reset of all: %v", got)
		}
		if got := readN(t, c, 1); !slices.Equal(got, []string{"4/0/g"}) {
			t.Fatalf("after reset of all: %v", got)
		}

		// Added streams, both ways.
		if err := c.AddStreams(ctx, 2, 3); err != nil {
			t.Fatal(err)
		}
		if o, i := c.Streams(); o != 18 || i != 19 {
			t.Fatalf("client streams %d/%d", o, i)
		}
		// The server adds its outgoing streams with a request of its own,
		// answered by the client: its counts change when that answer
		// arrives.
		var dirs StreamDirection
		for range 2 {
			ev := waitEvent(t, s, EventStreamsAdded)
			if ev.Err != nil || ev.Added != map[StreamDirection]uint16{DirIncoming: 2, DirOutgoing: 3}[ev.Direction] {
				t.Fatalf("server event %+v", ev)
			}
			dirs |= ev.Direction
		}
		if o, i := s.Streams(); o != 19 || i != 18 || dirs != DirBoth {
			t.Fatalf("server streams %d/%d", o, i)
		}
		write(c, 17, "h")
		write(s, 18, "i")
		if got := readN(t, s, 1); !slices.Equal(got, []string{"17/0/h"}) {
			t.Fatalf("on an added stream: %v", got)
		}
		if got := readN(t, c, 1); !slices.Equal(got, []string{"18/0/i"}) {
			t.Fatalf("on an added stream: %v", got)
		}
		if err := c.AddStreams(ctx, 65535, 0); !errors.Is(err, ErrStreamID) {
			t.Fatalf("adding past 65535: %v", err)
		}
	})
}

// Without negotiation ResetStreams fails at once with
// ErrReconfigUnsupported.
func TestSimReconfigUnsupported(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Delay: time.Millisecond}, Overhead: 28})
		ca, _ := n.Listen(netip.MustParseAddrPort("10.0.0.1:9899"))
		cb, _ := n.Listen(netip.MustParseAddrPort("10.0.0.2:9899"))
		l, err := listenOn("10.0.0.2:5000", &Config{Extensions: Extensions{DisableStreamReconfig: true}}, cb)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		c, err := dialNew(context.Background(), "10.0.0.2:5000", nil, ca)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.ResetStreams(context.Background(), DirOutgoing); !errors.Is(err, ErrReconfigUnsupported) {
			t.Fatalf("got %v", err)
		}
	})
}

// TestSimResetUnderLoad resets a stream again and again while its
// messages are in flight over a lossy, reordering link: every round's
// messages arrive in order numbered from 0, none lost or duplicated. The
// requests overtake lost DATA, so the receiver defers resets (RFC 6525
// section 5.2.2 E2: "In progress", twice with this link's seed) and holds
// the data that follows.
func TestSimResetUnderLoad(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.1, Reorder: 0.05}
	simPair(t, link, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		const rounds, per = 6, 40
		errc := make(chan error, 1)
		go func() {
			for r := range rounds {
				for i := range per {
					m := []byte(fmt.Sprintf("%d.%d", r, i))
					if _, err := c.WriteMsg(m, SendInfo{Stream: 1}); err != nil {
						errc <- err
						return
					}
				}
				if r < rounds-1 {
					if err := c.ResetStreams(ctx, DirOutgoing, 1); err != nil {
						errc <- err
						return
					}
				}
			}
			errc <- nil
		}()
		buf := make([]byte, 100)
		for r := range rounds {
			for i := range per {
				k, info, err := s.ReadMsg(buf)
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("%d.%d", r, i); string(buf[:k]) != want || info.SSN != uint16(i) {
					t.Fatalf("got %q SSN %d, want %q SSN %d", buf[:k], info.SSN, want, i)
				}
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		cr, sr := c.Stats().Reconf, s.Stats().Reconf
		t.Logf("client %+v", cr)
		t.Logf("server %+v", sr)
		if cr.StreamResetsOut != rounds-1 || sr.StreamResetsIn != rounds-1 {
			t.Fatalf("resets: client %d, server %d", cr.StreamResetsOut, sr.StreamResetsIn)
		}
	})
}
