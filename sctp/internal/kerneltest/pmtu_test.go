package kerneltest

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// TestKernelPMTU runs usctp's path MTU discovery (on by default) against Linux 6.1 with
// its own PLPMTUD off and on (net.sctp.plpmtud_probe_interval 0 and 5000 ms), over both
// transports and both roles: usctp's probes (HEARTBEAT padded with PAD) are acknowledged
// by the kernel and the search completes on the largest packet the path carries, the
// kernel's probes (HEARTBEAT and PAD chunks, with its PLPMTUD on) are answered, and 4 MB
// go each way byte-exact (echoed by the kernel).
//
// The largest packet differs by transport. Over raw IP (transport B) packets cross the
// host's tap link to the guest, 1500 bytes with Don't Fragment: the search ends at 1500
// less the IPv4 header, which proves it finds a link's MTU against Linux. Over UDP the
// guest's port is a QEMU user-network forward on the host's loopback: the route's MTU,
// and so Config.MTU's default, is loopback's (capped at 65535), and QEMU cuts what it
// forwards into IP fragments for the guest's 1500-byte link, so a 64 KB probe does reach
// the kernel, which acknowledges it: the search rightly ends at the bound, 65535 less
// the IPv4 and UDP headers (a multiple of 4). That proves the kernel takes and answers
// probes of every size up to 64 KB, and the echo then runs with 64 KB packets (DATA
// chunks bounded by the kernel's window, see TestKernelSmallWindow).
func TestKernelPMTU(t *testing.T) {
	batchPcaps(t)
	vm := kvm.Get(t)
	// Each sysctl gets its minute: the last one, in the first subtest's
	// cleanup, comes after its transfers, minutes on a loaded machine.
	set := func(kv string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := vm.Do(ctx, "sysctl "+kv, "OK cmd=sysctl"); err != nil {
			t.Fatal(err)
		}
	}
	const total, msgSize = 4 << 20, 16 << 10
	count := total / msgSize
	for _, interval := range []int{0, 5000} {
		t.Run(fmt.Sprintf("kernel-probe-interval=%d", interval), func(t *testing.T) {
			// Linux reads it when a socket is created.
			set(fmt.Sprintf("net.sctp.plpmtud_probe_interval=%d", interval))
			t.Cleanup(func() { set("net.sctp.plpmtud_probe_interval=0") })
			forEach(t, transports, func(t *testing.T, tr, role string) {
				kopts := "mode=echo log=0 buf=4194304"
				p := newPair(t, setup{tr: tr, role: role, kopts: kopts, timeout: 3 * time.Minute,
					cfg: sctp.Config{Timers: sctp.Timers{RTOMin: 200 * time.Millisecond, RTOInitial: 500 * time.Millisecond}}})
				done := make(chan error, 1)
				var crcOut uint32
				go func() {
					msg := make([]byte, msgSize)
					for i := range count {
						payload(msg, i)
						crcOut = crc32.Update(crcOut, crc32.IEEETable, msg)
						if _, err := p.as.WriteMsg(msg, sctp.SendInfo{PPID: ppidBase}); err != nil {
							done <- err
							return
						}
					}
					done <- nil
				}()
				buf := make([]byte, 2*msgSize)
				want := make([]byte, msgSize)
				for n := range count {
					got, _, err := p.readMsg(buf)
					if err == io.EOF || err != nil {
						p.failf("usctp ReadMsg after %d echoed messages: %v", n, err)
					}
					if !bytes.Equal(got, payload(want, n)) {
						p.failf("echoed message %d differs (%d bytes)", n, len(got))
					}
				}
				if err := <-done; err != nil {
					p.failf("usctp WriteMsg: %v", err)
				}
				// The search completes within a few round trips of the first
				// probe; give the slow guest some.
				var pi sctp.PathInfo
				for start := time.Now(); ; time.Sleep(50 * time.Millisecond) { // polling a real peer
					pi = p.as.Paths()[0]
					if pi.PMTU == sctp.PMTUSearchComplete || time.Since(start) > 20*time.Second {
						break
					}
				}
				if interval > 0 {
					// The kernel's probes (HEARTBEAT and PAD) come one interval
					// after the association starts: answer a few.
					for start := time.Now(); ; time.Sleep(100 * time.Millisecond) { // polling a real peer
						if s := p.as.Stats(); s.ChunksIn[chunk.TypePad] >= 2 && s.HeartbeatsIn >= 2 {
							break
						}
						if time.Since(start) > 40*time.Second {
							p.failf("no kernel probes answered in 40 s: %d HEARTBEATs, %d PAD chunks", p.as.Stats().HeartbeatsIn, p.as.Stats().ChunksIn[chunk.TypePad])
						}
					}
				}
				st := p.as.Stats()
				wantMTU := 1500 - 20 // the tap link less the IPv4 header
				if tr == udp {
					wantMTU = loopbackPMTU(t)
				}
				t.Logf("PLPMTU %d (%v); probes %d acked %d lost %d; kernel probes answered %d (PAD chunks %d); %s",
					pi.MTU, pi.PMTU, st.PMTUProbes, st.PMTUProbeAcks, st.PMTUProbesLost, st.HeartbeatsIn, st.ChunksIn[chunk.TypePad], statsLine(st))
				if pi.PMTU != sctp.PMTUSearchComplete || pi.MTU != wantMTU {
					p.failf("PLPMTU %d (%v), want %d (search complete)", pi.MTU, pi.PMTU, wantMTU)
				}
				if err := p.as.Shutdown(p.ctx); err != nil {
					p.failf("usctp Shutdown: %v", err)
				}
			})
		})
	}
}

// TestKernelPMTUDrop lowers the MTU of the host's link to the guest from 1500 to 1280
// during a transfer from usctp to the kernel over raw IP (transport B, whose tap device
// the test controls), usctp as client and as server: the host kernel refuses usctp's
// larger packets (EMSGSIZE, which the socket's error queue reports as too big with the
// new MTU), the path settles on 1260 (1280 less the IPv4 header), the chunks already cut
// larger go as IP fragments, and the kernel receives every byte in order.
func TestKernelPMTUDrop(t *testing.T) {
	batchPcaps(t)
	const total, msgSize = 8 << 20, 16 << 10
	count := total / msgSize
	forEach(t, []string{ip}, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: "mode=sink log=0 buf=4194304", timeout: 3 * time.Minute,
			cfg: sctp.Config{Timers: sctp.Timers{RTOMin: 200 * time.Millisecond, RTOInitial: 500 * time.Millisecond}}})
		t.Cleanup(func() { p.vm.SetTapMTU(1500) })
		start := time.Now()
		msg := make([]byte, msgSize)
		var crc uint32
		var dropAt time.Duration
		for i := range count {
			if i == count/4 {
				if err := p.vm.SetTapMTU(1280); err != nil {
					p.failf("%v", err)
				}
				dropAt = time.Since(start)
			}
			payload(msg, i)
			crc = crc32.Update(crc, crc32.IEEETable, msg)
			p.write(msg, sctp.SendInfo{PPID: ppidBase})
		}
		sent := time.Since(start)
		// The search that the black hole restarted ends some probe timers (1 s each)
		// later; the data went at the sizes known to pass meanwhile.
		var pi sctp.PathInfo
		for wait := time.Now(); ; time.Sleep(100 * time.Millisecond) { // polling a real peer
			pi = p.as.Paths()[0]
			if pi.PMTU == sctp.PMTUSearchComplete || time.Since(wait) > 30*time.Second {
				break
			}
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		l := p.wait("DONE", nil)
		if l.Int("msgs") != count || l.Int("bytes") != total || l.Get("crc") != fmt.Sprintf("%08x", crc) || l.Get("end") != "eof" {
			p.failf("kernel: %s; want msgs=%d bytes=%d crc=%08x end=eof", l, count, total, crc)
		}
		st := p.as.Stats()
		t.Logf("MTU dropped at %v, all written at %v, search complete at %v; PLPMTU %d (%v); PTB used %d ignored %d, notices %d, black holes %d, probes %d lost %d; %s",
			dropAt.Round(time.Millisecond), sent.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), pi.MTU, pi.PMTU,
			st.PTBUsed, st.PTBIgnored, st.NoticesIn, st.PMTUBlackHoles, st.PMTUProbes, st.PMTUProbesLost, statsLine(st))
		if pi.MTU != 1260 || pi.PMTU != sctp.PMTUSearchComplete {
			p.failf("PLPMTU %d (%v), want 1260 (search complete)", pi.MTU, pi.PMTU)
		}
	})
}

// loopbackPMTU is the PLPMTU the search ends on over UDP encapsulation (the QEMU forward
// on loopback, see TestKernelPMTU): loopback's MTU capped at 65535 (Config.MTU's
// default), less the IPv4 and UDP headers, rounded down to a multiple of 4.
func loopbackPMTU(t *testing.T) int {
	t.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagLoopback != 0 {
			return (min(ifc.MTU, 65535) - 20 - 8) &^ 3
		}
	}
	t.Fatal("no loopback interface")
	return 0
}
