package netio

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// scriptConn is a net.Conn whose reads return the packets and errors sent
// on in, one per Read.
type scriptConn struct {
	in        chan any // []byte or error
	done      chan struct{}
	closeOnce sync.Once
	deadlines int // SetReadDeadline calls: the pump makes none
}

func newScriptConn() *scriptConn {
	return &scriptConn{in: make(chan any, 64), done: make(chan struct{})}
}

func (c *scriptConn) Read(b []byte) (int, error) {
	select {
	case x := <-c.in:
		if err, ok := x.(error); ok {
			return 0, err
		}
		return copy(b, x.([]byte)), nil
	case <-c.done:
		return 0, net.ErrClosed
	}
}

func (c *scriptConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *scriptConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}
func (c *scriptConn) LocalAddr() net.Addr  { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (c *scriptConn) RemoteAddr() net.Addr { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 2} }
func (c *scriptConn) SetDeadline(time.Time) error {
	return errors.ErrUnsupported
}
func (c *scriptConn) SetReadDeadline(time.Time) error {
	c.deadlines++
	return errors.ErrUnsupported
}
func (c *scriptConn) SetWriteDeadline(time.Time) error { return errors.ErrUnsupported }

// TestConnPump: over a net.Conn, ReadBatch returns every packet read since
// the last call (up to the batch), in order, with the connection's remote
// address; a read error comes in its place among them; a packet larger
// than the caller's buffer is dropped; the pump's own read deadline works
// though the connection refuses deadlines; Close ends a waiting
// ReadBatch.
func TestConnPump(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newScriptConn()
		a := NewConnAdapter(c, AdapterConfig{})
		pkts := newPackets(4, 100)

		c.in <- []byte("first")
		if n, err := a.ReadBatch(pkts); n != 1 || err != nil || string(pkts[0].Data()) != "first" {
			t.Fatalf("ReadBatch = %d, %v, %q", n, err, pkts[0].Data())
		}
		if want := netAddrPort(c.RemoteAddr()); pkts[0].Addr != want {
			t.Errorf("Addr %v, want %v", pkts[0].Addr, want)
		}

		// Packets that arrive while the caller is away come in one batch,
		// up to its size; an error comes in its place.
		for _, s := range []string{"a", "b", "c", "d", "e"} {
			c.in <- []byte(s)
		}
		transient := errors.New("transient")
		c.in <- transient
		c.in <- []byte("after")
		synctest.Wait()
		var got []string
		for len(got) < 5 {
			n, err := a.ReadBatch(pkts)
			if err != nil {
				t.Fatalf("ReadBatch after %q: %v", got, err)
			}
			for _, p := range pkts[:n] {
				got = append(got, string(p.Data()))
			}
			if len(got) == 4 && n != 4 {
				t.Errorf("a batch of %d, want 4 waiting packets", n)
			}
		}
		if _, err := a.ReadBatch(pkts); !errors.Is(err, transient) {
			t.Fatalf("ReadBatch after %q: %v, want the read error", got, err)
		}
		if n, err := a.ReadBatch(pkts); n != 1 || err != nil || string(pkts[0].Data()) != "after" {
			t.Fatalf("ReadBatch after the error = %d, %v", n, err)
		}

		// Many more packets than the arena holds, taken slowly: each
		// arrives once, in order, whole.
		go func() {
			for i := range 3000 {
				b := make([]byte, 30+i%70)
				for j := range b {
					b[j] = byte(i + j)
				}
				c.in <- b
			}
		}()
		for i := 0; i < 3000; {
			time.Sleep(time.Millisecond)
			n, err := a.ReadBatch(pkts)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pkts[:n] {
				b := p.Data()
				if len(b) != 30+i%70 || b[0] != byte(i) || b[len(b)-1] != byte(i+len(b)-1) {
					t.Fatalf("packet %d: %d bytes %x...", i, len(b), b[:4])
				}
				i++
			}
		}

		// Too large for the caller's buffer: dropped.
		c.in <- []byte("too long")
		c.in <- []byte("fits")
		synctest.Wait()
		small := newPackets(4, 4)
		if n, err := a.ReadBatch(small); n != 1 || err != nil || string(small[0].Data()) != "fits" {
			t.Fatalf("ReadBatch after a large packet = %d, %v, %q", n, err, small[0].Data())
		}

		// Deadlines: a past one fails a read, a future one ends a waiting
		// read at its time, the zero one waits for a packet.
		if err := a.SetReadDeadline(time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		if _, err := a.ReadBatch(pkts); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ReadBatch past the deadline: %v", err)
		}
		start := time.Now()
		a.SetReadDeadline(start.Add(time.Second))
		if _, err := a.ReadBatch(pkts); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Second {
			t.Fatalf("ReadBatch with a deadline: %v after %v", err, time.Since(start))
		}
		a.SetReadDeadline(time.Time{})
		go func() {
			time.Sleep(time.Minute)
			c.in <- []byte("late")
		}()
		if n, err := a.ReadBatch(pkts); n != 1 || err != nil || string(pkts[0].Data()) != "late" {
			t.Fatalf("ReadBatch without a deadline = %d, %v", n, err)
		}
		// A deadline set while a read waits ends it.
		errc := make(chan error)
		go func() {
			_, err := a.ReadBatch(pkts)
			errc <- err
		}()
		synctest.Wait()
		a.SetReadDeadline(time.Unix(1, 0))
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ReadBatch interrupted by a deadline: %v", err)
		}
		if c.deadlines != 0 {
			t.Errorf("%d SetReadDeadline calls on the connection, want none", c.deadlines)
		}

		// The end of the connection (io.EOF) is a closed connection.
		a.SetReadDeadline(time.Time{})
		c.in <- io.EOF
		if _, err := a.ReadBatch(pkts); !errors.Is(err, net.ErrClosed) || !errors.Is(err, io.EOF) {
			t.Fatalf("ReadBatch after io.EOF: %v, want one matching net.ErrClosed and io.EOF", err)
		}

		go func() {
			_, err := a.ReadBatch(pkts)
			errc <- err
		}()
		synctest.Wait()
		a.Close()
		if err := <-errc; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("ReadBatch after Close: %v", err)
		}
		if _, err := a.ReadBatch(pkts); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("ReadBatch on a closed adapter: %v", err)
		}
	})
}
