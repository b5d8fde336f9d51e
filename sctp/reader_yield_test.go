package sctp

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestReaderYieldsToWokenReaders checks that the endpoint's reader
// goroutine yields after a batch that woke a ReadMsg caller, and only
// then: a server endpoint with two associations, a reader blocked on each
// (so the reader role is never lent: another goroutine still waits), gets
// messages on the first one; each batch that woke its reader counts a
// yield (SocketStats.ReaderYields) as it ends, not when a later batch
// does. Messages arriving while nobody reads count none.
func TestReaderYieldsToWokenReaders(t *testing.T) {
	simPair(t, simnet.LinkConfig{}, func(t *testing.T, c, s *Association, l *Endpoint, _ *simconn.Network) {
		// A second association from the same client endpoint.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c2, err := c.Endpoint().Dial(ctx, "10.0.0.2:5000")
		if err != nil {
			t.Fatal(err)
		}
		s2, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cs, ss := [2]*Association{c, c2}, [2]*Association{s, s2}
		msg := make([]byte, 1000)

		// Nobody reads: the messages wait in the receive queue.
		for range 10 {
			if _, err := cs[0].WriteMsg(msg, SendInfo{}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		synctest.Wait()
		if y := l.SocketStats().ReaderYields; y != 0 {
			t.Fatalf("%d yields with no reader waiting", y)
		}

		// A reader blocked on each association; messages for the first.
		got := make(chan int, 100)
		for _, s := range ss {
			go func() {
				buf := make([]byte, 2000)
				for {
					n, _, err := s.ReadMsg(buf)
					if err != nil {
						return
					}
					got <- n
				}
			}()
		}
		for range 10 {
			<-got // what waited
		}
		// Both readers blocked before anything arrives: were the second
		// not yet waiting, the first would be lent the reader role and
		// read the next message itself (no yield, rightly).
		synctest.Wait()
		before := l.SocketStats().ReaderYields
		const n = 20
		for i := range n {
			if _, err := cs[0].WriteMsg(msg, SendInfo{}); err != nil {
				t.Fatal(err)
			}
			if m := <-got; m != len(msg) {
				t.Fatalf("read %d bytes, want %d", m, len(msg))
			}
			time.Sleep(10 * time.Millisecond) // each message its own batch
			// Counted for the batch that woke the reader, not the next
			// one: other batches (heartbeats) come in between.
			if y := l.SocketStats().ReaderYields - before; y != uint64(i+1) {
				t.Fatalf("%d yields after %d batches that each woke the reader", y, i+1)
			}
		}
		for i := range ss {
			ss[i].Close()
			cs[i].Close()
		}
	})
}
