package kerneltest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelAbortInFlight aborts associations in the middle of a transfer: the kernel
// aborts while usctp is writing (usctp's blocked or next WriteMsg and its reads must
// fail with the peer's AbortError, and the association must end), and usctp aborts
// while the kernel is sending (the kernel's source must see the association lost).
func TestKernelAbortInFlight(t *testing.T) {
	batchPcaps(t)
	t.Run("by-kernel", func(t *testing.T) {
		forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
			p := newPair(t, setup{tr: tr, role: role, kopts: "mode=sink", cfg: sctp.Config{Buffers: sctp.Buffers{SendBuffer: 256 << 10}}})
			werr := make(chan error, 1)
			go func() {
				msg := make([]byte, 16<<10)
				for i := 0; ; i++ {
					p.as.SetWriteDeadline(deadline(p.ctx))
					if _, err := p.as.WriteMsg(payload(msg, i), sctp.SendInfo{PPID: ppidBase}); err != nil {
						werr <- err
						return
					}
				}
			}()
			for range 20 {
				p.wait("MSG", nil)
			}
			p.do("abort id=%s", "ABORTED id=%s")
			select {
			case err := <-werr:
				if !errors.Is(err, sctp.ErrPeerAborted) {
					p.failf("usctp WriteMsg after the kernel's ABORT: %v, want the peer's AbortError", err)
				}
			case <-time.After(30 * time.Second):
				p.failf("usctp WriteMsg still blocked 30 s after the kernel's ABORT")
			}
			select {
			case <-p.as.Done():
			case <-time.After(10 * time.Second):
				p.failf("usctp association not done after the kernel's ABORT")
			}
			if _, _, err := p.readMsg(make([]byte, 100)); !errors.Is(err, sctp.ErrPeerAborted) {
				p.failf("usctp ReadMsg after the kernel's ABORT: %v, want the peer's AbortError", err)
			}
		})
	})
	t.Run("by-usctp", func(t *testing.T) {
		forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
			kopts := fmt.Sprintf("mode=source count=100000 size=16384 ppid=%d log=0", ppidBase)
			p := newPair(t, setup{tr: tr, role: role, kopts: kopts, cfg: sctp.Config{Buffers: sctp.Buffers{RecvBuffer: 128 << 10}}})
			buf := make([]byte, 32<<10)
			for i := range 20 {
				if _, _, err := p.readMsg(buf); err != nil {
					p.failf("usctp ReadMsg %d: %v", i, err)
				}
			}
			if err := p.as.Abort("kerneltest in flight"); err != nil {
				p.failf("usctp Abort: %v", err)
			}
			l := p.wait("EVENT", func(l kernelvm.Line) bool { return l.Get("type") == "assoc_change" && l.Get("state") != "comm_up" })
			if l.Get("state") != "comm_lost" {
				p.failf("kernel after usctp's ABORT: %s, want state=comm_lost", l)
			}
			if l := p.wait("ERR", nil); l.Get("cmd") != "source" {
				p.failf("kernel source after usctp's ABORT: %s, want ERR cmd=source", l)
			}
			if err := p.as.Err(); !errors.Is(err, sctp.ErrLocalAbort) {
				p.failf("usctp Err after Abort: %v, want ErrLocalAbort", err)
			}
		})
	})
}
