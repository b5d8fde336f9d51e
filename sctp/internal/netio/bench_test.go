package netio

import (
	"fmt"
	"io"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

// payloadSize is the SCTP packet size that fills a 1500-byte path MTU
// under UDP over IPv6 (1500 - 48) and leaves room under IPv4.
const payloadSize = 1452

// BenchmarkUDPThroughput sends 1452-byte packets over loopback from one
// UDPConn to another read by a concurrent goroutine, in three modes: one
// datagram per system call, recvmmsg/sendmmsg, and sendmmsg with GSO.
// Mbit/s and pkts/s are the sender's rate; delivered is the share the
// receiver got (the rest overflowed its socket buffer) and rx-Mbit/s the
// receiver's rate over the same time. On 2 CPUs the sender and receiver
// compete for the same cores.
func BenchmarkUDPThroughput(b *testing.B) {
	for _, v6 := range []bool{false, true} {
		for _, mode := range []struct {
			name string
			cfg  UDPConfig
		}{
			{"single", UDPConfig{NoBatch: true}},
			{"mmsg", UDPConfig{NoGSO: true}},
			{"gso", UDPConfig{}},
			{"gso+gro", UDPConfig{GRO: true}},
		} {
			fam := "v4"
			if v6 {
				fam = "v6"
			}
			b.Run(fmt.Sprintf("%s/%s", fam, mode.name), func(b *testing.B) {
				benchUDP(b, mode.cfg, v6)
			})
		}
	}
}

func benchUDP(b *testing.B, cfg UDPConfig, v6 bool) {
	tx, rx := udpPair(b, v6, cfg)
	if !cfg.NoGSO && !cfg.NoBatch && !tx.GSO() {
		b.Skip("no UDP GSO on this kernel")
	}
	var received atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		in := newPackets(64, 2048)
		for {
			n, err := rx.ReadBatch(in)
			if err != nil {
				return
			}
			received.Add(int64(n))
		}
	}()
	const batch = 64
	pkts := newPackets(batch, 2048)
	fill(pkts, 0, payloadSize, rx.LocalAddr())
	b.SetBytes(payloadSize)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for sent := 0; sent < b.N; sent += batch {
		n := min(batch, b.N-sent)
		if _, err := tx.WriteBatch(pkts[:n]); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	rx.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	<-done
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pkts/s")
	b.ReportMetric(float64(b.N)*payloadSize*8/elapsed.Seconds()/1e6, "Mbit/s")
	b.ReportMetric(100*float64(received.Load())/float64(b.N), "%delivered")
	b.ReportMetric(float64(received.Load())*payloadSize*8/elapsed.Seconds()/1e6, "rx-Mbit/s")
}

// BenchmarkUDPRoundTrip writes a batch of 32 packets and reads them all
// back on one goroutine: the CPU cost of both directions per packet,
// with no loss.
func BenchmarkUDPRoundTrip(b *testing.B) {
	for _, mode := range []struct {
		name string
		cfg  UDPConfig
	}{
		{"single", UDPConfig{NoBatch: true}},
		{"mmsg", UDPConfig{NoGSO: true}},
		{"gso", UDPConfig{}},
		{"gso+gro", UDPConfig{GRO: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			tx, rx := udpPair(b, false, mode.cfg)
			benchRoundTrip(b, tx, rx)
		})
	}
}

// BenchmarkPcapWritePacket is the cost of recording one 1452-byte packet
// over UDP/IPv6 (headers, checksums, buffered write).
func BenchmarkPcapWritePacket(b *testing.B) {
	w, err := NewPcapWriter(io.Discard, PcapOptions{})
	if err != nil {
		b.Fatal(err)
	}
	pkt := make([]byte, payloadSize)
	src, dst := netip.MustParseAddrPort("[fd00::1]:9899"), netip.MustParseAddrPort("[fd00::2]:9899")
	b.SetBytes(payloadSize)
	b.ReportAllocs()
	for range b.N {
		w.WritePacket(src, dst, pkt)
	}
}

// benchRoundTrip writes batches of 32 packets from tx and reads them all
// back at rx on one goroutine, b.N times.
func benchRoundTrip(b *testing.B, tx, rx Conn) {
	const batch = 32
	pkts := newPackets(batch, 2048)
	fill(pkts, 0, payloadSize, rx.LocalAddr())
	in := newPackets(batch, 2048)
	b.SetBytes(payloadSize * batch)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		roundTrip(b, tx, rx, pkts, in)
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "pkts/s")
	b.ReportMetric(float64(b.N*batch)*payloadSize*8/b.Elapsed().Seconds()/1e6, "Mbit/s")
}
