package kerneltest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelStreamReconfig runs stream reconfiguration (RFC 6525) against Linux 6.1
// (net.sctp.reconf_enable=1, kpeer reset=1: SCTP_ENABLE_STREAM_RESET with every request
// allowed), usctp in both roles over UDP:
//
//   - usctp resets its outgoing stream 2: the kernel reports the reset
//     (SCTP_STREAM_RESET_EVENT, incoming) and delivers the next message with SSN 0;
//   - the kernel resets its outgoing stream 3 (SCTP_RESET_STREAMS): usctp emits
//     EventStreamReset (incoming, [3]) and reads the next message with SSN 0;
//   - usctp asks the kernel to reset its outgoing streams (an Incoming SSN Reset Request,
//     answered by the kernel's Outgoing SSN Reset Request);
//   - usctp adds 2 outgoing and 3 incoming streams, and the kernel adds 4 and 5
//     (SCTP_ADD_STREAMS); the new last stream of each side carries data.
//
// With I-DATA (idata/...) the resets restart the MIDs: the SSN checks do not apply, but a
// message after a reset is only delivered when both sides restarted the stream's MID.
func TestKernelStreamReconfig(t *testing.T) {
	batchPcaps(t)
	t.Run("data", func(t *testing.T) { kernelReconfig(t, false) })
	t.Run("idata", func(t *testing.T) { kernelReconfig(t, true) })
}

// reconfSetup is the association of the RFC 6525 kernel tests: 10 streams each way, a
// kpeer sink that allows every reconfiguration request, I-DATA when idata is set. ssnOK
// checks a delivered SSN against the one expected, which with I-DATA is not compared
// (the MID restarts instead).
func reconfSetup(idata bool) (kopts string, cfg sctp.Config, ssnOK func(got, want int) bool) {
	kopts, cfg = "mode=sink reset=1 ostreams=10 istreams=10", sctp.Config{OutStreams: 10, InStreams: 10}
	if idata {
		kopts += " intl=1"
		cfg.Extensions.Interleaving = true
	}
	return kopts, cfg, func(got, want int) bool { return idata || got == want }
}

func kernelReconfig(t *testing.T, idata bool) {
	kopts, cfg, ssnOK := reconfSetup(idata)
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: kopts, cfg: cfg})
		buf := make([]byte, 1024)
		msgOn := func(sid uint16, seq int) {
			t.Helper()
			msg := payload(make([]byte, 100), seq)
			p.write(msg, sctp.SendInfo{Stream: sid, PPID: ppidBase})
		}
		kmsg := func(sid uint16) kernelvm.Line {
			t.Helper()
			return p.wait("MSG", func(l kernelvm.Line) bool { return l.Int("sid") == int(sid) })
		}
		event := func(k sctp.EventKind) sctp.Event {
			t.Helper()
			timeout := time.After(time.Minute)
			for {
				select {
				case ev := <-p.as.Events():
					if ev.Kind == k {
						return ev
					}
				case <-timeout:
					p.failf("no %v event", k)
				}
			}
		}

		// usctp's outgoing reset.
		msgOn(2, 1)
		msgOn(2, 2)
		kmsg(2)
		if l := kmsg(2); !ssnOK(l.Int("ssn"), 1) {
			p.failf("kernel: %s, want ssn=1", l)
		}
		if err := p.as.ResetStreams(p.ctx, sctp.DirOutgoing, 2); err != nil {
			p.failf("ResetStreams outgoing: %v", err)
		}
		if l := p.wait("EVENT", func(l kernelvm.Line) bool { return l.Get("type") == "stream_reset" }); l.Int("flags")&1 == 0 {
			p.failf("kernel event %s: want an incoming stream reset (flags&1)", l)
		}
		msgOn(2, 3)
		if l := kmsg(2); !ssnOK(l.Int("ssn"), 0) {
			p.failf("kernel after the reset: %s, want ssn=0", l)
		}
		if ev := event(sctp.EventStreamReset); ev.Direction != sctp.DirOutgoing || !slices.Equal(ev.Streams, []uint16{2}) || ev.Err != nil {
			p.failf("usctp event %+v", ev)
		}

		// The kernel's outgoing reset of stream 3.
		for i := range 2 {
			p.do(fmt.Sprintf("send id=%%s sid=3 ppid=%d len=50 seq=%d", ppidBase, i), "SENT id=%s ")
			if _, info, err := p.readMsg(buf); err != nil || info.Stream != 3 || !ssnOK(int(info.SSN), i) {
				p.failf("usctp read: stream %d ssn %d err %v", info.Stream, info.SSN, err)
			}
		}
		p.do("reset id=%s sids=3 dir=out", "OK cmd=reset id=%s ")
		ev := event(sctp.EventStreamReset)
		if ev.Direction != sctp.DirIncoming || !slices.Equal(ev.Streams, []uint16{3}) || ev.Err != nil {
			p.failf("usctp event %+v, want incoming [3]", ev)
		}
		p.wait("EVENT", func(l kernelvm.Line) bool { return l.Get("type") == "stream_reset" })
		p.do(fmt.Sprintf("send id=%%s sid=3 ppid=%d len=50 seq=9", ppidBase), "SENT id=%s ")
		if _, info, err := p.readMsg(buf); err != nil || info.Stream != 3 || !ssnOK(int(info.SSN), 0) {
			p.failf("usctp read after the kernel's reset: stream %d ssn %d err %v", info.Stream, info.SSN, err)
		}

		// usctp asks the kernel to reset its outgoing streams.
		if err := p.as.ResetStreams(p.ctx, sctp.DirIncoming, 3); err != nil {
			p.failf("ResetStreams incoming: %v", err)
		}
		if ev := event(sctp.EventStreamReset); ev.Direction != sctp.DirIncoming || ev.Err != nil {
			p.failf("usctp event %+v", ev)
		}
		p.do(fmt.Sprintf("send id=%%s sid=3 ppid=%d len=50 seq=10", ppidBase), "SENT id=%s ")
		if _, info, err := p.readMsg(buf); err != nil || info.Stream != 3 || !ssnOK(int(info.SSN), 0) {
			p.failf("usctp read after its incoming reset: stream %d ssn %d err %v", info.Stream, info.SSN, err)
		}

		// Added streams: usctp's request, then the kernel's.
		if err := p.as.AddStreams(p.ctx, 2, 3); err != nil {
			p.failf("AddStreams: %v", err)
		}
		p.wait("EVENT", func(l kernelvm.Line) bool { return l.Get("type") == "stream_change" })
		p.do("addstreams id=%s out=4 in=5", "OK cmd=addstreams id=%s ")
		for range 2 {
			event(sctp.EventStreamsAdded)
		}
		// Both of usctp's additions and both of the kernel's have landed once the
		// kernel's own counts say so.
		var out, in uint16
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if out, in = p.as.Streams(); out == 10+2+5 && in == 10+3+4 {
				break
			}
		}
		if out != 17 || in != 17 {
			p.failf("usctp streams out=%d in=%d, want 17/17", out, in)
		}
		msgOn(16, 4)
		if l := kmsg(16); !ssnOK(l.Int("ssn"), 0) {
			p.failf("kernel on an added stream: %s", l)
		}
		p.do(fmt.Sprintf("send id=%%s sid=16 ppid=%d len=50 seq=11", ppidBase), "SENT id=%s ")
		if _, info, err := p.readMsg(buf); err != nil || info.Stream != 16 {
			p.failf("usctp read on an added stream: stream %d err %v", info.Stream, err)
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		p.wait("DONE", nil)
	})
}

// TestKernelStreamReconfigDenied: a kernel socket that does not allow stream resets
// (no SCTP_ENABLE_STREAM_RESET) answers usctp's requests "Denied" (RFC 6525 section
// 5.2.1: "The decision to deny a re-configuration request is an administrative decision");
// ResetStreams returns ErrReconfigDenied, usctp's stream keeps its numbering, and the
// association goes on.
func TestKernelStreamReconfigDenied(t *testing.T) {
	batchPcaps(t)
	p := newPair(t, setup{tr: udp, role: client, kopts: "mode=sink ostreams=10 istreams=10",
		cfg: sctp.Config{OutStreams: 10, InStreams: 10}})
	p.write(payload(make([]byte, 100), 1), sctp.SendInfo{Stream: 2, PPID: ppidBase})
	p.wait("MSG", nil)
	if err := p.as.ResetStreams(p.ctx, sctp.DirOutgoing, 2); !errors.Is(err, sctp.ErrReconfigDenied) {
		p.failf("ResetStreams on a socket without SCTP_ENABLE_STREAM_RESET: %v, want ErrReconfigDenied", err)
	}
	p.write(payload(make([]byte, 100), 2), sctp.SendInfo{Stream: 2, PPID: ppidBase})
	if l := p.wait("MSG", nil); l.Int("ssn") != 1 {
		p.failf("kernel after a denied reset: %s, want ssn=1", l)
	}
	if err := p.as.Shutdown(p.ctx); err != nil {
		p.failf("usctp Shutdown: %v", err)
	}
	p.wait("DONE", nil)
}
