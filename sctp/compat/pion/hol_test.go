package sctp_test

import (
	"bytes"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/sctp"
)

// linkConn is one end of a simulated link for synctest bubbles: each
// direction serializes its packets at rate bytes a second and delivers
// them delay later, in order, as a bottleneck link does.
type linkConn struct {
	*pipeConn
	mu    sync.Mutex
	free  time.Time // when the link is free to serialize the next packet
	rate  float64
	delay time.Duration
	wire  chan timedPacket
}

type timedPacket struct {
	at time.Time
	b  []byte
}

// link returns the two ends of a new link; stop ends its goroutines.
func link(rate float64, delay time.Duration) (a, b *linkConn, stop func()) {
	p0, p1 := pipe()
	a = &linkConn{pipeConn: p0, rate: rate, delay: delay, wire: make(chan timedPacket, 4096)}
	b = &linkConn{pipeConn: p1, rate: rate, delay: delay, wire: make(chan timedPacket, 4096)}
	done := make(chan struct{})
	for _, c := range []*linkConn{a, b} {
		go func() {
			for {
				select {
				case p := <-c.wire:
					select {
					case <-time.After(time.Until(p.at)):
					case <-done:
						return
					}
					c.pipeConn.Write(p.b)
				case <-done:
					return
				}
			}
		}()
	}
	return a, b, func() { close(done) }
}

func (c *linkConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	start := time.Now()
	if c.free.After(start) {
		start = c.free
	}
	c.free = start.Add(time.Duration(float64(len(b)) / c.rate * float64(time.Second)))
	at := c.free.Add(c.delay)
	c.mu.Unlock()
	select {
	case c.wire <- timedPacket{at, append([]byte(nil), b...)}:
	default: // the link's queue is full: lost
	}
	return len(b), nil
}

// holResult is what TestLargeMessageNoHeadOfLine measured: when the
// small message and the large one arrived, from the large one's write.
type holResult struct {
	small, large time.Duration
	interleaved  bool
}

// holRun writes a message of size bytes on stream 1 then a 100-byte one
// on stream 3 over a 10 Mbit/s link with 10 ms of delay each way, after a
// warm-up that opens the congestion window, and returns when each arrived.
func holRun(t *testing.T, interleave bool, size int) holResult {
	var r holResult
	synctest.Test(t, func(t *testing.T) {
		c0, c1, stop := link(1.25e6, 10*time.Millisecond)
		defer stop()
		opts := []sctp.ClientOption{sctp.WithEnableInterleaving(interleave), sctp.WithMaxMessageSize(1 << 30)}
		pairOver(t, c0, c1, opts, func(t *testing.T, a0, a1 *sctp.Association) {
			if got := a0.MaxMessageSize(); got != 1<<30 {
				t.Errorf("MaxMessageSize %d, want 1 GiB", got)
			}
			md, _ := a0.Metadata()
			r.interleaved = md.MessageInterleavingEnabled
			large, err := a0.OpenStream(1, sctp.PayloadTypeWebRTCBinary)
			if err != nil {
				t.Fatal(err)
			}
			small, err := a0.OpenStream(3, sctp.PayloadTypeWebRTCBinary)
			if err != nil {
				t.Fatal(err)
			}
			arrived := make(chan uint16, 16)
			go func() {
				for {
					s, err := a1.AcceptStream()
					if err != nil {
						return
					}
					go func() {
						buf := make([]byte, size+1)
						for {
							n, err := s.Read(buf[:cap(buf)])
							if err != nil {
								return
							}
							if s.StreamIdentifier() == 1 && n == size && !bytes.Equal(buf[:n], bytes.Repeat([]byte{1}, size)) {
								t.Errorf("large message corrupted")
							}
							arrived <- s.StreamIdentifier()
						}
					}()
				}
			}()
			// Warm-up: 2 MB on stream 1 in 64 KiB messages, read at the
			// other end, so that the window is not what limits the test.
			for range 32 {
				if _, err := large.Write(make([]byte, 64<<10)); err != nil {
					t.Fatal(err)
				}
			}
			for range 32 {
				<-arrived
			}
			time.Sleep(time.Second)
			start := time.Now()
			if _, err := large.Write(bytes.Repeat([]byte{1}, size)); err != nil {
				t.Fatal(err)
			}
			if _, err := small.Write([]byte("small message on another channel")[:32]); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				switch <-arrived {
				case 1:
					r.large = time.Since(start)
				case 3:
					r.small = time.Since(start)
				}
			}
		})
	})
	return r
}

// TestLargeMessageNoHeadOfLine writes a 256 KiB message (Chromium's
// max-message-size) on one channel then a small message on another, over
// a 10 Mbit/s link with a 20 ms round trip, with max-message-size 1 GiB
// (Firefox's) accepted. With I-DATA (offered by default, as pion does)
// the scheduler interleaves the small message with the large one's
// fragments: it arrives within a few round trips, long before the large
// message. With DATA (interleaving off at either end) RFC 9260 section
// 6.9 gives a message's fragments consecutive TSNs, so the small message
// waits behind the whole large one; the test measures and logs both. A 4
// MiB message (four times the receive buffer) with I-DATA shows the same.
func TestLargeMessageNoHeadOfLine(t *testing.T) {
	const size = 256 << 10
	idata := holRun(t, true, size)
	data := holRun(t, false, size)
	huge := holRun(t, true, 4<<20)
	t.Logf("256 KiB on channel A then 32 bytes on channel B, 10 Mbit/s, 20 ms RTT: "+
		"I-DATA: B after %v, A after %v; DATA: B after %v, A after %v; 4 MiB on A with I-DATA: B after %v, A after %v",
		idata.small, idata.large, data.small, data.large, huge.small, huge.large)
	if !idata.interleaved || data.interleaved {
		t.Fatalf("interleaving negotiated: %v with I-DATA offered, %v without", idata.interleaved, data.interleaved)
	}
	// Serializing 256 KiB takes 210 ms: with I-DATA the small message
	// must not wait for it.
	for _, r := range []holResult{idata, huge} {
		if r.small > 60*time.Millisecond || r.small > r.large/3 {
			t.Errorf("with I-DATA the small message took %v (the large one %v)", r.small, r.large)
		}
	}
	if data.small < data.large-20*time.Millisecond {
		t.Errorf("with DATA the small message arrived after %v, before the large one (%v): fragments interleaved", data.small, data.large)
	}
}
