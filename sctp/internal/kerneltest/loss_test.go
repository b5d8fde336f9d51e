package kerneltest

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// lossyConn is usctp's UDP socket for transport A with deterministic loss: after the
// handshake's first packets it drops every dropEvery-th packet it sends and every
// dropEvery-th packet it receives (offset so the two directions do not align).
type lossyConn struct {
	*net.UDPConn
	out, in         atomic.Int64
	dropEvery       int64
	dropOut, dropIn atomic.Int64
}

const lossSkip = 8 // packets each way before the first drop: let the handshake through

func (c *lossyConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if n := c.out.Add(1); n > lossSkip && n%c.dropEvery == 0 {
		c.dropOut.Add(1)
		return len(p), nil
	}
	return c.UDPConn.WriteTo(p, addr)
}

func (c *lossyConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, from, err := c.UDPConn.ReadFrom(p)
		if err != nil {
			return n, from, err
		}
		if k := c.in.Add(1); k > lossSkip && (k+c.dropEvery/2)%c.dropEvery == 0 {
			c.dropIn.Add(1)
			continue
		}
		return n, from, nil
	}
}

// TestKernelLoss moves 4 MB each way, byte-exact, over transport A while usctp's socket
// drops one packet in 50 in each direction: the kernel's SACKs with gap reports drive
// usctp's retransmissions, and usctp's drive the kernel's (RFC 9260 sections 6.2 and
// 7.2.4). (The host has no netem, so the loss is on usctp's side of the socket.)
func TestKernelLoss(t *testing.T) {
	batchPcaps(t)
	const total, size = 4 << 20, 32 << 10
	count := total / size
	for _, dir := range []string{"to-kernel", "from-kernel"} {
		t.Run(dir, func(t *testing.T) {
			forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
				uc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
				if err != nil {
					t.Fatal(err)
				}
				lc := &lossyConn{UDPConn: uc, dropEvery: 50}
				kopts := "mode=sink log=0 buf=4194304"
				if dir == "from-kernel" {
					kopts = fmt.Sprintf("mode=source log=0 buf=4194304 count=%d size=%d ppid=%d then=close", count, size, ppidBase)
				}
				p := newPair(t, setup{tr: tr, role: role, kopts: kopts, timeout: 3 * time.Minute,
					cfg: sctp.Config{PacketConn: lc, Timers: sctp.Timers{RTOMin: 200 * time.Millisecond, RTOInitial: 500 * time.Millisecond}}})
				start := time.Now()
				if dir == "to-kernel" {
					msg := make([]byte, size)
					var crc uint32
					for i := range count {
						payload(msg, i)
						crc = crc32.Update(crc, crc32.IEEETable, msg)
						p.write(msg, sctp.SendInfo{PPID: ppidBase})
					}
					if err := p.as.Shutdown(p.ctx); err != nil {
						p.failf("usctp Shutdown: %v (%s)", err, statsLine(p.as.Stats()))
					}
					if l := p.wait("DONE", nil); l.Int("msgs") != count || l.Int("bytes") != total || l.Get("crc") != fmt.Sprintf("%08x", crc) || l.Get("end") != "eof" {
						p.failf("kernel: %s; want msgs=%d bytes=%d crc=%08x end=eof", l, count, total, crc)
					}
				} else {
					buf := make([]byte, 2*size)
					want := make([]byte, size)
					n := 0
					for ; ; n++ {
						got, info, err := p.readMsg(buf)
						if err == io.EOF {
							break
						}
						if err != nil {
							p.failf("usctp ReadMsg after %d messages: %v (%s)", n, err, statsLine(p.as.Stats()))
						}
						if n >= count || info.PPID != ppidBase || !bytes.Equal(got, payload(want, n)) {
							p.failf("usctp message %d: PPID %d %d bytes crc %s; want PPID %d %d bytes crc %s", n, info.PPID, len(got), crcHex(got), ppidBase, size, crcHex(want))
						}
					}
					if n != count {
						p.failf("usctp got %d messages before EOF, want %d", n, count)
					}
				}
				s := p.as.Stats()
				if lc.dropOut.Load() == 0 || lc.dropIn.Load() == 0 {
					p.failf("no loss: dropped %d sent and %d received packets", lc.dropOut.Load(), lc.dropIn.Load())
				}
				t.Logf("%d MB %s with %d sent and %d received packets dropped: %v; %s", total>>20, dir,
					lc.dropOut.Load(), lc.dropIn.Load(), time.Since(start).Round(time.Millisecond), statsLine(s))
			})
		})
	}
}
