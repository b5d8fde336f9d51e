package transfer

import (
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
)

// TestFragPointFollowsPeerWindow: new chunks carry at most a quarter of the
// largest window the peer advertised (never less than minWinFragPoint), a
// packet then at most two of them, and a SACK advertising a larger window
// lets chunks grow back to what the path MTU allows. With a window large
// next to the MTU nothing changes.
func TestFragPointFollowsPeerWindow(t *testing.T) {
	const mtu = 65487
	x := newTx(t, Config{MTU: mtu, PeerRwnd: 32 << 10, Buffers: api.Buffers{SendBuffer: 1 << 20}, Paths: api.Paths{MaxBurst: 100}})
	x.e.path.cwnd = 1 << 20
	x.queue(1, 100000)
	sizes := func(ds []Data) (s []int) {
		for _, d := range ds {
			s = append(s, len(d.Payload))
		}
		return s
	}
	for i := range 2 {
		if got := sizes(x.packet()); len(got) != 2 || got[0] != 8192 || got[1] != 8192 {
			t.Fatalf("packet %d: chunks %v, want two of 8192 bytes (a quarter of the 32 KiB window each)", i, got)
		}
	}
	if got := x.packet(); len(got) != 0 {
		t.Fatalf("%d chunks past the peer's window", len(got))
	}
	// The peer took all four and advertises 1 MiB: chunks follow the MTU.
	x.mustSACK(1003, 1<<20)
	want := (mtu - 12 - 16) &^ 3
	if got := sizes(x.packet()); len(got) != 1 || got[0] != want {
		t.Fatalf("after a 1 MiB window: chunks %v, want one of %d bytes", got, want)
	}
	// A smaller window later does not shrink them again (the largest
	// window advertised bounds them, not the current one).
	x.mustSACK(1004, 32<<10)
	if x.e.send.fragPoint != want {
		t.Fatalf("after a 32 KiB window: fragment point %d, want %d", x.e.send.fragPoint, want)
	}

	for _, tt := range []struct {
		mtu, rwnd, want int
	}{
		{mtu, 1500, minWinFragPoint},        // a tiny window: the floor
		{mtu, 200000, 50000},                // a quarter of the window
		{mtu, 1 << 20, (mtu - 28) &^ 3},     // the MTU
		{DefaultMTU, 32 << 10, 1424},        // a 32 KiB window and 1452-byte packets: the MTU
		{DefaultMTU, 1500, minWinFragPoint}, // the floor, below the MTU
	} {
		x := newTx(t, Config{MTU: tt.mtu, PeerRwnd: uint32(tt.rwnd), Paths: api.Paths{MaxBurst: 100}})
		x.e.path.cwnd = 1 << 20
		x.queue(1, 70000)
		if got := sizes(x.packet()); len(got) == 0 || got[0] != tt.want {
			t.Errorf("MTU %d, peer window %d: chunks %v, want the first of %d bytes", tt.mtu, tt.rwnd, got, tt.want)
		}
	}
}

// TestFragmentsFillPackets: messages longer than the fragment point, queued
// back to back, go out in packets of one size, the last alone shorter: the
// first chunk of each message fills what the tail of the one before left,
// however little, so a run of them stays one UDP GSO datagram. A message
// that fits a packet of its own is not cut into a sliver to fill one.
func TestFragmentsFillPackets(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 4 << 20}, Paths: api.Paths{MaxBurst: 1000}})
	x.e.path.cwnd = 4 << 20
	fp := x.e.send.fragPoint
	full := 16 + fp // one chunk of the fragment point: a full packet
	// Each message's tail leaves less than 512 bytes of its packet free.
	size := 46*fp + fp - 400
	x.queue(4, size)
	var lens []int
	for {
		ds := x.packet()
		if len(ds) == 0 {
			break
		}
		n := 0
		for _, d := range ds {
			n += 16 + (len(d.Payload)+3)&^3
		}
		lens = append(lens, n)
	}
	for i, n := range lens {
		if i < len(lens)-1 && n != full {
			t.Fatalf("packet %d of %d is %d bytes, want %d (sizes %v)", i, len(lens), n, full, lens)
		}
	}
	if want := (4*size + fp - 1) / fp; len(lens) > want+1 {
		t.Errorf("%d packets for 4 messages of %d bytes, want at most %d", len(lens), size, want+1)
	}

	// A message that fits a packet waits for the next one rather than
	// fill the first's rest with a sliver.
	y := newTx(t, Config{Paths: api.Paths{MaxBurst: 1000}})
	y.e.path.cwnd = 1 << 20
	y.queue(1, fp-200)
	y.queue(1, fp-300)
	if ds := y.packet(); len(ds) != 1 || len(ds[0].Payload) != fp-200 {
		t.Fatalf("first packet: %d chunks, want the first message alone", len(ds))
	}
	if ds := y.packet(); len(ds) != 1 || len(ds[0].Payload) != fp-300 || ds[0].Flags&0x3 != 0x3 {
		t.Fatalf("second packet: %d chunks, want the second message whole", len(ds))
	}
}
