package kerneltest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
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
//   - disabled: with Config.Extensions.DisableECN the association does not use it and our DATA
//     leaves Not-ECT;
//   - ce-to-kernel: over transport B with a raw socket of the test's whose packets all
//     leave with CE (IP_TOS 3: this host has no qdisc that marks), the kernel echoes the marks in ECNE
//     chunks, usctp halves its window at most once per window of data and answers with
//     CWR, and the transfer completes byte-exact.
//   - ce-from-kernel: over transport B, the kernel sends 4 MiB to usctp; once usctp has
//     read half, an nftables rule in the test's network namespace (the host kernel's
//     netfilter, on the path between the tap and usctp's socket) sets CE on every
//     eighth packet with DATA from the kernel. The pcap shows the marks, usctp's ECNE
//     chunks and the kernel's CWRs (usctp's counters agree), no ECNE sent once a CWR
//     covering its TSN arrived, and a CWR covering the last ECNE; the kernel's cwnd
//     (SCTP_STATUS, kpeer's status command) is smaller once it has taken usctp's last
//     SACK than before the marks (nothing is lost on the tap: only the ECNEs reduce
//     it; the log shows the kernel's retransmissions); the transfer is byte-exact.
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
			p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo", cfg: sctp.Config{Extensions: sctp.Extensions{DisableECN: true}}})
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
	t.Run("ce-from-kernel", func(t *testing.T) {
		if !vm.HasTap() {
			kernelvm.Unavailable(t, fmt.Errorf("transport B needs root for its network namespace"))
		}
		if _, err := exec.LookPath("nft"); err != nil {
			kernelvm.Unavailable(t, fmt.Errorf("nft (Debian package nftables, which .ci/test.sh installs): %v", err))
		}
		const count, size = 512, 8 << 10
		p := newPair(t, setup{tr: ip, role: server, timeout: 4 * time.Minute,
			kopts: fmt.Sprintf("mode=source count=%d size=%d then=wait log=0 buf=4194304", count, size)})
		if !p.as.ECN() {
			p.failf("ECN not negotiated with the kernel")
		}
		buf := make([]byte, 64<<10)
		want := make([]byte, size)
		var before kernelvm.Line
		for i := range count {
			if i == count/2 {
				before = p.do("status id=%s", "STATUS id=%s ")
				markCE(t, vm, 8)
			}
			got, _, err := p.readMsg(buf)
			if err != nil || string(got) != string(payload(want, i)) {
				p.failf("message %d: %d bytes, %v; want %d bytes of the source's pattern", i, len(got), err, size)
			}
		}
		// The kernel's window once it has taken usctp's last SACK (and so every ECNE
		// before it): its guest may process what it receives well after sending.
		var after kernelvm.Line
		err := kernelvm.Retry(p.ctx, 20*time.Millisecond, func() error {
			after = p.do("status id=%s", "STATUS id=%s ")
			if after.Int("unack") != 0 || after.Int("pending") != 0 {
				return fmt.Errorf("the kernel has %d DATA chunks unacknowledged and %d pending", after.Int("unack"), after.Int("pending"))
			}
			return nil
		})
		if err != nil {
			p.failf("%v", err)
		}
		p.do("close id=%s", "CLOSED id=%s ")
		p.expectEOF()
		s := p.as.Stats()
		p.ep.Close() // flushes the pcap; the pair's cleanup closes it again, harmlessly
		c := pcapECNFromKernel(t, p.pcap)
		t.Logf("usctp: CE marks %d, ECNE out %d, CWR in %d, retransmits %d", s.ECNMarks, s.ECNEchoesOut, s.CWRsIn, s.Retransmits)
		t.Logf("pcap: kernel DATA packets %d, CE %d; usctp packets with ECNE %d (last TSN %d, %d after a CWR covering theirs); kernel CWRs %d (highest TSN %d)",
			c.inData, c.inCE, c.outECNE, c.lastECNE, c.staleECNE, c.inCWR, c.lastCWR)
		t.Logf("the kernel's cwnd: %d bytes before the marks, %d after (%s; %s); its retransmitted DATA chunks: %d",
			before.Int("cwnd"), after.Int("cwnd"), before, after, c.inRetransmits)
		if c.inCE == 0 || s.ECNMarks != uint64(c.inCE) {
			p.failf("CE-marked DATA packets: %d in the pcap, usctp counted %d; want the same, not 0", c.inCE, s.ECNMarks)
		}
		if c.outECNE == 0 || s.ECNEchoesOut != uint64(c.outECNE) {
			p.failf("packets with ECNE: %d in the pcap, usctp counted %d; want the same, not 0", c.outECNE, s.ECNEchoesOut)
		}
		if c.inCWR == 0 || s.CWRsIn != uint64(c.inCWR) {
			p.failf("the kernel's CWRs: %d in the pcap, usctp counted %d; want the same, not 0", c.inCWR, s.CWRsIn)
		}
		if c.staleECNE > 0 {
			p.failf("%d ECNEs sent after a CWR covering their TSN had arrived", c.staleECNE)
		}
		if c.lastECNE.GT(c.lastCWR) {
			p.failf("the last ECNE echoes TSN %d, the last CWR covers %d: the echoes did not stop", c.lastECNE, c.lastCWR)
		}
		if after.Int("cwnd") >= before.Int("cwnd") {
			p.failf("the kernel's cwnd did not shrink for the ECNEs: %d bytes before the marks, %d after", before.Int("cwnd"), after.Int("cwnd"))
		}
	})
}

// markCE adds an nftables rule to transport B's network namespace that sets CE on every
// nth IPv4 packet from the guest with a DATA chunk (the host kernel updates the IP header
// checksum), and removes it when the test ends.
func markCE(t *testing.T, vm *kernelvm.VM, n int) {
	t.Helper()
	nft := func(script string) error {
		return vm.InNetns(func() error {
			cmd := exec.Command("nft", "-f", "-")
			cmd.Stdin = strings.NewReader(script)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("nft: %v\n%s", err, out)
			}
			return nil
		})
	}
	err := nft(fmt.Sprintf(`table ip usctp_ecn {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		ip saddr %s ip protocol sctp sctp chunk data exists numgen inc mod %d == 0 ip ecn set ce
	}
}
`, kernelvm.GuestTapIP, n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nft("delete table ip usctp_ecn\n"); err != nil {
			t.Error(err)
		}
	})
}

// fromKernel is what pcapECNFromKernel finds in usctp's pcap of a transfer from the kernel.
type fromKernel struct {
	inData, inCE      int       // the kernel's packets with DATA, and those marked CE
	inRetransmits     int       // the kernel's DATA chunks with a TSN not above the highest before
	outECNE, inCWR    int       // usctp's packets with an ECNE, the kernel's with a CWR
	lastECNE, lastCWR chunk.TSN // the TSNs of the last of each
	// usctp's ECNEs sent after a CWR that covered their TSN had arrived (in the
	// pcap's order: usctp records a packet when it reads it, before handling it).
	staleECNE int
}

func pcapECNFromKernel(t *testing.T, path string) fromKernel {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 24 {
		t.Fatalf("read pcap %s: %v", path, err)
	}
	guest := netip.MustParseAddr(kernelvm.GuestTapIP).As4()
	var (
		c        fromKernel
		highest  chunk.TSN
		haveData bool
	)
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
		in := [4]byte(rec[12:16]) == guest
		data := false
		it := pkt.Walk()
		for ch, ok := it.Next(); ok; ch, ok = it.Next() {
			switch {
			case in && ch.Type == chunk.TypeData && len(ch.Value) >= 4:
				tsn := chunk.TSN(binary.BigEndian.Uint32(ch.Value))
				if !haveData || tsn.GT(highest) {
					highest, haveData = tsn, true
				} else {
					c.inRetransmits++
				}
				data = true
			case in && ch.Type == chunk.TypeCWR:
				if tsn, err := chunk.ParseCWR(ch); err == nil {
					if c.inCWR == 0 || tsn.GT(c.lastCWR) {
						c.lastCWR = tsn
					}
					c.inCWR++
				}
			case !in && ch.Type == chunk.TypeECNE:
				if tsn, err := chunk.ParseECNE(ch); err == nil {
					if c.inCWR > 0 && !tsn.GT(c.lastCWR) {
						c.staleECNE++
					}
					c.outECNE++
					c.lastECNE = tsn
				}
			}
		}
		if !in || !data {
			continue
		}
		c.inData++
		if rec[1]&3 == 3 {
			c.inCE++
		}
	}
	return c
}
