package simconn

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"slices"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

var (
	addrA = netip.MustParseAddrPort("10.0.0.1:9899")
	addrB = netip.MustParseAddrPort("10.0.0.2:9899")
)

func newPair(t testing.TB, seed uint64, cfg Config) (*Network, *Conn, *Conn) {
	t.Helper()
	n := New(seed, cfg)
	a, err := n.Listen(addrA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.Listen(addrB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return n, a, b
}

func packets(n, size int) []netio.Packet {
	p := make([]netio.Packet, n)
	for i := range p {
		p[i].Buf = make([]byte, size)
	}
	return p
}

// send writes count numbered packets of size bytes from c to dst.
func send(t testing.TB, c *Conn, dst netip.AddrPort, first, count, size int) {
	t.Helper()
	pkts := packets(count, size)
	for i := range pkts {
		binary.BigEndian.PutUint32(pkts[i].Buf, uint32(first+i))
		pkts[i].N, pkts[i].Addr = size, dst
	}
	if n, err := c.WriteBatch(pkts); err != nil || n != count {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
}

// recvUntil reads numbered packets until the deadline passes.
func recvUntil(t testing.TB, c *Conn, d time.Duration) []uint32 {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	var got []uint32
	in := packets(8, 2048)
	for {
		n, err := c.ReadBatch(in)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range in[:n] {
			got = append(got, binary.BigEndian.Uint32(p.Buf))
		}
	}
}

func TestDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, a, b := newPair(t, 1, Config{Link: simnet.LinkConfig{Delay: 10 * time.Millisecond}, Overhead: 28})
		if a.Overhead(addrB.Addr()) != 28 || a.LocalAddr() != addrA {
			t.Errorf("Overhead %d, LocalAddr %v", a.Overhead(addrB.Addr()), a.LocalAddr())
		}
		start := time.Now()
		send(t, a, addrB, 0, 20, 1000)
		in := packets(64, 2048)
		got := 0
		for got < 20 {
			n, err := b.ReadBatch(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range in[:n] {
				if p.Addr != addrA || p.N != 1000 || binary.BigEndian.Uint32(p.Buf) != uint32(got) {
					t.Fatalf("packet %d: from %v, %d bytes, seq %d", got, p.Addr, p.N, binary.BigEndian.Uint32(p.Buf))
				}
				got++
			}
		}
		if el := time.Since(start); el != 10*time.Millisecond {
			t.Errorf("delivered after %v, want 10ms", el)
		}
	})
}

// impaired runs one exchange on a lossy, duplicating, reordering link
// and returns what arrived, in order.
func impaired(t *testing.T, seed uint64) ([]uint32, simnet.LinkStats) {
	var got []uint32
	var st simnet.LinkStats
	synctest.Test(t, func(t *testing.T) {
		n, a, b := newPair(t, seed, Config{Link: simnet.LinkConfig{
			Delay: 5 * time.Millisecond, Jitter: 2 * time.Millisecond,
			Loss: 0.1, Dup: 0.05, Reorder: 0.1, MTU: 1200,
		}})
		for i := range 50 {
			send(t, a, addrB, i*4, 4, 500)
			time.Sleep(time.Millisecond)
		}
		send(t, a, addrB, 1000, 1, 1300) // over the MTU
		got = recvUntil(t, b, time.Second)
		st = n.LinkStats(addrA, addrB)
	})
	return got, st
}

func TestImpairmentDeterministic(t *testing.T) {
	got1, st1 := impaired(t, 7)
	got2, st2 := impaired(t, 7)
	if !slices.Equal(got1, got2) || st1 != st2 {
		t.Fatalf("same seed, different runs:\n%v %+v\n%v %+v", got1, st1, got2, st2)
	}
	got3, _ := impaired(t, 8)
	if slices.Equal(got1, got3) {
		t.Errorf("different seeds, same run")
	}
	if st1.Lost == 0 || st1.Duplicated == 0 || st1.Reordered == 0 || st1.TooBig != 1 {
		t.Errorf("impairments not exercised: %+v", st1)
	}
	if want := int(st1.Sent - st1.Lost - st1.TooBig + st1.Duplicated); len(got1) != want {
		t.Errorf("received %d, want %d from %+v", len(got1), want, st1)
	}
	if slices.IsSorted(got1) {
		t.Errorf("no reordering seen")
	}
	if slices.Contains(got1, 1000) {
		t.Errorf("packet over the MTU delivered")
	}
}

func TestDeadlineAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, a, b := newPair(t, 1, Config{})
		start := time.Now()
		b.SetReadDeadline(start.Add(5 * time.Millisecond))
		if _, err := b.ReadBatch(packets(1, 100)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ReadBatch: %v", err)
		}
		if el := time.Since(start); el != 5*time.Millisecond {
			t.Errorf("deadline after %v", el)
		}
		// Moving the deadline into the past wakes a blocked reader.
		b.SetReadDeadline(time.Time{})
		errc := make(chan error)
		go func() { _, err := b.ReadBatch(packets(1, 100)); errc <- err }()
		synctest.Wait()
		b.SetReadDeadline(time.Now().Add(-time.Second))
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ReadBatch: %v", err)
		}
		// Close wakes a blocked reader.
		b.SetReadDeadline(time.Time{})
		go func() { _, err := b.ReadBatch(packets(1, 100)); errc <- err }()
		synctest.Wait()
		b.Close()
		if err := <-errc; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("ReadBatch after Close: %v", err)
		}
		if _, err := b.WriteBatch(packets(1, 10)); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("WriteBatch after Close: %v", err)
		}
		// Packets to a closed Conn count as no route.
		send(t, a, addrB, 0, 1, 10)
		time.Sleep(time.Millisecond)
		if got := a.n.NoRoute(); got != 1 {
			t.Errorf("NoRoute = %d", got)
		}
	})
}

func TestTooLargeForBufferDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, a, b := newPair(t, 1, Config{})
		send(t, a, addrB, 0, 1, 3000) // recvUntil reads into 2048 bytes
		send(t, a, addrB, 1, 1, 100)
		got := recvUntil(t, b, time.Second)
		if !slices.Equal(got, []uint32{1}) || b.Dropped() != 1 {
			t.Errorf("got %v, dropped %d", got, b.Dropped())
		}
	})
}

func TestPerLinkConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, a, b := newPair(t, 1, Config{Link: simnet.LinkConfig{Delay: time.Millisecond}})
		n.SetLink(addrB, addrA, simnet.LinkConfig{Delay: 30 * time.Millisecond})
		start := time.Now()
		send(t, b, addrA, 0, 1, 100)
		if got := recvUntil(t, a, 29*time.Millisecond); len(got) != 0 {
			t.Errorf("arrived before 30ms")
		}
		if got := recvUntil(t, a, time.Second); len(got) != 1 || time.Since(start) != 29*time.Millisecond+time.Second {
			t.Errorf("got %v at %v", got, time.Since(start))
		}
		if _, err := n.Listen(addrA); err == nil {
			t.Errorf("Listen on a used address succeeded")
		}
	})
}

// TestNoAllocsSteadyState: sending, delivering and reading packets
// reuses the network's packet records and buffers.
func TestNoAllocsSteadyState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, a, b := newPair(t, 1, Config{Link: simnet.LinkConfig{Delay: time.Millisecond}})
		out := packets(16, 1500)
		for i := range out {
			out[i].N, out[i].Addr = 1200, addrB
		}
		in := packets(16, 1500)
		round := func() {
			a.WriteBatch(out)
			for got := 0; got < len(out); {
				n, err := b.ReadBatch(in)
				if err != nil {
					t.Fatal(err)
				}
				got += n
			}
		}
		round()
		if n := testing.AllocsPerRun(20, round); n != 0 {
			t.Errorf("%v allocations per batch of 16", n)
		}
	})
}

// SetNoRoute: a write to the destination fails with the errno for that
// packet, the packets before it are sent; errno 0 routes it again.
func TestNoRoute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, a, b := newPair(t, 1, Config{Link: simnet.LinkConfig{Delay: time.Millisecond}})
		n.SetNoRoute(addrB.Addr(), syscall.ENETUNREACH)
		pkts := packets(2, 64)
		pkts[0].N, pkts[0].Addr = 64, addrA
		pkts[1].N, pkts[1].Addr = 64, addrB
		k, err := a.WriteBatch(pkts)
		if k != 1 || !errors.Is(err, syscall.ENETUNREACH) {
			t.Fatalf("WriteBatch = %d, %v, want 1, ENETUNREACH", k, err)
		}
		n.SetNoRoute(addrB.Addr(), 0)
		send(t, a, addrB, 7, 1, 64)
		if got := recvUntil(t, b, time.Second); !slices.Equal(got, []uint32{7}) {
			t.Fatalf("after the route came back: %v", got)
		}
	})
}

// SetICMPUnreachable: the packet is dropped and its sender reads a
// NoticeUnreachable for the destination, with the errno and the quote.
func TestICMPUnreachable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, a, b := newPair(t, 1, Config{Link: simnet.LinkConfig{Delay: time.Millisecond}})
		n.SetICMPUnreachable(addrB.Addr(), syscall.EHOSTUNREACH)
		send(t, a, addrB, 9, 1, 200)
		in := packets(4, 2048)
		k, err := a.ReadBatch(in)
		if err != nil || k != 1 {
			t.Fatalf("ReadBatch = %d, %v", k, err)
		}
		p := in[0]
		if p.Notice != netio.NoticeUnreachable || p.Errno != syscall.EHOSTUNREACH || p.Addr != addrB ||
			p.N != noticeQuote || binary.BigEndian.Uint32(p.Buf) != 9 {
			t.Fatalf("notice %v errno %v from %v, %d bytes", p.Notice, p.Errno, p.Addr, p.N)
		}
		if got := recvUntil(t, b, time.Second); len(got) != 0 {
			t.Fatalf("the destination received %v", got)
		}
	})
}

// Alias: a Conn receives the packets sent to its alias, from their
// sender's address, while its own packets leave from its address; the
// alias is taken while it exists and freed with the Conn's Close.
func TestAlias(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, a, b := newPair(t, 1, Config{Link: simnet.LinkConfig{Delay: time.Millisecond}})
		addrB2 := netip.MustParseAddrPort("10.0.0.3:9899")
		if err := n.Alias(b, addrB2); err != nil {
			t.Fatal(err)
		}
		if _, err := n.Listen(addrB2); err == nil {
			t.Fatal("Listen on an alias succeeded")
		}
		if err := n.Alias(a, addrB); err == nil {
			t.Fatal("Alias of a bound address succeeded")
		}
		send(t, a, addrB2, 1, 1, 64)
		send(t, a, addrB, 2, 1, 64)
		if got := recvUntil(t, b, time.Second); !slices.Equal(got, []uint32{1, 2}) {
			t.Fatalf("b received %v, want [1 2]", got)
		}
		send(t, b, addrA, 3, 1, 64)
		in := packets(1, 2048)
		if k, err := a.ReadBatch(in); k != 1 || err != nil || in[0].Addr != addrB {
			t.Fatalf("a read %d %v from %v, want one from %v", k, err, in[0].Addr, addrB)
		}
		b.Close()
		if c, err := n.Listen(addrB2); err != nil {
			t.Fatalf("Listen on the alias after Close: %v", err)
		} else {
			c.Close()
		}
	})
}
