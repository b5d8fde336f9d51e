package netio

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"syscall"
	"testing"
	"time"
)

// sctpTo returns a packet of 16 bytes whose SCTP common header names
// destination port dst, and whose last byte is tag.
func sctpTo(dst uint16, tag byte) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint16(b[0:], 7000)
	binary.BigEndian.PutUint16(b[2:], dst)
	b[15] = tag
	return b
}

// readTags reads n packets from c and returns their last bytes.
func readTags(t *testing.T, c Conn, n int) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var tags []byte
	pkts := []Packet{{Buf: make([]byte, 2048)}, {Buf: make([]byte, 2048)}}
	for len(tags) < n {
		k, err := c.ReadBatch(pkts[:min(len(pkts), n-len(tags))])
		if err != nil {
			t.Fatalf("read %d of %d packets: %v", len(tags), n, err)
		}
		for _, p := range pkts[:k] {
			tags = append(tags, p.Data()[p.N-1])
		}
	}
	return tags
}

// TestSharedUDPSocket: two views of one UDP socket, opened for SCTP ports
// 5001 and 5002, get the packets of their ports whichever of them reads
// the socket; a packet for a port nobody claims goes to the first view
// still open; ports are claimed once per socket; the socket closes with
// its last view.
func TestSharedUDPSocket(t *testing.T) {
	probe, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.LocalAddr().(*net.UDPAddr).AddrPort()
	probe.Close()
	before := SharedSockets()
	uc := UDPConfig{Addr: addr}
	a, err := OpenSharedUDP(uc, 5001)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenSharedUDP(uc, 5002)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.s != b.s || SharedSockets() != before+1 {
		t.Fatalf("two views opened %d sockets", SharedSockets()-before)
	}
	if a.LocalAddr() != addr {
		t.Fatalf("view on %v, want %v", a.LocalAddr(), addr)
	}

	// Claims.
	if _, err := OpenSharedUDP(uc, 5001); !errors.Is(err, ErrPortInUse) || !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("a second view for port 5001: %v", err)
	}
	if err := b.Claim(5001); !errors.Is(err, ErrPortInUse) {
		t.Fatalf("port 5001 claimed by the other view: %v", err)
	}
	if err := a.Claim(5003); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim(5003); err != nil {
		t.Fatalf("a second claim of one's own port: %v", err)
	}
	a.Release(5003)
	if err := b.Claim(5003); err == nil {
		t.Fatal("port 5003 taken over while still claimed once")
	}
	a.Release(5003)
	if err := b.Claim(5003); err != nil {
		t.Fatalf("port 5003 after its last release: %v", err)
	}

	// Demultiplexing: b reads first, so it leads and queues a's packets.
	peer, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	send := func(dst uint16, tag byte) {
		if _, err := peer.Write(sctpTo(dst, tag)); err != nil {
			t.Fatal(err)
		}
	}
	send(5001, 1)
	send(5002, 2)
	send(6000, 3) // nobody's: the first view's
	send(5003, 4) // b's claim
	if got := readTags(t, b, 2); string(got) != "\x02\x04" {
		t.Fatalf("b read %v, want [2 4]", got)
	}
	if got := readTags(t, a, 2); string(got) != "\x01\x03" {
		t.Fatalf("a read %v, want [1 3]", got)
	}

	// With a closed, b is the first view: it gets nobody's packets.
	a.Close()
	send(6000, 5)
	if got := readTags(t, b, 1); string(got) != "\x05" {
		t.Fatalf("b read %v, want [5]", got)
	}
	if _, err := a.ReadBatch([]Packet{{Buf: make([]byte, 100)}}); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a closed view: %v", err)
	}
	b.Close()
	if SharedSockets() != before {
		t.Fatal("the shared socket outlived its last view")
	}
	c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatalf("the address after the last view closed: %v", err)
	}
	c.Close()
}

// TestSharedConnDeadline: a view's read deadline unblocks its reader
// whether or not it leads, and a past one fails at once.
func TestSharedConnDeadline(t *testing.T) {
	uc := UDPConfig{Addr: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)}
	probe, err := ListenUDP(uc)
	if err != nil {
		t.Fatal(err)
	}
	uc.Addr = probe.LocalAddr()
	probe.Close()
	a, err := OpenSharedUDP(uc, 5001)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenSharedUDP(uc, 5002)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pkts := []Packet{{Buf: make([]byte, 100)}}
	a.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := a.ReadBatch(pkts); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v", err)
	}
	errc := make(chan error, 2)
	for _, c := range []*SharedConn{a, b} {
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		go func() {
			_, err := c.ReadBatch([]Packet{{Buf: make([]byte, 100)}})
			errc <- err
		}()
	}
	for range 2 {
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("deadline: %v", err)
		}
	}
}
