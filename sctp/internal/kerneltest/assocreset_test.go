package kerneltest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelAssocReset runs the SSN/TSN Reset Request (RFC 6525 sections 5.1.4 and
// 5.2.4) against Linux 6.1 (kpeer reset=1: SCTP_ENABLE_STREAM_RESET with
// SCTP_ENABLE_RESET_ASSOC_REQ), usctp in both roles over UDP, with messages on streams
// 2 (usctp to kernel) and 3 (kernel to usctp) before and after each reset:
//
//   - usctp's Association.ResetAssociation: the kernel performs it and reports
//     SCTP_ASSOC_RESET_EVENT with the same two next TSNs as usctp's EventAssocReset;
//     the next message each way has SSN 0;
//   - the kernel's SCTP_RESET_ASSOC: usctp performs it (EventAssocReset), and again
//     the next message each way has SSN 0.
//
// With I-DATA (idata/...) the resets restart the MIDs: the SSN checks do not apply, but
// a message after a reset is only delivered when both sides restarted the stream's MID.
func TestKernelAssocReset(t *testing.T) {
	batchPcaps(t)
	t.Run("data", func(t *testing.T) { kernelAssocReset(t, false) })
	t.Run("idata", func(t *testing.T) { kernelAssocReset(t, true) })
}

func kernelAssocReset(t *testing.T, idata bool) {
	kopts, cfg, ssnOK := reconfSetup(idata)
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: kopts, cfg: cfg})
		buf := make([]byte, 1024)
		seq := 0
		// exchange sends n messages each way and checks their SSNs count from first.
		exchange := func(n, first int) {
			t.Helper()
			for i := range n {
				seq++
				p.write(payload(make([]byte, 100), seq), sctp.SendInfo{Stream: 2, PPID: ppidBase})
				if l := p.wait("MSG", func(l kernelvm.Line) bool { return l.Int("sid") == 2 }); !ssnOK(l.Int("ssn"), first+i) {
					p.failf("kernel: %s, want ssn=%d", l, first+i)
				}
				seq++
				p.do(fmt.Sprintf("send id=%%s sid=3 ppid=%d len=50 seq=%d", ppidBase, seq), "SENT id=%s ")
				if _, info, err := p.readMsg(buf); err != nil || info.Stream != 3 || !ssnOK(int(info.SSN), first+i) {
					p.failf("usctp read: stream %d ssn %d err %v, want stream 3 ssn %d", info.Stream, info.SSN, err, first+i)
				}
			}
		}
		event := func() sctp.Event {
			t.Helper()
			timeout := time.After(time.Minute)
			for {
				select {
				case ev := <-p.as.Events():
					if ev.Kind == sctp.EventAssocReset {
						return ev
					}
				case <-timeout:
					p.failf("no EventAssocReset")
				}
			}
		}
		// sameTSNs checks that the kernel's event names usctp's two next TSNs.
		sameTSNs := func(ev sctp.Event) {
			t.Helper()
			l := p.wait("EVENT", func(l kernelvm.Line) bool { return l.Get("type") == "assoc_reset" })
			if l.Get("flags") != "0x0" {
				p.failf("kernel event %s: want success", l)
			}
			k := []uint32{uint32(l.Int("local_tsn")), uint32(l.Int("remote_tsn"))}
			u := []uint32{ev.NextTSN, ev.PeerNextTSN}
			slices.Sort(k)
			slices.Sort(u)
			if !slices.Equal(k, u) {
				p.failf("kernel event %s, usctp event %+v: different TSNs", l, ev)
			}
		}

		exchange(2, 0)
		if err := p.as.ResetAssociation(p.ctx); err != nil {
			p.failf("ResetAssociation: %v", err)
		}
		ev := event()
		if ev.Err != nil || ev.Direction != sctp.DirBoth {
			p.failf("usctp event %+v", ev)
		}
		sameTSNs(ev)
		exchange(2, 0)

		p.do("resetassoc id=%s", "OK cmd=resetassoc id=%s ")
		ev = event()
		if ev.Err != nil {
			p.failf("usctp event %+v", ev)
		}
		sameTSNs(ev)
		exchange(1, 0)
		st := p.as.Stats().Reconf
		if st.AssocResetsOut != 1 || st.AssocResetsIn != 1 {
			p.failf("usctp counters %+v", st)
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		p.wait("DONE", nil)
	})
}
