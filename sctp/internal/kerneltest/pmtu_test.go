package kerneltest

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// TestKernelPMTU runs usctp's path MTU discovery (on by default) against Linux 6.1 with
// its own PLPMTUD off and on (net.sctp.plpmtud_probe_interval 0 and 5000 ms), over both
// transports and both roles: usctp's probes (HEARTBEAT padded with PAD) are acknowledged
// by the kernel and the path converges on the link's MTU (1500 less the headers), the
// kernel's probes (HEARTBEAT and PAD chunks, with its PLPMTUD on) are answered, and 4 MB
// go each way byte-exact (echoed by the kernel).
func TestKernelPMTU(t *testing.T) {
	batchPcaps(t)
	vm := kvm.Get(t)
	ctx := ctxFor(t, time.Minute)
	set := func(kv string) {
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
					cfg: sctp.Config{RTOMin: 200 * time.Millisecond, RTOInitial: 500 * time.Millisecond}})
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
				wantMTU := 1500 - 20 // IPv4 header; UDP's too with encapsulation
				if tr == udp {
					wantMTU -= 8
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
