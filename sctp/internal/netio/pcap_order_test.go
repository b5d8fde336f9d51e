package netio

import (
	"net/netip"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// answeringConn answers every packet written with one to read, which
// arrives before the write returns: a peer on loopback can answer before
// the sender's sendmmsg returns. The write then waits (up to a second of
// the bubble's time) for the reader to come back from ReadBatch.
type answeringConn struct {
	local, peer netip.AddrPort
	in          chan []byte
	readDone    chan struct{}
}

func (c *answeringConn) ReadBatch(pkts []Packet) (int, error) {
	b := <-c.in
	pkts[0].N = copy(pkts[0].Buf, b)
	pkts[0].Addr = c.peer
	return 1, nil
}

func (c *answeringConn) WriteBatch(pkts []Packet) (int, error) {
	c.in <- []byte("answer")
	select {
	case <-c.readDone:
	case <-time.After(time.Second):
	}
	return len(pkts), nil
}

func (c *answeringConn) SetReadDeadline(time.Time) error { return nil }
func (c *answeringConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *answeringConn) Overhead(remote netip.Addr) int  { return 28 }
func (c *answeringConn) Close() error                    { return nil }

// TestCaptureRecordsInSocketOrder: a packet read is recorded after the
// packet written before it arrived, even when the answer is read before
// the write that caused it returned (the dialer's INIT ACK came before
// its INIT in the capture).
func TestCaptureRecordsInSocketOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "order.pcap")
	synctest.Test(t, func(t *testing.T) {
		w, err := CreatePcap(path, PcapOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inner := &answeringConn{
			local: netip.MustParseAddrPort("10.0.0.1:9899"), peer: netip.MustParseAddrPort("10.0.0.2:9899"),
			in: make(chan []byte, 1), readDone: make(chan struct{}),
		}
		c := Capture(inner, w)
		read := make(chan struct{})
		go func() {
			pkts := []Packet{{Buf: make([]byte, 64)}}
			if _, err := c.ReadBatch(pkts); err != nil {
				t.Error(err)
			}
			close(inner.readDone)
			close(read)
		}()
		if _, err := c.WriteBatch([]Packet{{Buf: []byte("question"), N: 8, Addr: inner.peer}}); err != nil {
			t.Fatal(err)
		}
		<-read
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
	recs := readPcap(t, path)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	if string(recs[0].payload) != "question" || string(recs[1].payload) != "answer" {
		t.Errorf("recorded %q then %q, want the question first", recs[0].payload, recs[1].payload)
	}
}
