package kerneltest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// ecnCounts counts, per direction, the packets with DATA in usctp's pcap of transport B
// (LINKTYPE_RAW, IPv4, protocol 132) and how many of them carried ECT(0).
type ecnCounts struct {
	inData, inECT   int // from the kernel
	outData, outECT int // from usctp
}

func pcapECN(t *testing.T, path string) ecnCounts {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 24 {
		t.Fatalf("read pcap %s: %v", path, err)
	}
	guest := netip.MustParseAddr(kernelvm.GuestTapIP).As4()
	var c ecnCounts
	for off := 24; off+16 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		rec := b[off+16 : min(off+16+n, len(b))]
		off += 16 + n
		if len(rec) < 20 || rec[0]>>4 != 4 || rec[9] != 132 {
			continue
		}
		pkt, err := chunk.ParsePacket(rec[int(rec[0]&15)*4:])
		if err != nil {
			continue
		}
		data := false
		it := pkt.Walk()
		for ch, ok := it.Next(); ok; ch, ok = it.Next() {
			data = data || ch.Type == chunk.TypeData
		}
		if !data {
			continue
		}
		ect := rec[1]&3 == 2
		if [4]byte(rec[12:16]) == guest {
			c.inData++
			if ect {
				c.inECT++
			}
		} else {
			c.outData++
			if ect {
				c.outECT++
			}
		}
	}
	return c
}

// TestKernelECN checks ECN (RFC 9260 appendix A) against Linux 6.1 (net.sctp.ecn_enable=1,
// its default):
//   - negotiated: both sides offer the ECN Capable parameter and the association uses
//     ECN, over both transports and in both roles; on transport B the pcap shows the
//     DATA packets of both sides with ECT(0) in the IP header (the kernel's as they
//     arrived, read from the IPv4 header, and ours as our socket sends them);
//   - disabled: with Config.DisableECN the association does not use it and our DATA
//     leaves Not-ECT;
//   - ce-to-kernel: over transport B with a raw socket of the test's whose packets all
//     leave with CE (IP_TOS 3: this host has no qdisc that marks), the kernel echoes the marks in ECNE
//     chunks, usctp halves its window at most once per window of data and answers with
//     CWR, and the transfer completes byte-exact.
//
// (The guest has no nft and the host no marking qdisc, so CE on the kernel's packets
// to usctp, and so usctp's ECNE to the kernel, are tested on the simulated network
// only: TestSimECN in package sctp.)
func TestKernelECN(t *testing.T) {
	batchPcaps(t)
	vm := kvm.Get(t)
	if _, err := vm.Do(ctxFor(t, time.Minute), "sysctl net.sctp.ecn_enable=1", "OK cmd=sysctl"); err != nil {
		t.Fatal(err)
	}
	echo := func(p *pair) {
		p.t.Helper()
		buf := make([]byte, 4096)
		for i := range 20 {
			msg := payload(make([]byte, 1000), i)
			p.write(msg, sctp.SendInfo{PPID: ppidBase})
			if got, _, err := p.readMsg(buf); err != nil || string(got) != string(msg) {
				p.failf("echo %d: %d bytes, %v", i, len(got), err)
			}
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		if l := p.wait("DONE", nil); l.Get("end") != "eof" {
			p.failf("kernel: %s, want end=eof", l)
		}
	}
	t.Run("negotiated", func(t *testing.T) {
		forEach(t, transports, func(t *testing.T, tr, role string) {
			p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo"})
			if !p.as.ECN() {
				p.failf("ECN not negotiated with the kernel")
			}
			echo(p)
			if tr != ip {
				return // QEMU's user network does not carry the field
			}
			p.ep.Close() // flushes the pcap; the pair's cleanup closes it again, harmlessly
			c := pcapECN(t, p.pcap)
			t.Logf("DATA packets with ECT(0): from the kernel %d of %d, from usctp %d of %d", c.inECT, c.inData, c.outECT, c.outData)
			if c.inData == 0 || c.inECT != c.inData || c.outData == 0 || c.outECT != c.outData {
				p.failf("DATA packets with ECT(0): from the kernel %d of %d, from usctp %d of %d; want all", c.inECT, c.inData, c.outECT, c.outData)
			}
		})
	})
	t.Run("disabled", func(t *testing.T) {
		forEach(t, transports, func(t *testing.T, tr, role string) {
			p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo", cfg: sctp.Config{DisableECN: true}})
			if p.as.ECN() {
				p.failf("ECN in use with DisableECN")
			}
			echo(p)
			if tr != ip {
				return
			}
			p.ep.Close()
			if c := pcapECN(t, p.pcap); c.outData == 0 || c.outECT != 0 {
				p.failf("DisableECN: %d of our %d DATA packets with ECT(0), want none", c.outECT, c.outData)
			}
		})
	})
	t.Run("ce-to-kernel", func(t *testing.T) {
		if !vm.HasTap() {
			kernelvm.Unavailable(t, fmt.Errorf("transport B needs root for its network namespace"))
		}
		var pc *net.IPConn
		err := vm.InNetns(func() (err error) {
			pc, err = net.ListenIP("ip4:132", &net.IPAddr{IP: net.ParseIP(kernelvm.HostTapIP)})
			if err != nil {
				return err
			}
			rc, err := pc.SyscallConn()
			if err != nil {
				return err
			}
			var serr error
			if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS, 3) }); err != nil {
				return err
			}
			return serr
		})
		if err != nil {
			t.Fatal(err)
		}
		const total, size = 2 << 20, 8 << 10
		count := total / size
		// usctp listens: the shell keys a raw PacketConn's peers without a
		// port, which a Dial to ADDR:PORT does not match.
		p := newPair(t, setup{tr: ip, role: server, kopts: "mode=sink log=0 buf=4194304", timeout: 3 * time.Minute,
			cfg: sctp.Config{PacketConn: pc}})
		if !p.as.ECN() {
			p.failf("ECN not negotiated with the kernel")
		}
		msg := make([]byte, size)
		var crc uint32
		for i := range count {
			payload(msg, i)
			crc = crc32.Update(crc, crc32.IEEETable, msg)
			p.write(msg, sctp.SendInfo{PPID: ppidBase})
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		if l := p.wait("DONE", nil); l.Int("msgs") != count || l.Get("crc") != fmt.Sprintf("%08x", crc) || l.Get("end") != "eof" {
			p.failf("kernel: %s; want msgs=%d crc=%08x end=eof", l, count, crc)
		}
		s := p.as.Stats()
		t.Logf("ECNE in %d, window reductions %d, CWR out %d; ECNE out %d; retransmits %d", s.ECNEchoesIn, s.ECNReductions, s.CWRsOut, s.ECNEchoesOut, s.Retransmits)
		if s.ECNEchoesIn == 0 || s.ECNReductions == 0 || s.CWRsOut == 0 {
			p.failf("the kernel's ECNEs: %d, reductions %d, CWRs %d; want some of each", s.ECNEchoesIn, s.ECNReductions, s.CWRsOut)
		}
		if s.ECNReductions > s.ECNEchoesIn {
			p.failf("%d reductions for %d ECNEs", s.ECNReductions, s.ECNEchoesIn)
		}
	})
}
