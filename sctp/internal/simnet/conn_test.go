package simnet

import (
	"errors"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// A ping-pong over a Pipe inside a synctest bubble takes exactly the
// links' delays in fake time.
func TestPipeSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New(1)
		c, d := n.Pipe(LinkConfig{Delay: time.Millisecond}, LinkConfig{Delay: time.Millisecond}) // a second pipe on the same network
		defer c.Close()
		defer d.Close()
		c.WriteTo([]byte{99}, nil)
		a, b := n.Pipe(LinkConfig{Delay: 10 * time.Millisecond}, LinkConfig{Delay: 20 * time.Millisecond})
		defer a.Close()
		defer b.Close()
		go func() { // echo
			buf := make([]byte, 100)
			for {
				k, _, err := b.ReadFrom(buf)
				if err != nil {
					return
				}
				b.WriteTo(buf[:k], nil)
			}
		}()
		start := time.Now()
		buf := make([]byte, 100)
		for i := range 5 {
			a.WriteTo([]byte{byte(i)}, nil)
			k, from, err := a.ReadFrom(buf)
			if err != nil || k != 1 || buf[0] != byte(i) || from.String() != "b" {
				t.Fatalf("echo %d: %d %v %v", i, k, buf[:k], err)
			}
		}
		if d := time.Since(start); d != 150*time.Millisecond {
			t.Fatalf("5 round trips took %v, want 150ms", d)
		}
		if k, _, err := d.ReadFrom(buf); err != nil || k != 1 || buf[0] != 99 {
			t.Fatalf("other pipe: %d %v %v", k, buf[:k], err)
		}
		a.SetReadDeadline(time.Now().Add(time.Second))
		if _, _, err := a.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read past the deadline: %v", err)
		}
	})
}
