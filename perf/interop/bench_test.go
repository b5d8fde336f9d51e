package interop

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/logging"
	pion "github.com/pion/sctp"

	"github.com/usctp/usctp/sctp"
)

// BenchmarkStream compares one-way throughput over UDP on loopback of
// usctp and pion/sctp with the same message size and MTU (1280, pion's
// default MTU is 1228 bytes of SCTP packet).
func BenchmarkStream(b *testing.B) {
	for _, size := range []int{1 << 10, 8 << 10} {
		b.Run(fmt.Sprintf("usctp/%d", size), func(b *testing.B) { benchUsctp(b, size) })
		b.Run(fmt.Sprintf("pion/%d", size), func(b *testing.B) { benchPion(b, size) })
	}
}

func benchUsctp(b *testing.B, size int) {
	cfg := &sctp.Config{EphemeralUDPPort: true, MTU: 1228 + 28, Buffers: sctp.Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, s := usctpPair(ctx, b, cfg)
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
	for range b.N {
		if _, err := c.WriteMsg(msg, sctp.SendInfo{Stream: 1, PPID: ppid}); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Shutdown(ctx); err != nil {
		b.Fatal(err)
	}
	<-done
	st := c.Stats()
	b.Logf("N=%d: %d packets, %d retransmits, %d fast, %d T3, cwnd %d", b.N, st.PacketsOut, st.Retransmits, st.FastRetransmit, st.T3Expiries, st.Cwnd)
}

// usctpPair opens a usctp association over UDP on loopback and returns
// both ends; the endpoints close when b ends.
func usctpPair(ctx context.Context, b *testing.B, cfg *sctp.Config) (c, s *sctp.Association) {
	l, err := sctp.Listen("127.0.0.1:5000", cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	dc := *cfg
	dc.RemoteUDPPort = l.Addr().UDPPort
	c, err = sctp.Dial(ctx, "127.0.0.1:5000", &dc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Endpoint().Close() })
	s, err = l.AcceptContext(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return c, s
}

func benchPion(b *testing.B, size int) {
	client, server := pionPair(b)
	st, err := client.OpenStream(1, pion.PayloadTypeWebRTCBinary)
	if err != nil {
		b.Fatal(err)
	}
	msg := make([]byte, size)
	got := make(chan int64, 1)
	total := int64(b.N) * int64(size)
	go func() {
		rs, err := server.AcceptStream()
		if err != nil {
			got <- 0
			return
		}
		buf := make([]byte, size)
		var n int64
		for n < total {
			k, err := rs.Read(buf)
			if err != nil {
				break
			}
			n += int64(k)
		}
		got <- n
	}()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := st.Write(msg); err != nil {
			b.Fatal(err)
		}
	}
	if n := <-got; n != total {
		b.Fatalf("pion received %d of %d", n, total)
	}
}

// pionPair opens a pion/sctp association over UDP on loopback (4 MiB
// receive buffers, as usctp's) and returns both ends, closed when b ends.
func pionPair(b *testing.B) (client, server *pion.Association) {
	ua, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	ub, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	ca := udpTo{ua, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(ub.LocalAddr().String()))}
	cb := udpTo{ub, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(ua.LocalAddr().String()))}
	lf := logging.NewDefaultLoggerFactory()
	lf.DefaultLogLevel = logging.LogLevelError
	errc := make(chan error, 1)
	go func() {
		var err error
		server, err = pion.Server(pion.Config{NetConn: cb, LoggerFactory: lf, MaxReceiveBufferSize: 4 << 20})
		errc <- err
	}()
	client, err = pion.Client(pion.Config{NetConn: ca, LoggerFactory: lf, MaxReceiveBufferSize: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}
