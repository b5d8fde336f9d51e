package assoc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// dataBytes returns the user bytes of the DATA and I-DATA chunks of an
// SCTP packet, the size of its largest chunk of either kind, and whether
// it holds I-DATA.
func dataBytes(pkt []byte) (total, largest int, idata bool) {
	for b := pkt[min(12, len(pkt)):]; len(b) >= 4; {
		n := int(binary.BigEndian.Uint16(b[2:]))
		if n < 4 || n > len(b) {
			break
		}
		hdr := 0
		switch b[0] {
		case 0: // DATA
			hdr = 16
		case 64: // I-DATA
			hdr, idata = 20, true
		}
		if hdr > 0 && n > hdr {
			total += n - hdr
			largest = max(largest, n-hdr)
		}
		b = b[min((n+3)&^3, len(b)):]
	}
	return total, largest, idata
}

// TestPMTUSmallPeerWindow: a 64 KB path (PLPMTUD settles on the bound) to
// a peer whose receive buffer is 32 KiB and which, as Linux does, drops a
// whole packet whose DATA its free buffer cannot hold. Chunks cut for the
// PLPMTU alone would be about twice the peer's buffer: dropped every time,
// and a chunk once sent is never cut again, so the transfer would stall
// for good. The fragment point follows the peer's window as well (at most
// a quarter of the largest it advertised) and a packet carries at most two
// such chunks: 150 KB messages arrive byte-exact, the receiver never
// waiting as long as a delayed SACK.
func TestPMTUSmallPeerWindow(t *testing.T) {
	for _, idata := range []bool{false, true} {
		t.Run(map[bool]string{false: "DATA", true: "I-DATA"}[idata], func(t *testing.T) {
			smallPeerWindow(t, idata)
		})
	}
}

// smallPeerWindow is TestPMTUSmallPeerWindow with DATA or I-DATA chunks.
func smallPeerWindow(t *testing.T, idata bool) {
	const (
		ov     = maxOverhead
		bound  = 65535 - ov
		window = 32 << 10
		big    = 150000
		count  = 6
	)
	link := simnet.LinkConfig{Delay: 5 * time.Millisecond}
	p := newPMTUPair(t, 3, link, bound)
	for i := range 2 {
		cfg := p.eps[i].cfg
		cfg.Interleaving = idata
		if i == 1 {
			cfg.RecvBuffer = window
			cfg.RecvBufferMax = 0 // a fixed buffer, as a socket's SO_RCVBUF
		}
		p.eps[i] = NewEndpoint(cfg, p.now)
	}
	dropped, largest, sawIData := 0, 0, false
	p.admit = func(to int, data []byte) bool {
		n, l, id := dataBytes(data)
		sawIData = sawIData || id
		if to != 1 || n == 0 || p.as[1] == nil {
			return true
		}
		largest = max(largest, l)
		if n > p.as[1].data.eng.Info().Rwnd {
			dropped++
			return false
		}
		return true
	}
	start := p.now
	p.connect()
	mtu, st, _ := p.converge(t, start)
	if st != api.PMTUSearchComplete || mtu < bound-4 {
		t.Fatalf("PLPMTU %d (%v), want %d: the test needs 64 KB packets", mtu, st, bound)
	}

	rng := rand.New(rand.NewPCG(19, 19))
	src := make([]byte, count*big)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	var got []byte
	sent := 0
	rbuf := make([]byte, 8<<10) // read in small pieces, as the kernel test's sink
	began, last := p.now, p.now
	var stall time.Duration
	for len(got) < len(src) {
		for sent < len(src) {
			err := p.as[0].send(p.now, 0, 0, false, src[sent:sent+big])
			if errors.Is(err, api.ErrWouldBlock) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			sent += big
		}
		for p.as[1].data.eng.Readable() {
			n, _, err := p.as[1].read(rbuf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rbuf[:n]...)
			stall = max(stall, p.now.Sub(last))
			last = p.now
		}
		if p.as[0].closed || p.as[1].closed {
			t.Fatal("association ended")
		}
		if !p.step() {
			t.Fatal("network idle before the end")
		}
		if d := p.now.Sub(began); d > 2*time.Minute {
			t.Fatalf("%d of %d bytes after %v (largest chunk %d bytes, %d packets dropped by the receiver, T3-rtx expiries %d)",
				len(got), len(src), d, largest, dropped, p.as[0].stats.T3Expiries)
		}
	}
	if !bytes.Equal(got, src) {
		t.Fatal("received bytes differ from the sent ones")
	}
	t.Logf("%d bytes in %v; longest stall %v; largest chunk %d bytes; %d packets dropped by the receiver",
		len(src), p.now.Sub(began), stall, largest, dropped)
	if sawIData != idata {
		t.Fatalf("I-DATA sent: %v, want %v", sawIData, idata)
	}
	if largest > window/4 {
		t.Fatalf("a chunk of %d bytes, over a quarter of the peer's %d-byte window", largest, window)
	}
	// A packet holding the whole window would wait for the peer's
	// delayed SACK (200 ms) on every round trip.
	if stall > 100*time.Millisecond {
		t.Fatalf("the receiver waited %v for data", stall)
	}
}
