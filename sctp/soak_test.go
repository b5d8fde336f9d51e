package sctp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// soakEnv is the environment variable that runs TestSoak, for how long
// (a time.ParseDuration string: `make soak` sets 10m, CI 60s).
const soakEnv = "USCTP_SOAK"

// The simulated hosts of a soak round: a client at soakClient and a
// server with two addresses, soakServer1 (the primary) and soakServer2.
var (
	soakClient  = netip.MustParseAddrPort("10.0.0.1:9899")
	soakClient2 = netip.MustParseAddrPort("10.0.0.4:9899")
	soakServer1 = netip.MustParseAddrPort("10.0.0.2:9899")
	soakServer2 = netip.MustParseAddrPort("10.0.0.3:9899")
)

// soakUsage is what TestSoak samples between rounds.
type soakUsage struct {
	goroutines int
	heap       uint64 // live heap after two collections
	fds        int    // open file descriptors, -1 where they cannot be counted
}

func (u soakUsage) String() string {
	return fmt.Sprintf("%d goroutines, %.1f MiB heap, %d fds", u.goroutines, float64(u.heap)/(1<<20), u.fds)
}

// soakSample measures the process's goroutines, live heap and open file
// descriptors.
func soakSample() soakUsage {
	runtime.GC()
	runtime.GC() // the second empties the sync.Pools the first moved to their victim caches
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	u := soakUsage{goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc, fds: -1}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		u.fds = len(fds)
	}
	return u
}

// TestSoak runs, for the duration in USCTP_SOAK, rounds of mixed traffic
// on the simulated network (soakRound: loss, reordering, duplication,
// stream resets, multi-homing failover, a peer restart, an abort and a
// graceful shutdown, each round with its own seed), checking that every
// message arrives exactly once and intact, in order where it was sent
// ordered, and that the process's goroutines, live heap and open file
// descriptors do not grow from the end of the first round to the end of
// the last (sampled between rounds, compared with a tolerance for the
// runtime's own caches). Without USCTP_SOAK it is skipped.
func TestSoak(t *testing.T) {
	env := os.Getenv(soakEnv)
	if env == "" {
		t.Skipf("set %s to a duration to run it (make soak)", soakEnv)
	}
	dur, err := time.ParseDuration(env)
	if err != nil {
		t.Fatalf("%s=%q: %v", soakEnv, env, err)
	}
	// USCTP_SOAK_SEED=N starts from the round of seed N (seeds go up by
	// one a round): the way to run a failed round again.
	first := uint64(1)
	if v := os.Getenv("USCTP_SOAK_SEED"); v != "" {
		if first, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("USCTP_SOAK_SEED=%q: %v", v, err)
		}
	}
	start := time.Now()
	var total soakTotals
	var base soakUsage
	lastSample := start
	var seed uint64
	defer func() {
		// A round's failure ends the test inside its bubble: say which.
		if t.Failed() {
			t.Logf("the round of seed %d failed (USCTP_SOAK_SEED=%d runs it again)", seed, seed)
		}
	}()
	for round := 0; round < 2 || time.Since(start) < dur; round++ {
		seed = first + uint64(round)
		r := soakRound(t, seed)
		if t.Failed() {
			t.FailNow()
		}
		total.add(r)
		switch {
		case round == 0:
			base = soakSample()
			t.Logf("after the first round: %v", base)
		case time.Since(lastSample) >= dur/20:
			u := soakSample()
			lastSample = time.Now()
			t.Logf("%v, %d rounds: %v; %v", time.Since(start).Round(time.Second), round+1, u, total)
		}
	}
	end := soakSample()
	t.Logf("end, %v: %v; %v", time.Since(start).Round(time.Second), end, total)
	// The end of the run against its first round: a leak of one
	// goroutine, descriptor or association per round shows as hundreds.
	if end.goroutines > base.goroutines+2 {
		t.Errorf("goroutines grew from %d to %d", base.goroutines, end.goroutines)
	}
	if base.fds >= 0 && end.fds > base.fds+2 {
		t.Errorf("open file descriptors grew from %d to %d", base.fds, end.fds)
	}
	if end.heap > base.heap+base.heap/2+4<<20 {
		t.Errorf("live heap grew from %.1f MiB to %.1f MiB", float64(base.heap)/(1<<20), float64(end.heap)/(1<<20))
	}
}

// soakTotals counts what soak rounds did.
type soakTotals struct {
	rounds, msgs, bytes, restarts, aborts, failovers, resets int
}

func (s *soakTotals) add(o soakTotals) {
	s.rounds += o.rounds
	s.msgs += o.msgs
	s.bytes += o.bytes
	s.restarts += o.restarts
	s.aborts += o.aborts
	s.failovers += o.failovers
	s.resets += o.resets
}

func (s soakTotals) String() string {
	return fmt.Sprintf("%d rounds, %d messages, %.1f MB, %d stream resets, %d failovers, %d restarts, %d aborts",
		s.rounds, s.msgs, float64(s.bytes)/1e6, s.resets, s.failovers, s.restarts, s.aborts)
}

// soakStreams is the number of streams each way.
const soakStreams = 8

// soakRound runs one round in a synctest bubble over a link whose delay,
// loss, duplication and reordering the seed picks: a client dials the
// two-address server and both exchange a batch of messages both ways;
// the client resets some of its outgoing streams and they exchange
// another; the client's path to the primary address fails and they
// exchange a third over the other; the client crashes (its ABORT lost)
// and comes back from the same address and port, the server's
// association sees the restart and they exchange a fourth; the new
// client aborts; a third association exchanges a fifth batch and one
// side, picked by the seed, shuts it down gracefully.
func soakRound(t *testing.T, seed uint64) soakTotals {
	var tot soakTotals
	bubble(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(seed, 0x50a4))
		link := simnet.LinkConfig{
			Delay:   time.Duration(1+rng.IntN(20)) * time.Millisecond,
			Jitter:  time.Duration(rng.IntN(2)) * time.Millisecond,
			Loss:    rng.Float64() * 0.03,
			Dup:     rng.Float64() * 0.02,
			Reorder: rng.Float64() * 0.03,
		}
		n := simconn.New(seed, simconn.Config{Link: link, Overhead: 28})
		sconn, err := n.Listen(soakServer1)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Alias(sconn, soakServer2); err != nil {
			t.Fatal(err)
		}
		cfg := func() *Config {
			return &Config{OutStreams: soakStreams, InStreams: soakStreams, Paths: Paths{Multihoming: true}}
		}
		l, err := listenAddrsOn([]netip.Addr{soakServer1.Addr(), soakServer2.Addr()}, 5000, cfg(), sconn)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		var eps []*Endpoint       // the client's, closed when the round ends or fails
		var assocs []*Association // aborted when the round fails
		defer func() {
			if t.Failed() {
				for _, a := range assocs {
					a.Abort("soak: failed")
				}
			}
			for _, e := range eps {
				e.Close()
			}
		}()
		dial := func(lport uint16) (*Endpoint, *Association, *Association) {
			t.Helper()
			conn, err := n.Listen(soakClient)
			if err != nil {
				t.Fatal(err)
			}
			if err := n.Alias(conn, soakClient2); err != nil {
				t.Fatal(err)
			}
			c := cfg()
			c.LocalPort = lport
			c.LocalAddrs = []netip.Addr{soakClient.Addr(), soakClient2.Addr()}
			e, err := newEndpointOn(netip.Addr{}, c, conn)
			if err != nil {
				t.Fatal(err)
			}
			eps = append(eps, e)
			a, err := e.Dial(ctx, "10.0.0.2:5000")
			if err != nil {
				t.Fatal(err)
			}
			assocs = append(assocs, a)
			if lport != 0 {
				return e, a, nil // a restart: the server's association is the old one
			}
			s, err := l.AcceptContext(ctx)
			if err != nil {
				t.Fatal(err)
			}
			assocs = append(assocs, s)
			return e, a, s
		}
		batch := 0
		exchange := func(c, s *Association, restarted bool) {
			t.Helper()
			batch++
			m := 50 + rng.IntN(150)
			msgs, nb := soakExchange(t, seed, batch, m, c, s, restarted)
			tot.msgs += msgs
			tot.bytes += nb
		}

		ce, c, s := dial(0)
		exchange(c, s, false)
		time.Sleep(10 * time.Second) // idle: HEARTBEATs confirm the other addresses

		// Stream resets: some of the client's outgoing streams start
		// their sequence numbers again.
		var sids []uint16
		for sid := range uint16(soakStreams) {
			if rng.IntN(2) == 0 {
				sids = append(sids, sid)
			}
		}
		if err := c.ResetStreams(ctx, DirOutgoing, sids...); err != nil {
			t.Fatalf("reset streams %v: %v", sids, err)
		}
		tot.resets++
		exchange(c, s, false)

		// Failover: the server's path to the client's primary address fails.
		n.SetLink(soakServer1, soakClient, simnet.LinkConfig{Loss: 1})
		exchange(c, s, false)
		n.SetLink(soakServer1, soakClient, link)
		tot.failovers++

		// Restart: the client crashes, its ABORT lost, and comes back
		// from the same port.
		lport := c.LocalAddrs()[0].Port
		n.SetLink(soakClient, soakServer1, simnet.LinkConfig{Loss: 1})
		n.SetLink(soakClient, soakServer2, simnet.LinkConfig{Loss: 1})
		ce.Close()
		n.SetLink(soakClient, soakServer1, link)
		n.SetLink(soakClient, soakServer2, link)
		ce, c, _ = dial(lport)
		for restarted := false; !restarted; {
			select {
			case ev := <-s.Events():
				restarted = ev.Kind == EventRestart
			case <-ctx.Done():
				t.Fatal("no restart event")
			}
		}
		tot.restarts++
		exchange(c, s, true)

		// Abort: the server's read ends with the peer's ABORT.
		c.Abort("soak")
		if _, _, err := s.ReadMsg(make([]byte, 10)); !errors.Is(err, ErrPeerAborted) {
			t.Fatalf("read after the peer's ABORT: %v", err)
		}
		tot.aborts++
		s.Close()

		// A new association from the same endpoint, shut down by either side.
		c, s, _ = func() (*Association, *Association, error) {
			a, err := ce.Dial(ctx, "10.0.0.2:5000")
			if err != nil {
				t.Fatal(err)
			}
			assocs = append(assocs, a)
			s, err := l.AcceptContext(ctx)
			if err != nil {
				t.Fatal(err)
			}
			assocs = append(assocs, s)
			return a, s, nil
		}()
		exchange(c, s, false)
		closer, other := c, s
		if rng.IntN(2) == 0 {
			closer, other = s, c
		}
		if err := closer.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		if _, _, err := other.ReadMsg(make([]byte, 10)); err != io.EOF {
			t.Fatalf("read after the peer's shutdown: %v", err)
		}
		other.Close()
		ce.Close()
		tot.rounds++
	})
	return tot
}

// soakExchange sends m messages each way between c and s at once, on
// random streams, some unordered, of random sizes up to 3 times the
// link's MTU, and checks that each side reads every message the other
// sent exactly once, intact, and in order on its stream where it was
// sent ordered. It returns the messages and bytes delivered.
//
// restarted says c restarted since the last batch: s's messages of that
// batch the old c had not acknowledged then are sent again to the new c
// (RFC 9260 section 5.2.4, action A: "Any SCTP DATA chunks MAY be
// retained"), and c reads them, intact, before or among the new ones.
func soakExchange(t *testing.T, seed uint64, batch, m int, c, s *Association, restarted bool) (msgs, nbytes int) {
	t.Helper()
	type result struct {
		msgs, bytes int
		err         error
	}
	done := make(chan result, 4)
	for dir, ends := range [][2]*Association{{c, s}, {s, c}} {
		from, to := ends[0], ends[1]
		seed := seed ^ uint64(dir+1)*0x9e3779b97f4a7c15
		retained := restarted && from == s
		go func() { done <- result{err: soakSend(from, seed, batch, m)} }()
		go func() {
			n, b, err := soakRecv(to, seed, batch, m, retained)
			done <- result{msgs: n, bytes: b, err: err}
		}()
	}
	var first error
	for range 4 {
		r := <-done
		if r.err != nil {
		}
		if r.err != nil && first == nil {
			first = r.err
			c.Abort("soak: failed") // ends the other reads and writes
		}
		msgs += r.msgs
		nbytes += r.bytes
	}
	if first != nil {
		t.Fatalf("batch %d: %v", batch, first)
	}
	return msgs, nbytes
}

// soakMsg returns message i of a batch and how it is sent: its length,
// stream and ordering come from seed and i, and it starts with the batch
// and i, so that a message read from another batch or place is told.
func soakMsg(seed uint64, batch, i int) ([]byte, SendInfo) {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	p := make([]byte, 8+rng.IntN(4000))
	binary.BigEndian.PutUint32(p, uint32(batch))
	binary.BigEndian.PutUint32(p[4:], uint32(i))
	for j := 8; j < len(p); j++ {
		p[j] = byte(rng.Uint32())
	}
	return p, SendInfo{Stream: uint16(rng.IntN(soakStreams)), PPID: uint32(i), Unordered: rng.IntN(8) == 0}
}

func soakSend(a *Association, seed uint64, batch, m int) error {
	for i := range m {
		p, info := soakMsg(seed, batch, i)
		if _, err := a.WriteMsg(p, info); err != nil {
			return fmt.Errorf("write %d: %w", i, err)
		}
	}
	return nil
}

// soakRecv reads the m messages of a batch sent by soakSend with seed,
// checking each; with retained, it also takes messages of the batch
// before, if intact, and does not count them.
func soakRecv(a *Association, seed uint64, batch, m int, retained bool) (msgs, nbytes int, err error) {
	buf := make([]byte, 8192)
	seen := make([]bool, m)
	last := [soakStreams]int{}
	for i := range last {
		last[i] = -1
	}
	for msgs < m {
		n, info, err := a.ReadMsg(buf)
		if err != nil {
			return msgs, nbytes, fmt.Errorf("read after %d messages: %w", msgs, err)
		}
		if retained && n >= 8 && int(binary.BigEndian.Uint32(buf)) == batch-1 {
			old, _ := soakMsg(seed, batch-1, int(info.PPID))
			if !info.EOR || !bytes.Equal(buf[:n], old) {
				return msgs, nbytes, fmt.Errorf("message %d of the batch before the restart: %d bytes, want %d", info.PPID, n, len(old))
			}
			continue
		}
		i := int(info.PPID)
		if i >= m || seen[i] {
			return msgs, nbytes, fmt.Errorf("message %d (PPID) read twice or not sent", i)
		}
		seen[i] = true
		want, winfo := soakMsg(seed, batch, i)
		if !info.EOR || !bytes.Equal(buf[:n], want) || info.Stream != winfo.Stream || info.Unordered != winfo.Unordered {
			var hdr [2]uint32
			if n >= 8 {
				hdr = [2]uint32{binary.BigEndian.Uint32(buf), binary.BigEndian.Uint32(buf[4:])}
			}
			return msgs, nbytes, fmt.Errorf("message %d: %d bytes on stream %d (unordered %v, EOR %v, header batch %d message %d), want %d on %d (unordered %v)",
				i, n, info.Stream, info.Unordered, info.EOR, hdr[0], hdr[1], len(want), winfo.Stream, winfo.Unordered)
		}
		if !winfo.Unordered {
			if last[info.Stream] > i {
				return msgs, nbytes, fmt.Errorf("message %d on stream %d after %d", i, info.Stream, last[info.Stream])
			}
			last[info.Stream] = i
		}
		msgs++
		nbytes += n
	}
	return msgs, nbytes, nil
}
