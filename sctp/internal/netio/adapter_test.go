package netio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"
)

// opaquePacketConn hides the concrete type so the generic path is used.
type opaquePacketConn struct{ net.PacketConn }

func TestAdapterPipe(t *testing.T) {
	p1, p2 := net.Pipe()
	a, b := NewConnAdapter(p1, AdapterConfig{}), NewConnAdapter(p2, AdapterConfig{Overhead: 37})
	defer a.Close()
	defer b.Close()
	if b.Overhead(netip.Addr{}) != 37 || a.Overhead(netip.Addr{}) != 0 {
		t.Errorf("Overhead = %d, %d", a.Overhead(netip.Addr{}), b.Overhead(netip.Addr{}))
	}
	const total, size = 100, 500
	go func() {
		pkts := newPackets(10, 1024)
		for seq := 0; seq < total; seq += len(pkts) {
			fill(pkts, seq, size, netip.AddrPort{})
			if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
				t.Errorf("WriteBatch = %d, %v", n, err)
				return
			}
		}
	}()
	recvAll(t, b, total, size, netip.AddrPort{})

	// Deadline, then Close, unblock a reader.
	b.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := b.ReadBatch(newPackets(1, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("ReadBatch past deadline: %v", err)
	}
	b.SetReadDeadline(time.Time{})
	errc := make(chan error)
	go func() { _, err := b.ReadBatch(newPackets(1, 10)); errc <- err }()
	b.Close()
	if err := <-errc; !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrClosed) && err == nil {
		t.Errorf("ReadBatch after Close: %v", err)
	}
}

func TestAdapterPacketConn(t *testing.T) {
	for _, opaque := range []bool{false, true} {
		var cs [2]*Adapter
		for i := range cs {
			pc, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			pc.(*net.UDPConn).SetReadBuffer(4 << 20) // the test sends in bursts
			if opaque {
				pc = opaquePacketConn{pc}
			}
			cs[i] = NewAdapter(pc, AdapterConfig{})
			defer cs[i].Close()
		}
		a, b := cs[0], cs[1]
		if got := a.Overhead(loopback(false)); got != 28 {
			t.Errorf("Overhead = %d, want 28", got)
		}
		const total, size = 200, 1200
		pkts := newPackets(20, 2048)
		for seq := 0; seq < total; seq += len(pkts) {
			fill(pkts, seq, size, b.LocalAddr())
			if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
				t.Fatalf("WriteBatch = %d, %v", n, err)
			}
			recvAll(t, b, len(pkts), size, a.LocalAddr())
		}
		// Reply to the zero address: the last peer read from.
		fill(pkts[:1], 3, 64, netip.AddrPort{})
		if opaque {
			if _, err := b.WriteBatch(pkts[:1]); err != nil {
				t.Fatal(err)
			}
			recvAll(t, a, 1, 64, b.LocalAddr())
		}
	}
}
