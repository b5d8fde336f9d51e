package kerneltest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp"
)

// TestKernelStreams checks the stream counts the handshake negotiates (RFC 9260 section
// 5.1.1: each direction gets the sender's OS capped by the receiver's MIS) and that the
// last stream of each direction carries data while the next one is refused:
//
//   - max: both sides ask for 65535 streams each way and get them;
//   - kernel-fewer: the kernel offers 100 out and takes 50 in, usctp asks 65535 each way;
//   - usctp-fewer: usctp offers 30 out and takes 20 in, the kernel asks 65535 each way.
func TestKernelStreams(t *testing.T) {
	batchPcaps(t)
	cases := []struct {
		name      string
		kopts     string
		out, in   uint16 // usctp's request
		wantOut   uint16 // usctp's outbound count = the kernel's inbound
		wantIn    uint16 // usctp's inbound count = the kernel's outbound
		transport []string
	}{
		{"max", "ostreams=65535 istreams=65535", 65535, 65535, 65535, 65535, transports},
		{"kernel-fewer", "ostreams=100 istreams=50", 65535, 65535, 50, 100, []string{udp}},
		{"usctp-fewer", "ostreams=65535 istreams=65535", 30, 20, 30, 20, []string{udp}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEach(t, c.transport, func(t *testing.T, tr, role string) {
				p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo " + c.kopts,
					cfg: sctp.Config{OutStreams: c.out, InStreams: c.in}})
				out, in := p.as.Streams()
				kout, kin := p.kline.Int("ostreams"), p.kline.Int("istreams")
				if out != c.wantOut || in != c.wantIn || kout != int(c.wantIn) || kin != int(c.wantOut) {
					p.failf("streams: usctp out=%d in=%d, kernel %s; want usctp out=%d in=%d, kernel ostreams=%d istreams=%d",
						out, in, p.kline, c.wantOut, c.wantIn, c.wantIn, c.wantOut)
				}
				// usctp's last outbound stream: the kernel echoes on the same stream
				// id, which is below its outbound count only when that is as large.
				last := c.wantOut - 1
				msg := payload(make([]byte, 300), int(last))
				p.write(msg, sctp.SendInfo{Stream: last, PPID: ppidBase + 7})
				if l := p.wait("MSG", nil); l.Int("sid") != int(last) || l.Int("ppid") != ppidBase+7 || l.Get("crc") != crcHex(msg) {
					p.failf("kernel received %s; want sid=%d ppid=%d len=300 crc=%s", l, last, ppidBase+7, crcHex(msg))
				}
				buf := make([]byte, 1024)
				if last < c.wantIn {
					if got, info, err := p.readMsg(buf); err != nil || info.Stream != last || string(got) != string(msg) {
						p.failf("usctp echo: stream %d %d bytes err=%v; want stream %d 300 bytes", info.Stream, len(got), err, last)
					}
				} else if l := p.wait("ERR", nil); l.Get("cmd") != "echo" {
					p.failf("kernel echo on stream %d of %d: %s; want an ERR cmd=echo", last, c.wantIn, l)
				}
				// One past the last: refused by usctp.
				if _, err := p.as.WriteMsg(msg, sctp.SendInfo{Stream: c.wantOut}); c.wantOut < 65535 && !errors.Is(err, sctp.ErrStreamID) {
					p.failf("usctp WriteMsg on stream %d of %d: %v, want ErrStreamID", c.wantOut, c.wantOut, err)
				}
				// The kernel's last outbound stream arrives; one past it is refused
				// by the kernel.
				klast := c.wantIn - 1
				p.do(fmt.Sprintf("send id=%%s sid=%d ppid=%d len=77 seq=3", klast, ppidBase+8), "SENT id=%s ")
				if got, info, err := p.readMsg(buf); err != nil || info.Stream != klast || info.PPID != ppidBase+8 || len(got) != 77 {
					p.failf("usctp: stream %d PPID %d %d bytes err=%v; want stream %d PPID %d 77 bytes", info.Stream, info.PPID, len(got), err, klast, ppidBase+8)
				}
				if c.wantIn < 65535 {
					p.do(fmt.Sprintf("send id=%%s sid=%d ppid=1 len=5", c.wantIn), "ERR id=%s ")
				}
				if err := p.as.Shutdown(p.ctx); err != nil {
					p.failf("usctp Shutdown: %v", err)
				}
				p.wait("DONE", nil)
			})
		})
	}
}
