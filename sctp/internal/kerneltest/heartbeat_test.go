package kerneltest

import (
	"context"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// TestKernelHeartbeat runs associations on which both sides send HEARTBEATs every few
// hundred milliseconds (the kernel through net.sctp.hb_interval and rto_min, usctp
// through its Config) and checks that each side's HEARTBEATs are answered with HEARTBEAT
// ACKs the other accepts (RFC 9260 section 8.3), while data still flows.
func TestKernelHeartbeat(t *testing.T) {
	batchPcaps(t)
	vm := kvm.Get(t)
	// Each sysctl gets its minute: those of the cleanup come after the
	// test's transfers, minutes on a loaded machine.
	set := func(kv string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := vm.Do(ctx, "sysctl "+kv, "OK cmd=sysctl"); err != nil {
			t.Fatal(err)
		}
	}
	// Linux reads these when a socket is created; they are restored for the tests
	// that follow.
	set("net.sctp.hb_interval=100")
	set("net.sctp.rto_min=200")
	set("net.sctp.rto_initial=300")
	t.Cleanup(func() {
		set("net.sctp.hb_interval=30000")
		set("net.sctp.rto_min=1000")
		set("net.sctp.rto_initial=3000")
	})
	forEach(t, transports, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo ostreams=4 istreams=4", cfg: sctp.Config{
			OutStreams: 4, InStreams: 4, Timers: sctp.Timers{HeartbeatInterval: 100 * time.Millisecond,
				RTOInitial: 300 * time.Millisecond, RTOMin: 200 * time.Millisecond}}})
		const want = 3
		var s sctp.Stats
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) { // polling a real peer
			s = p.as.Stats()
			if s.HeartbeatsIn >= want && s.HeartbeatAcks >= want {
				break
			}
			if time.Since(start) > 20*time.Second {
				p.failf("after 20 s: usctp answered %d of the kernel's HEARTBEATs and got %d HEARTBEAT ACKs for its %d; want %d each",
					s.HeartbeatsIn, s.HeartbeatAcks, s.HeartbeatsOut, want)
			}
		}
		msg := payload(make([]byte, 3000), 5)
		p.write(msg, sctp.SendInfo{Stream: 2, PPID: ppidBase + 2})
		if got, info, err := p.readMsg(make([]byte, 4096)); err != nil || info.Stream != 2 || string(got) != string(msg) {
			p.failf("usctp echo: stream %d %d bytes err=%v; want stream 2, 3000 bytes", info.Stream, len(got), err)
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		if l := p.wait("DONE", nil); l.Get("end") != "eof" {
			p.failf("kernel: %s, want end=eof", l)
		}
		t.Logf("heartbeats: usctp sent %d (%d acked), answered %d; srtt %v", s.HeartbeatsOut, s.HeartbeatAcks, s.HeartbeatsIn, s.SRTT)
	})
}
