package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// TestAutotuneGrowsOnlyForReads: autotuning grows the receive buffer for
// what the application reads in a round trip, never for data it holds.
// A peer sends 1-byte first fragments of messages that never complete,
// over 65535 streams, within the window, for 2 s: while the application
// reads nothing the buffer stays; once it reads what it is given (the
// parts of partial deliveries and their ends, a byte each), the buffer
// grows no further than twice what it read in a round trip.
func TestAutotuneGrowsOnlyForReads(t *testing.T) {
	const buffer = 64 << 10
	e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 65535, Buffers: api.Buffers{RecvBuffer: buffer, RecvBufferMax: 16 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	r := &e.recv
	r.win.tune.base = buffer
	one := []byte{1}
	buf := make([]byte, 64<<10)
	now := epoch
	tsn := TSN(1)
	read, reading := 0, false
	for k := range 20000 { // packets, 100 us apart: 2 s
		if k == 10000 {
			if r.win.capacity != buffer || r.stats.RecvBufferGrowths != 0 {
				t.Fatalf("nothing read: buffer %d after %d growths", r.win.capacity, r.stats.RecvBufferGrowths)
			}
			reading = true
		}
		for range 80 {
			i := uint32(tsn - 1)
			d := Data{TSN: tsn, SID: uint16(i % 65535), SSN: uint16(i / 65535), Flags: chunk.FlagBeginning, Payload: one}
			if v, err := r.handleData(now, &d); err != nil {
				t.Fatal(err)
			} else if v != Accepted {
				break // the window is full: as a flow-controlled peer, wait
			}
			tsn++
		}
		r.endPacket(now)
		r.setAdvertised(r.advertise())
		for reading {
			n, _, err := r.read(buf)
			if err != nil {
				break
			}
			read += n
		}
		now = now.Add(100 * time.Microsecond)
	}
	if r.win.capacity > max(buffer, 2*r.win.tune.space) {
		t.Fatalf("buffer %d after %d growths; at most %d read in a round trip", r.win.capacity, r.stats.RecvBufferGrowths, r.win.tune.space)
	}
	t.Logf("%d fragments accepted, %d bytes read, buffer %d, charged %d", tsn-1, read, r.win.capacity, r.charged())
}
