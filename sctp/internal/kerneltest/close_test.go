package kerneltest

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelClose ends associations in each way from each side, with data in flight just
// before: graceful shutdown and ABORT, started by usctp and by the kernel, with usctp as
// client and as server, over both transports. Data written before a SHUTDOWN must arrive
// whole; after an ABORT each side must report it (usctp: an AbortError saying who
// aborted; kpeer: end=abort or COMMUNICATION LOST).
func TestKernelClose(t *testing.T) {
	batchPcaps(t)
	for _, how := range []string{"shutdown", "abort"} {
		for _, by := range []string{"usctp", "kernel"} {
			t.Run(how+"-by-"+by, func(t *testing.T) {
				forEach(t, transports, func(t *testing.T, tr, role string) {
					testClose(t, tr, role, how, by)
				})
			})
		}
	}
}

func testClose(t *testing.T, tr, role, how, by string) {
	p := newPair(t, setup{tr: tr, role: role, kopts: "mode=sink ostreams=8 istreams=8", cfg: sctp.Config{OutStreams: 8, InStreams: 8}})
	const n = 3
	sizes := []int{10, 5000, 70000}
	if by == "usctp" {
		// Messages written just before the shutdown must all arrive.
		for i := range n {
			p.write(payload(make([]byte, sizes[i]), i), sctp.SendInfo{Stream: uint16(i), PPID: uint32(ppidBase + i)})
		}
		if how == "abort" {
			// Let them arrive first: an abort may drop what is in flight.
			for range n {
				p.wait("MSG", nil)
			}
			if err := p.as.Abort("kerneltest"); err != nil {
				p.failf("usctp Abort: %v", err)
			}
			l := p.wait("EVENT", func(l kernelvm.Line) bool { return l.Get("type") == "assoc_change" && l.Get("state") != "comm_up" })
			if l.Get("state") != "comm_lost" {
				p.failf("kernel after usctp's ABORT: %s, want state=comm_lost", l)
			}
			if err := p.as.Err(); !errors.Is(err, sctp.ErrLocalAbort) {
				p.failf("usctp Err after Abort: %v, want ErrLocalAbort", err)
			}
			p.wait("DONE", nil)
			return
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		if l := p.wait("DONE", nil); l.Int("msgs") != n || l.Int("bytes") != 10+5000+70000 || l.Get("end") != "eof" {
			p.failf("kernel after usctp's SHUTDOWN: %s, want msgs=%d bytes=%d end=eof", l, n, 75010)
		}
		if err := p.as.Err(); err != nil {
			p.failf("usctp Err after Shutdown: %v, want nil", err)
		}
		return
	}
	// The kernel sends, then closes or aborts.
	for i := range n {
		p.do("send id=%s sid="+itoa(i)+" ppid="+itoa(ppidBase+i)+" len="+itoa(sizes[i])+" seq="+itoa(i), "SENT id=%s ")
	}
	buf := make([]byte, 128<<10)
	if how == "abort" {
		for i := range n {
			got, info, err := p.readMsg(buf)
			if err != nil || int(info.Stream) != i || info.PPID != uint32(ppidBase+i) || len(got) != sizes[i] {
				p.failf("usctp message %d: stream %d PPID %d %d bytes err=%v; want stream %d PPID %d %d bytes", i, info.Stream, info.PPID, len(got), err, i, ppidBase+i, sizes[i])
			}
		}
		p.do("abort id=%s", "ABORTED id=%s")
		_, _, err := p.readMsg(buf)
		var ae *sctp.AbortError
		if !errors.Is(err, sctp.ErrPeerAborted) || !errors.As(err, &ae) || !ae.ByPeer {
			p.failf("usctp read after the kernel's ABORT: %v, want an AbortError from the peer", err)
		}
		select {
		case <-p.as.Done():
		case <-time.After(10 * time.Second):
			p.failf("usctp association not done 10 s after the kernel's ABORT")
		}
		if l := p.wait("DONE", nil); l.Get("end") != "abort" {
			p.failf("kernel: %s, want end=abort", l)
		}
		return
	}
	p.do("close id=%s", "CLOSED id=%s")
	for i := range n {
		got, info, err := p.readMsg(buf)
		if err != nil || int(info.Stream) != i || info.PPID != uint32(ppidBase+i) || string(got) != string(payload(make([]byte, sizes[i]), i)) {
			p.failf("usctp message %d before the kernel's SHUTDOWN: stream %d PPID %d %d bytes err=%v; want stream %d PPID %d %d bytes",
				i, info.Stream, info.PPID, len(got), err, i, ppidBase+i, sizes[i])
		}
	}
	p.expectEOF()
	select {
	case <-p.as.Done():
	case <-time.After(10 * time.Second):
		p.failf("usctp association not done 10 s after the kernel's SHUTDOWN")
	}
	if err := p.as.Err(); err != nil {
		p.failf("usctp Err after the kernel's SHUTDOWN: %v, want nil", err)
	}
	if l := p.wait("DONE", nil); l.Get("end") != "eof" {
		p.failf("kernel: %s, want end=eof", l)
	}
}
