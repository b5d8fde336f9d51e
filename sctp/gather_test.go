package sctp

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// TestUDPGather sends large messages of random bytes over UDP on loopback
// (MTU 65535: chunks of up to 64 KB, which the shell sends as holes,
// gatherMin) both ways at once, so that SACKs free messages while packets
// that reference them wait to be written, and checks every byte.
func TestUDPGather(t *testing.T) {
	cfg := loopCfg()
	cfg.MTU, cfg.DisablePMTUDiscovery = 65535, true // 64 KB packets from the start
	l, dc := listenLoop(t, cfg)
	c := dialLoop(t, dc)
	s := accept(t, l)
	if c.ep.holes == nil {
		t.Skip("the socket does not gather")
	}
	const n, size = 60, 100_000
	r := rand.New(rand.NewPCG(35, 4))
	msgs := make([][]byte, n)
	for i := range msgs {
		msgs[i] = make([]byte, size-r.IntN(size/2))
		for j := range msgs[i] {
			msgs[i][j] = byte(r.Uint32())
		}
	}
	errc := make(chan error, 2)
	for _, w := range []*Association{c, s} {
		go func() {
			w.SetWriteDeadline(time.Now().Add(20 * time.Second))
			for i, m := range msgs {
				if _, err := w.WriteMsg(m, SendInfo{Stream: uint16(i % 4)}); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	buf := make([]byte, size)
	for _, rd := range []*Association{s, c} {
		rd.SetReadDeadline(time.Now().Add(20 * time.Second))
		next := [4]int{0, 1, 2, 3}
		for range n {
			k, info, err := rd.ReadMsg(buf)
			if err != nil {
				t.Fatal(err)
			}
			i := next[info.Stream]
			if !bytes.Equal(buf[:k], msgs[i]) {
				t.Fatalf("message %d on stream %d: %d bytes differ from the %d sent", i, info.Stream, k, len(msgs[i]))
			}
			next[info.Stream] += 4
		}
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if c.ep.nHoles.Load() == 0 || l.nHoles.Load() == 0 {
		t.Fatalf("holes written: %d and %d, want some", c.ep.nHoles.Load(), l.nHoles.Load())
	}
}
