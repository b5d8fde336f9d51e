//go:build linux

package netio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/interleave"
)

// groCmsg builds a UDP_GRO control message carrying seg.
func groCmsg(seg uint32) []byte {
	b := make([]byte, unix.CmsgSpace(4))
	c := (*unix.Cmsghdr)(unsafePointer(&b[0]))
	c.Level, c.Type = unix.SOL_UDP, unix.UDP_GRO
	c.SetLen(unix.CmsgLen(4))
	binary.NativeEndian.PutUint32(b[unix.CmsgLen(0):], seg)
	return b
}

func TestGROSegment(t *testing.T) {
	other := make([]byte, unix.CmsgSpace(4))
	c := (*unix.Cmsghdr)(unsafePointer(&other[0]))
	c.Level, c.Type = unix.SOL_IP, unix.IP_TOS
	c.SetLen(unix.CmsgLen(4))
	for _, tc := range []struct {
		name string
		oob  []byte
		n    int
		want int
	}{
		{"none", nil, 3000, 3000},
		{"gro", groCmsg(1452), 2904, 1452},
		{"after-other", append(append([]byte{}, other...), groCmsg(1000)...), 5000, 1000},
		{"zero-seg", groCmsg(0), 700, 700},
		{"short", groCmsg(1452)[:10], 100, 100},
		{"empty-datagram", nil, 0, 1},
	} {
		if got := groSegment(tc.oob, tc.n); got != tc.want {
			t.Errorf("%s: groSegment = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func FuzzGROSegment(f *testing.F) {
	f.Add(groCmsg(1452), 2904)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, oob []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		if s := groSegment(oob, n); s < 1 {
			t.Fatalf("segment %d", s)
		}
	})
}

func unsafePointer(b *byte) unsafe.Pointer { return unsafe.Pointer(b) }

// TestUDPReadBatchView: ReadBatchView delivers the same packets as
// ReadBatch, as views of the GRO buffers when the socket has them, and
// fills the caller's buffers when it does not.
func TestUDPReadBatchView(t *testing.T) {
	for _, gro := range []bool{false, true} {
		a, b := udpPair(t, false, UDPConfig{GRO: gro})
		const total, size = 1000, 1200
		out := newPackets(100, 2048)
		in := newPackets(64, 2048)
		bufs := make([][]byte, len(in))
		for i := range in {
			bufs[i] = in[i].Buf
		}
		views := 0
		for seq := 0; seq < total; seq += len(out) {
			fill(out, seq, size, b.LocalAddr())
			if n, err := a.WriteBatch(out); err != nil || n != len(out) {
				t.Fatalf("WriteBatch = %d, %v", n, err)
			}
			b.SetReadDeadline(time.Now().Add(5 * time.Second))
			for got := 0; got < len(out); {
				for i := range in {
					in[i].Buf = bufs[i]
				}
				n, err := b.ReadBatchView(in)
				if err != nil {
					t.Fatalf("gro %v: ReadBatchView after %d: %v", gro, seq+got, err)
				}
				for i, p := range in[:n] {
					exp := make([]byte, size)
					fill([]Packet{{Buf: exp}}, seq+got+i, size, a.LocalAddr())
					if p.Addr != a.LocalAddr() || !bytes.Equal(p.Data(), exp) {
						t.Fatalf("gro %v: packet %d wrong", gro, seq+got+i)
					}
					if &p.Buf[0] != &bufs[i][0] {
						views++
					}
				}
				got += n
			}
		}
		if b.GRO() != (views > 0) {
			t.Errorf("gro %v (socket %v): %d packets were views", gro, b.GRO(), views)
		}
	}
}

// A GRO socket's views name the buffer they lie in (Packet.Lend); a buffer
// something else still holds a reference to is replaced for the next read,
// so the bytes of packets kept past it stay as they arrived, and an
// unreferenced one is read into again.
func TestUDPReadBatchViewLend(t *testing.T) {
	a, b := udpPair(t, false, UDPConfig{GRO: true})
	if !b.GRO() {
		t.Skip("no UDP GRO")
	}
	const size = 1200
	out := newPackets(20, 2048)
	in := make([]Packet, 64)
	read := func(seq int) []Packet {
		t.Helper()
		got := sendViews(t, a, b, out, in, seq, size)
		for _, p := range got {
			if p.Lend == nil {
				t.Fatal("a view names no buffer")
			}
			lb := p.Lend.Bytes()
			if s := uintptr(unsafe.Pointer(&p.Buf[0])) - uintptr(unsafe.Pointer(&lb[0])); s >= uintptr(len(lb)) {
				t.Fatal("a view lies outside the buffer it names")
			}
		}
		return got
	}
	first := read(0)
	kept := first[0].Lend
	var pool interleave.Pool // a receiver's, lending from kept
	f := pool.Lend(first[0].Data(), kept)
	if f == nil {
		f = pool.Lend(first[0].Data()[1:], kept)
	}
	if f == nil {
		t.Fatal("not lent")
	}
	want := append([]byte(nil), f.Data...)
	seen := map[*interleave.RecvBuf]bool{}
	for round := 1; round <= 5; round++ {
		for _, p := range read(round * len(out)) {
			if p.Lend == kept {
				t.Fatalf("round %d: a buffer still referenced was read into", round)
			}
			seen[p.Lend] = true
		}
		if !bytes.Equal(f.Data, want) {
			t.Fatalf("round %d: a kept packet's bytes changed", round)
		}
	}
	// Kept gave way to one fresh buffer; the others were read into again.
	if n := len(b.b.(*batchIO).g.bufs); len(seen) > n {
		t.Fatalf("%d buffers read into, want at most %d", len(seen), n)
	}
	// The socket let go of kept when it replaced it: the fragment's
	// reference was the last, and putting it recycles the buffer.
	bufs := interleave.RecvBufsOut()
	pool.Put(f)
	if n := interleave.RecvBufsOut(); n != bufs-1 {
		t.Fatalf("%d buffers out after the last reference went, want %d", n, bufs-1)
	}
}

// A buffer that holds a small datagram alone is not lent (Packet.Lend
// nil): a fragment referencing it would pin 64 KiB for a packet's bytes
// (lendMinRead). Datagrams a GSO sender coalesced into one read of at
// least lendMinRead bytes are.
func TestUDPReadBatchViewLendsOnlyFullReads(t *testing.T) {
	a, b := udpPair(t, false, UDPConfig{GRO: true})
	if !b.GRO() {
		t.Skip("no UDP GRO")
	}
	in := make([]Packet, 64)
	read := func(out []Packet, seq, size int) []Packet {
		t.Helper()
		got := sendViews(t, a, b, out, in, seq, size)
		for i, p := range got {
			exp := make([]byte, size)
			fill([]Packet{{Buf: exp}}, seq+i, size, a.LocalAddr())
			if !bytes.Equal(p.Data(), exp) {
				t.Fatalf("packet %d wrong", seq+i)
			}
		}
		return got
	}
	for seq := range 5 {
		for _, p := range read(newPackets(1, 2048), seq, 1200) {
			if p.Lend != nil {
				t.Fatal("a lone 1,200-byte datagram's buffer is lent")
			}
		}
	}
	const size = 1400
	burst := newPackets((lendMinRead+size-1)/size, 2048)
	coalesced := 0
	for _, p := range read(burst, 100, size) {
		if p.Lend != nil {
			coalesced++
		}
	}
	if a.GSO() && coalesced != len(burst) {
		// Loopback hands a GSO send to a GRO socket unsplit: one read.
		t.Fatalf("%d of the %d packets of a %d-byte GSO send lent", coalesced, len(burst), len(burst)*size)
	}
}

// sendViews writes out from a to b, filled for sequence number seq with
// size-byte packets, and returns what b reads as views into in's slots,
// until as many packets came as were sent.
func sendViews(t *testing.T, a, b *UDPConn, out, in []Packet, seq, size int) []Packet {
	t.Helper()
	fill(out, seq, size, b.LocalAddr())
	if n, err := a.WriteBatch(out); err != nil || n != len(out) {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	var got []Packet
	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	for len(got) < len(out) {
		n, err := b.ReadBatchView(in)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, in[:n]...)
	}
	return got
}

// A GRO socket's reads take groBuffers datagrams until one read fills
// them all (the socket held more: a reader behind its peer); from then on
// they take groMaxBuffers, except that a read waiting on an empty socket
// holds groBuffers. Every datagram still arrives once, intact and in
// order.
func TestUDPReadGROGrowsWhenBehind(t *testing.T) {
	_, b := udpPair(t, false, UDPConfig{GRO: true})
	if !b.GRO() {
		t.Skip("no UDP GRO")
	}
	a, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), NoGSO: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	g := b.b.(*batchIO).g
	in := make([]Packet, 64)
	seq := 0
	const size = 1200
	send := func(n int) {
		t.Helper()
		// NoGSO: one datagram each, which loopback never coalesces.
		out := newPackets(n, size)
		fill(out, seq, size, b.LocalAddr())
		if k, err := a.WriteBatch(out); err != nil || k != n {
			t.Fatalf("WriteBatch = %d, %v", k, err)
		}
		b.SetReadDeadline(time.Now().Add(5 * time.Second))
		for end := seq + n; seq < end; {
			// A view holds until the next read: checked before it.
			k, err := b.ReadBatchView(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range in[:k] {
				if s := seqOf(p.Buf); s != uint32(seq) || p.N != size {
					t.Fatalf("datagram of sequence %d and %d bytes, want %d and %d", s, p.N, seq, size)
				}
				seq++
			}
		}
	}
	send(groBuffers - 1)
	if len(g.bufs) != groBuffers {
		t.Fatalf("after reads short of %d datagrams: %d buffers, want %d", groBuffers, len(g.bufs), groBuffers)
	}
	send(3 * groMaxBuffers)
	if len(g.bufs) != groMaxBuffers {
		t.Fatalf("after a read of %d datagrams: %d buffers, want %d", groBuffers, len(g.bufs), groMaxBuffers)
	}
	calls := b.Stats().RecvCalls
	send(3 * groMaxBuffers)
	// Loopback queues each datagram before its send returns: three reads
	// of groMaxBuffers, where groBuffers would take six.
	if d := b.Stats().RecvCalls - calls; d > 4 {
		t.Errorf("%d datagrams took %d reads", 3*groMaxBuffers, d)
	}
	// Caught up: a read that finds the socket empty waits with
	// groBuffers, and the buffers it lets go return to the pool.
	out := interleave.RecvBufsOut()
	b.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := b.ReadBatchView(in); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read of an empty socket: %v", err)
	}
	if len(g.bufs) != groBuffers {
		t.Fatalf("after a read found the socket empty: %d buffers, want %d", len(g.bufs), groBuffers)
	}
	if d := out - interleave.RecvBufsOut(); d != groMaxBuffers-groBuffers {
		t.Errorf("%d buffers returned, want %d", d, groMaxBuffers-groBuffers)
	}
	// Nor do the read's I/O vectors keep them alive past the pool.
	for i, v := range b.b.(*batchIO).r.iov[groBuffers:groMaxBuffers] {
		if v.Base != nil {
			t.Fatalf("I/O vector %d still points at a buffer let go", groBuffers+i)
		}
	}
	// The reads after the wait take groMaxBuffers again at once.
	calls = b.Stats().RecvCalls
	send(3 * groMaxBuffers)
	if d := b.Stats().RecvCalls - calls; d > 4 || len(g.bufs) != groMaxBuffers {
		t.Errorf("after the wait %d datagrams took %d reads, with %d buffers", 3*groMaxBuffers, d, len(g.bufs))
	}
}
