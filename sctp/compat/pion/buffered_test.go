package sctp_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/sctp"
)

// gatedConn is a pipe end whose writes are held while its gate is shut
// and written, in order, when it opens: shut on the receiving end, it
// holds the SACKs, so that a test decides when the sender learns what
// was acknowledged.
type gatedConn struct {
	*pipeConn
	mu   sync.Mutex
	shut bool
	held [][]byte
}

func (c *gatedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shut {
		c.held = append(c.held, append([]byte(nil), b...))
		return len(b), nil
	}
	return c.pipeConn.Write(b)
}

// setShut shuts or opens the gate; opening writes what it held.
func (c *gatedConn) setShut(shut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shut = shut
	if !shut {
		for _, b := range c.held {
			c.pipeConn.Write(b)
		}
		c.held = nil
	}
}

// pionLow is pion/sctp's rule for a stream's buffered amount and its
// callback (stream.go, v1.12.1): a write adds its bytes; the bytes a SACK
// acknowledges come off the stream's count once per SACK; the callback
// runs when that takes the count from above the threshold to it or
// below, with the threshold and callback set at that moment. Setting the
// threshold or the callback never runs it.
type pionLow struct {
	amount, low uint64
	cb          bool
	calls       int
}

// ack applies SACKs that acknowledge n bytes in all, in any number of
// steps: the count only falls, so it crosses the threshold at most once.
func (m *pionLow) ack(n uint64) {
	from := m.amount
	m.amount -= n
	if m.cb && from > m.low && m.amount <= m.low {
		m.calls++
	}
}

// TestBufferedAmountLowAsPion drives one stream's buffered amount through
// writes, threshold and callback changes, and acknowledgements held back
// then released, and checks after every step that BufferedAmount (the
// stream's and the association's) and the callbacks run so far are what
// pion/sctp's rule (pionLow) gives.
func TestBufferedAmountLowAsPion(t *testing.T) {
	for _, tt := range []struct {
		name string
		ops  string // w N: write N bytes; t N: threshold; cb on|off; ack: release the SACKs
	}{
		{"threshold 0", "cb on, w 1000, ack"},
		{"below the threshold from the start", "t 1500, cb on, w 1000, ack"},
		{"one crossing over many SACKs", "t 1000, cb on, w 1200, w 1200, w 1200, w 1200, w 1200, w 1200, w 1200, w 1200, w 1200, w 1200, ack"},
		{"threshold equal to the amount", "t 3000, cb on, w 3000, ack"},
		{"threshold one below the amount", "t 2999, cb on, w 3000, ack"},
		{"threshold raised above the amount", "cb on, w 3000, t 5000, ack"},
		{"threshold lowered below the amount", "t 5000, cb on, w 3000, t 1000, ack"},
		{"callback set while buffered", "w 3000, cb on, ack"},
		{"callback removed while buffered", "cb on, w 3000, cb off, ack"},
		{"two falls", "cb on, w 1000, ack, w 1000, ack"},
		{"fall, rise, fall", "t 2000, cb on, w 5000, ack, w 1000, ack, w 4000, ack"},
		{"threshold set after the fall", "w 3000, ack, t 5000, cb on, ack"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gatedPair(t, func(t *testing.T, a0, a1 *sctp.Association, g1 *gatedConn) {
				as := [2]*sctp.Association{a0, a1}
				s0, err := as[0].OpenStream(1, sctp.PayloadTypeWebRTCBinary)
				if err != nil {
					t.Fatal(err)
				}
				// The peer reads everything, so that its window stays open.
				go func() {
					s1, err := as[1].AcceptStream()
					if err != nil {
						return
					}
					buf := make([]byte, 1<<16)
					for {
						if _, err := s1.Read(buf); err != nil {
							return
						}
					}
				}()
				var calls atomic.Int32
				var m pionLow
				g1.setShut(true)
				for step, op := range strings.Split(tt.ops, ", ") {
					var n uint64
					switch {
					case op == "cb on":
						s0.OnBufferedAmountLow(func() { calls.Add(1) })
						m.cb = true
					case op == "cb off":
						s0.OnBufferedAmountLow(nil)
						m.cb = false
					case op == "ack":
						g1.setShut(false)
						time.Sleep(2 * time.Second) // delayed SACKs, everything acknowledged
						synctest.Wait()
						g1.setShut(true)
						m.ack(m.amount)
					case scan(op, "w %d", &n):
						if _, err := s0.Write(make([]byte, n)); err != nil {
							t.Fatal(err)
						}
						m.amount += n
						synctest.Wait()
					case scan(op, "t %d", &n):
						s0.SetBufferedAmountLowThreshold(n)
						m.low = n
						synctest.Wait()
					default:
						t.Fatalf("bad op %q", op)
					}
					if got, ga := s0.BufferedAmount(), as[0].BufferedAmount(); got != m.amount || uint64(ga) != m.amount {
						t.Fatalf("after step %d (%s): BufferedAmount %d, the association's %d; pion's %d", step, op, got, ga, m.amount)
					}
					if got := int(calls.Load()); got != m.calls {
						t.Fatalf("after step %d (%s): %d callbacks, pion's %d", step, op, got, m.calls)
					}
				}
			})
		})
	}
}

// scan reports whether op has format's form, filling n.
func scan(op, format string, n *uint64) bool {
	k, err := fmt.Sscanf(op, format, n)
	return k == 1 && err == nil
}

// gatedPair runs f with two associations over a pipe, as pair does, the
// second one's writes going through a gate (open when f starts): shut, it
// holds the SACKs for the first one's data.
func gatedPair(t *testing.T, f func(t *testing.T, a0, a1 *sctp.Association, g1 *gatedConn)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		p0, p1 := pipe()
		g1 := &gatedConn{pipeConn: p1}
		pairOver(t, p0, g1, nil, func(t *testing.T, a0, a1 *sctp.Association) { f(t, a0, a1, g1) })
	})
}
