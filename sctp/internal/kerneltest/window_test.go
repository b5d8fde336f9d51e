package kerneltest

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/usctp/usctp/sctp"
)

// TestKernelSmallWindow runs messages larger than the receiver's window each way, which
// the receiver can only take by partial delivery, read in small pieces: the kernel sends
// 100 KB messages to usctp advertising a 32 KiB window (read 8 KiB at a time), and usctp
// sends 150 KB messages to a kernel socket with a 64 KiB receive buffer.
func TestKernelSmallWindow(t *testing.T) {
	batchPcaps(t)
	const count, size = 12, 100000
	t.Run("to-usctp", func(t *testing.T) {
		forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
			kopts := fmt.Sprintf("mode=source count=%d size=%d ppid=%d streams=2 then=close ostreams=2 istreams=2", count, size, ppidBase)
			p := newPair(t, setup{tr: tr, role: role, kopts: kopts, cfg: sctp.Config{OutStreams: 2, InStreams: 2, Buffers: sctp.Buffers{RecvBuffer: 32 << 10}}})
			buf := make([]byte, 8<<10)
			want := make([]byte, size)
			per := [2]int{}
			for n := 0; ; n++ {
				got, info, err := p.readMsg(buf)
				if err == io.EOF {
					if n != count {
						p.failf("usctp got %d messages before EOF, want %d", n, count)
					}
					break
				}
				if err != nil {
					p.failf("usctp ReadMsg after %d messages: %v (%s)", n, err, statsLine(p.as.Stats()))
				}
				if info.Stream > 1 {
					p.failf("usctp message %d on stream %d", n, info.Stream)
				}
				i := int(info.Stream) + 2*per[info.Stream]
				per[info.Stream]++
				if info.PPID != ppidBase+uint32(info.Stream) || !bytes.Equal(got, payload(want, i)) {
					p.failf("usctp message %d: stream %d PPID %d %d bytes crc %s; want message %d: PPID %d %d bytes crc %s",
						n, info.Stream, info.PPID, len(got), crcHex(got), i, ppidBase+i%2, size, crcHex(want))
				}
			}
			t.Logf("%s", statsLine(p.as.Stats()))
		})
	})
	t.Run("to-kernel", func(t *testing.T) {
		forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
			p := newPair(t, setup{tr: tr, role: role, kopts: "mode=sink buf=32768 ostreams=2 istreams=2", cfg: sctp.Config{OutStreams: 2, InStreams: 2}})
			const big = 150000
			var msgs [][]byte
			for i := range 3 {
				m := payload(make([]byte, big), i)
				msgs = append(msgs, m)
				p.write(m, sctp.SendInfo{Stream: uint16(i % 2), PPID: ppidBase + uint32(i)})
			}
			// Streams 0 and 1 are independent: match by PPID, check per-stream order.
			next := [2]int{0, 1}
			for n := range 3 {
				l := p.wait("MSG", nil)
				i := l.Int("ppid") - ppidBase
				if i < 0 || i >= len(msgs) || l.Int("sid") != i%2 || next[i%2] != i || l.Int("len") != big || l.Get("crc") != crcHex(msgs[i]) {
					p.failf("kernel message %d: %s; want one of sid=0 ppid=%d, sid=1 ppid=%d (len=%d, crc of the sent payload)", n, l, ppidBase+next[0], ppidBase+next[1], big)
				}
				next[i%2] += 2
			}
			if err := p.as.Shutdown(p.ctx); err != nil {
				p.failf("usctp Shutdown: %v", err)
			}
			t.Logf("%s", statsLine(p.as.Stats()))
		})
	})
}
