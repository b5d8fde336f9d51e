package interop

import (
	"context"
	"testing"
	"time"

	pion "github.com/pion/sctp"

	"github.com/usctp/usctp/sctp"
)

// BenchmarkRR compares request/response (sctpperf's SCTP_RR, 1 byte each
// way) over UDP on loopback: usctp with its default adaptive busy polling
// and without it, and pion/sctp. Both ends run in this process, so it
// shows the per-transaction cost and allocations; sctpperf -t SCTP_RR
// measures two processes.
func BenchmarkRR(b *testing.B) {
	b.Run("usctp", func(b *testing.B) { benchRRUsctp(b, 0) })
	b.Run("usctp-nopoll", func(b *testing.B) { benchRRUsctp(b, -1) })
	b.Run("pion", benchRRPion)
}

func benchRRUsctp(b *testing.B, busyPoll time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, s := usctpPair(ctx, b, &sctp.Config{EphemeralUDPPort: true, BusyPoll: busyPoll})
	go func() {
		buf := make([]byte, 64)
		for {
			n, info, err := s.ReadMsg(buf)
			if err != nil {
				return
			}
			if _, err := s.WriteMsg(buf[:n], sctp.SendInfo{Stream: info.Stream, PPID: ppid}); err != nil {
				return
			}
		}
	}()
	req, resp := []byte{1}, make([]byte, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := c.WriteMsg(req, sctp.SendInfo{Stream: 1, PPID: ppid}); err != nil {
			b.Fatal(err)
		}
		if n, _, err := c.ReadMsg(resp); err != nil || n != 1 {
			b.Fatalf("response: %d bytes, %v", n, err)
		}
	}
	b.StopTimer()
	st := c.Endpoint().SocketStats()
	b.ReportMetric(float64(st.BusyPollHits)/float64(b.N), "polls-hit/op")
}

func benchRRPion(b *testing.B) {
	client, server := pionPair(b)
	st, err := client.OpenStream(1, pion.PayloadTypeWebRTCBinary)
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		rs, err := server.AcceptStream()
		if err != nil {
			return
		}
		buf := make([]byte, 64)
		for {
			n, err := rs.Read(buf)
			if err != nil {
				return
			}
			if _, err := rs.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	req, resp := []byte{1}, make([]byte, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := st.Write(req); err != nil {
			b.Fatal(err)
		}
		if n, err := st.Read(resp); err != nil || n != 1 {
			b.Fatalf("response: %d bytes, %v", n, err)
		}
	}
}
