//go:build linux

package netio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

// TestBusyPollAdaptive walks the policy: a read polls only after a wait
// that ended within the budget and brought less than pollBytes, once per
// read, and stops polling after a wait that was longer or a large batch.
func TestBusyPollAdaptive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := busyPoll{budget: 50 * time.Microsecond}
		// read waits for data: cold at first, so it sleeps at once.
		read := func(wait time.Duration) (polled bool) {
			p.reset()
			until := p.empty()
			if !p.empty().IsZero() {
				t.Fatal("a second empty socket in one read polls again")
			}
			time.Sleep(wait)
			p.arrived(100)
			return !until.IsZero()
		}
		if read(10 * time.Microsecond) {
			t.Fatal("the first read polled")
		}
		if !read(10 * time.Microsecond) {
			t.Fatal("no poll after a 10µs wait")
		}
		if !read(50 * time.Microsecond) {
			t.Fatal("no poll after a 10µs wait")
		}
		if !read(80 * time.Microsecond) {
			t.Fatal("no poll after a 50µs wait (the budget)")
		}
		if read(10 * time.Microsecond) {
			t.Fatal("a poll after an 80µs wait")
		}
		if !read(time.Microsecond) {
			t.Fatal("no poll after a short wait that followed a long one")
		}
		// A read that finds data at once changes nothing.
		p.reset()
		p.arrived(100)
		if !read(time.Second) {
			t.Fatal("a read without a wait cooled the socket")
		}
		if read(0) {
			t.Fatal("a poll after a second of waiting")
		}
		// A large batch, waited for or not, cools it: bulk data.
		read(0)
		p.reset()
		p.arrived(pollBytes)
		if read(0) {
			t.Fatal("a poll after a read of a large batch")
		}
		if !read(0) {
			t.Fatal("no poll after a short wait for a small batch")
		}

		off := busyPoll{}
		off.hot = true
		off.reset()
		if !off.empty().IsZero() {
			t.Fatal("a zero budget polls")
		}

		p.reset()
		if p.kicked() {
			t.Fatal("kicked before interrupt")
		}
		p.interrupt()
		if !p.kicked() {
			t.Fatal("interrupt did not kick the read")
		}
		p.reset()
		if p.kicked() {
			t.Fatal("a kick outlived its read")
		}
	})
}

func TestPollBudgetOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if d := pollBudget(time.Millisecond); d != 0 {
		t.Errorf("pollBudget with GOMAXPROCS 1 = %v, want 0", d)
	}
	runtime.GOMAXPROCS(2)
	if d := pollBudget(time.Millisecond); d != time.Millisecond {
		t.Errorf("pollBudget with GOMAXPROCS 2 = %v, want 1ms", d)
	}
	if d := pollBudget(-time.Millisecond); d != 0 {
		t.Errorf("pollBudget(-1ms) = %v, want 0", d)
	}
}

// echo answers every datagram b receives until b closes.
func echo(b *UDPConn) {
	pkts := newPackets(8, 2048)
	for {
		n, err := b.ReadBatch(pkts)
		if err != nil {
			return
		}
		if _, err := b.WriteBatch(pkts[:n]); err != nil {
			return
		}
	}
}

// echoTrip sends one datagram from a to dst and reads its echo.
func echoTrip(t testing.TB, a *UDPConn, dst netip.AddrPort, seq int) {
	t.Helper()
	out := newPackets(1, 64)
	fill(out, seq, 64, dst)
	if _, err := a.WriteBatch(out); err != nil {
		t.Fatal(err)
	}
	in := newPackets(1, 2048)
	if _, err := a.ReadBatch(in); err != nil {
		t.Fatal(err)
	}
	if in[0].N != 64 || in[0].Buf[7] != byte(seq) {
		t.Fatalf("round trip %d: got %d bytes %x", seq, in[0].N, in[0].Buf[:8])
	}
}

// TestBusyPollPingPong: request/response traffic over a socket with a
// budget far above any wait makes its reads that find the socket empty
// poll, and every poll finds the answer; the peer without a budget never
// polls.
func TestBusyPollPingPong(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("busy polling is off with GOMAXPROCS 1")
	}
	for _, gro := range []bool{false, true} {
		a, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), GRO: gro, BusyPoll: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), GRO: gro})
		if err != nil {
			t.Fatal(err)
		}
		go echo(b)
		// A read polls when it finds the socket empty; on a loaded machine
		// the echo often arrives before the read starts, so the trips go
		// on until 20 reads polled.
		trips := 0
		for ; a.Stats().BusyPolls < 20 && trips < 20000; trips++ {
			echoTrip(t, a, b.LocalAddr(), trips)
		}
		as, bs := a.Stats(), b.Stats()
		a.Close()
		b.Close()
		if as.BusyPolls < 20 || as.BusyPollHits != as.BusyPolls {
			t.Errorf("GRO %v: %d round trips, busy polls %d, %d found data; want 20, all", gro, trips, as.BusyPolls, as.BusyPollHits)
		}
		if bs.BusyPolls != 0 {
			t.Errorf("GRO %v: the socket without a budget polled %d times", gro, bs.BusyPolls)
		}
	}
}

// TestBusyPollInterrupted: a read deadline in the past and Close end a
// read that is polling, as they end one that sleeps, even with a budget
// of an hour.
func TestBusyPollInterrupted(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("busy polling is off with GOMAXPROCS 1")
	}
	a, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), BusyPoll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	go echo(b)

	// pollingRead starts a read that polls the empty socket and returns
	// its result channel once the poll runs. A socket is hot only after a
	// read that waited for its data: when the last one found its data
	// already there (a loaded machine ran the echo first), the new read
	// sleeps instead of polling; an echo then wakes it, after a wait far
	// below the hour, and the next read polls.
	pollingRead := func() chan error {
		for seq := 1; ; seq++ {
			polls := a.Stats().BusyPolls
			errc := make(chan error, 1)
			go func() {
				_, err := a.ReadBatch(newPackets(1, 2048))
				errc <- err
			}()
			for i := 0; i < 100000 && a.Stats().BusyPolls == polls; i++ {
				runtime.Gosched()
			}
			if a.Stats().BusyPolls != polls {
				return errc
			}
			out := newPackets(1, 64)
			fill(out, seq, 64, b.LocalAddr())
			if _, err := a.WriteBatch(out); err != nil {
				t.Fatal(err)
			}
			if err := <-errc; err != nil {
				t.Fatalf("read woken by an echo: %v", err)
			}
			if seq == 100 {
				t.Fatal("no read polled after 100 tries")
			}
		}
	}
	errc := pollingRead()
	a.SetReadDeadline(time.Unix(1, 0))
	if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("polling read after a past deadline: %v", err)
	}
	a.SetReadDeadline(time.Time{})
	// The read ended within its hour: the socket is still hot.
	errc = pollingRead()
	a.Close()
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("polling read after Close: %v", err)
	}
}
