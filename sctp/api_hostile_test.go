package sctp

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// The limits against hostile peers have defaults: 4096
// associations, a backlog of 1024, a 256 MiB memory budget, 100
// out-of-the-blue answers a second per source with a reserve of ten
// seconds of that; negative values turn MaxAssociations and the others
// off.
func TestConfigHostileDefaults(t *testing.T) {
	d := (*Config)(nil).withDefaults()
	if d.Limits.MaxAssociations != DefaultMaxAssociations || DefaultMaxAssociations != 4096 || d.Limits.Backlog != 1024 {
		t.Fatalf("MaxAssociations %d, Backlog %d", d.Limits.MaxAssociations, d.Limits.Backlog)
	}
	if DefaultMemoryBudget != 256<<20 || DefaultInitRate != 100 {
		t.Fatalf("DefaultMemoryBudget %d, DefaultInitRate %d", DefaultMemoryBudget, DefaultInitRate)
	}
	cc := d.coreConfig(48)
	if cc.MaxAssociations != 4096 || cc.Backlog != 1024 || cc.MemoryBudget != DefaultMemoryBudget || cc.InitRate != DefaultInitRate {
		t.Fatalf("core config %d/%d/%d/%d", cc.MaxAssociations, cc.Backlog, cc.MemoryBudget, cc.InitRate)
	}
	if cc.InitReserve != 10*DefaultInitRate {
		t.Fatalf("core config InitReserve %d, want ten seconds of InitRate", cc.InitReserve)
	}
	neg := (&Config{Limits: Limits{MaxAssociations: -1, MemoryBudget: -1, InitRate: -1}}).withDefaults()
	if cc := neg.coreConfig(48); cc.MaxAssociations > 0 || cc.MemoryBudget >= 0 || cc.InitRate >= 0 {
		t.Fatalf("negative limits give core config %d/%d/%d", cc.MaxAssociations, cc.MemoryBudget, cc.InitRate)
	}
	if cc := neg.coreConfig(48); cc.InitReserve != 0 {
		t.Fatalf("no limit, core config InitReserve %d", cc.InitReserve)
	}
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{})
		conn := simSocket(t, n, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", nil, conn)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if b := l.Stats().MemoryBudget; b != DefaultMemoryBudget {
			t.Fatalf("endpoint budget %v", b)
		}
	})
}

// Backlog bounds the associations Accept has not returned: a peer beyond
// it is not refused, its COOKIE ECHO is dropped (counted) and its
// retransmission served once Accept made room.
func TestBacklogHoldsPeerUntilAccept(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Delay: time.Millisecond}, Overhead: 28})
		sc := simSocket(t, n, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", &Config{Limits: Limits{Backlog: 2}}, sc)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		type result struct {
			as  *Association
			err error
			at  time.Duration
		}
		start := time.Now()
		done := make(chan result, 3)
		for i := range 3 {
			cc, err := n.Listen(netip.MustParseAddrPort(fmt.Sprintf("10.0.1.%d:9899", i+1)))
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				as, err := dialNew(ctx, "10.0.0.2:5000", nil, cc)
				done <- result{as, err, time.Since(start)}
			}()
			time.Sleep(10 * time.Millisecond) // in order
		}
		for range 2 {
			if r := <-done; r.err != nil {
				t.Fatal(r.err)
			} else {
				defer r.as.Close()
			}
		}
		time.Sleep(5 * time.Second)
		select {
		case r := <-done:
			t.Fatalf("third association up (%v) with the backlog full", r.err)
		default:
		}
		if s := l.Stats(); s.BacklogDropped == 0 || s.AssocsRefused != 0 {
			t.Fatalf("BacklogDropped %d, AssocsRefused %d", s.BacklogDropped, s.AssocsRefused)
		}
		as, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer as.Close()
		r := <-done
		if r.err != nil {
			t.Fatalf("third association after Accept: %v", r.err)
		}
		defer r.as.Close()
	})
}

// Endpoint.Stats reads out the memory budget: its limit, and what the data
// held by its associations costs against it, which grows while a reader
// leaves messages unread and returns to zero once they are read.
func TestStatsMemoryBudget(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Delay: time.Millisecond}, Overhead: 28})
		sc := simSocket(t, n, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", &Config{Limits: Limits{MemoryBudget: 8 << 20}}, sc)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if s := l.Stats(); s.MemoryBudget != 8<<20 || s.MemoryInUse != 0 {
			t.Fatalf("idle endpoint: MemoryBudget %d, MemoryInUse %d", s.MemoryBudget, s.MemoryInUse)
		}
		cc := simSocket(t, n, "10.0.1.1:9899")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		as, err := dialNew(ctx, "10.0.0.2:5000", nil, cc)
		if err != nil {
			t.Fatal(err)
		}
		defer as.Close()
		srv, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		const msgs, size = 20, 1000
		for range msgs {
			if _, err := as.WriteMsg(make([]byte, size), SendInfo{}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Second) // delivered, not read
		s := l.Stats()
		if s.MemoryInUse < msgs*size || s.MemoryInUse > s.MemoryBudget {
			t.Fatalf("%d bytes unread: MemoryInUse %d (budget %d)", msgs*size, s.MemoryInUse, s.MemoryBudget)
		}
		buf := make([]byte, 2*size)
		for range msgs {
			if _, _, err := srv.ReadMsg(buf); err != nil {
				t.Fatal(err)
			}
		}
		if s := l.Stats(); s.MemoryInUse != 0 {
			t.Fatalf("everything read: MemoryInUse %d", s.MemoryInUse)
		}
		// No budget: nothing to read out.
		sc2 := simSocket(t, n, "10.0.0.3:9899")
		l2, err := listenOn("10.0.0.3:5000", &Config{Limits: Limits{MemoryBudget: -1}}, sc2)
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()
		if s := l2.Stats(); s.MemoryBudget != 0 || s.MemoryInUse != 0 {
			t.Fatalf("no budget: MemoryBudget %d, MemoryInUse %d", s.MemoryBudget, s.MemoryInUse)
		}
	})
}
