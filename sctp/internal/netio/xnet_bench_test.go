//go:build linux

package netio

import (
	"net"
	"net/netip"
	"testing"

	"golang.org/x/net/ipv4"
)

// BenchmarkXNetRoundTrip is BenchmarkUDPRoundTrip/mmsg with the receiver
// reading through golang.org/x/net/ipv4's PacketConn.ReadBatch instead of
// our recvmmsg: it shows the per-packet allocations (a net.IP and a
// *net.UDPAddr per datagram) that made us call recvmmsg ourselves.
func BenchmarkXNetRoundTrip(b *testing.B) {
	tx, err := ListenUDP(UDPConfig{Addr: netip.MustParseAddrPort("127.0.0.1:0"), NoGSO: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Close()
	uc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer uc.Close()
	uc.SetReadBuffer(4 << 20)
	rx := ipv4.NewPacketConn(uc)
	const batch = 32
	pkts := newPackets(batch, 2048)
	fill(pkts, 0, payloadSize, netAddrPort(uc.LocalAddr()))
	msgs := make([]ipv4.Message, batch)
	for i := range msgs {
		msgs[i].Buffers = [][]byte{make([]byte, 2048)}
	}
	b.SetBytes(payloadSize * batch)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := tx.WriteBatch(pkts); err != nil {
			b.Fatal(err)
		}
		for got := 0; got < batch; {
			n, err := rx.ReadBatch(msgs, 0)
			if err != nil {
				b.Fatal(err)
			}
			got += n
		}
	}
}
