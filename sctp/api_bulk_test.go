package sctp

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
)

var (
	bulkMB  = flag.Int("bulk.mb", 0, "TestUDPBulk: megabytes to move (0: 1 GiB, at most 20 s)")
	bulkMTU = flag.Int("bulk.mtu", 9000, "TestUDPBulk: path MTU (loopback's is 65536)")
)

// TestUDPBulk moves data through many streams over UDP on loopback and
// checks every message's stream, sequence and content; it logs the
// throughput.
func TestUDPBulk(t *testing.T) {
	cfg := loopCfg()
	cfg.Buffers.SendBuffer, cfg.Buffers.RecvBuffer = 4<<20, 4<<20
	cfg.Timers.RTOMin, cfg.Timers.RTOInitial = 0, 0 // RFC defaults: a loaded machine makes 100 ms RTOs fire spuriously
	cfg.MTU = *bulkMTU
	l, dc := listenLoop(t, cfg)
	c := dialLoop(t, dc)
	s := accept(t, l)
	const streams = 16
	msgSize := 8 << 10
	// 1 GiB, or what fits in 20 s on a loaded machine; a short look
	// under the race detector or -short.
	total, limit := int64(1<<30), 20*time.Second
	switch {
	case *bulkMB > 0:
		total, limit = int64(*bulkMB)<<20, time.Hour
	case testsupport.RaceEnabled || testing.Short():
		limit = 2 * time.Second
	}
	start := time.Now()
	sent := make(chan int64, 1)
	go func() {
		msg := make([]byte, msgSize)
		var seq [streams]uint32
		var n int64
		for i := 0; n < total && time.Since(start) < limit; i++ {
			sid := uint16(i % streams)
			binary.BigEndian.PutUint32(msg, seq[sid])
			msg[4] = byte(sid)
			msg[msgSize-1] = byte(seq[sid])
			if _, err := c.WriteMsg(msg, SendInfo{Stream: sid, PPID: 7}); err != nil {
				t.Error(err)
				break
			}
			seq[sid]++
			n += int64(msgSize)
		}
		sent <- n
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	}()
	buf := make([]byte, msgSize)
	var next [streams]uint32
	var got int64
	for {
		n, info, err := s.ReadMsg(buf)
		if err != nil {
			break
		}
		if !info.EOR || n != msgSize || info.Stream >= streams {
			t.Fatalf("read %d bytes, %+v", n, info)
		}
		seq := binary.BigEndian.Uint32(buf)
		if seq != next[info.Stream] || buf[4] != byte(info.Stream) || buf[n-1] != byte(seq) {
			t.Fatalf("stream %d: message %d, want %d", info.Stream, seq, next[info.Stream])
		}
		next[info.Stream]++
		got += int64(n)
	}
	el := time.Since(start)
	if want := <-sent; got != want {
		t.Fatalf("received %d of %d bytes", got, want)
	}
	st := c.Stats()
	t.Logf("%d MB in %v: %.0f Mbit/s; %d packets out, %d retransmits, %d fast, %d T3, cwnd %d",
		got>>20, el.Round(time.Millisecond), float64(got)*8/el.Seconds()/1e6, st.PacketsOut, st.Retransmits, st.FastRetransmit, st.T3Expiries, st.Cwnd)
}

// BenchmarkUDPStream measures one-way message throughput over UDP on
// loopback (MTU 9000), 16 streams, with the receiver in its own
// goroutine.
func BenchmarkUDPStream(b *testing.B) {
	for _, size := range []int{1 << 10, 8 << 10, 64 << 10} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			cfg := loopCfg()
			cfg.Buffers.SendBuffer, cfg.Buffers.RecvBuffer, cfg.MTU = 4<<20, 4<<20, 9000
			cfg.Timers.RTOMin, cfg.Timers.RTOInitial = 0, 0
			l, dc := listenLoop(b, cfg)
			c := dialLoop(b, dc)
			s := accept(b, l)
			done := make(chan struct{})
			go func() {
				defer close(done)
				buf := make([]byte, size)
				for {
					if _, _, err := s.ReadMsg(buf); err != nil {
						return
					}
				}
			}()
			msg := make([]byte, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := c.WriteMsg(msg, SendInfo{Stream: uint16(i % 16)}); err != nil {
					b.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Shutdown(ctx); err != nil {
				b.Fatal(err)
			}
			<-done
		})
	}
}
