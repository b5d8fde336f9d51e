package kerneltest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelPartialReliability: usctp sends to the kernel over transport A while its
// socket drops one packet in 8 each way. Even messages are reliable (stream 1), odd ones
// partially reliable on stream 2 (ordered), alternately with a 200 ms lifetime and with
// no retransmission at all, some of them several chunks long. The kernel negotiates
// PR-SCTP by default (net.sctp.prsctp_enable=1), so usctp abandons lost messages and
// sends FORWARD-TSN chunks (RFC 3758 section 3.5). The kernel must accept them: every
// reliable message arrives, in order and intact; the partially reliable ones that
// arrive are intact and in order; the association stays up and the graceful shutdown
// completes, which needs the kernel's cumulative TSN past every abandoned TSN.
func TestKernelPartialReliability(t *testing.T) {
	batchPcaps(t)
	t.Run("to-kernel", prToKernel)
	t.Run("from-kernel", prFromKernel)
}

func prToKernel(t *testing.T) { prToKernelWith(t, "", sctp.Config{}) }

// prToKernelWith runs prToKernel's scenario with more kpeer options and usctp's
// configuration cfg (its transport fields and RTO bounds are set here).
func prToKernelWith(t *testing.T, kopts string, cfg sctp.Config) {
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		uc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		lc := &lossyConn{UDPConn: uc, dropEvery: 8}
		c := cfg
		c.PacketConn, c.Timers.RTOMin, c.Timers.RTOInitial = lc, 200*time.Millisecond, 500*time.Millisecond
		p := newPair(t, setup{tr: tr, role: role, kopts: "mode=sink buf=1048576 " + kopts, timeout: 3 * time.Minute, cfg: c})
		if cfg.Extensions.Interleaving {
			// RFC 8260 section 2.3.1 negotiates I-FORWARD-TSN through the Supported
			// Extensions Parameter: "The partial reliability extension is negotiated
			// and can be used in combination with user message interleaving only if
			// both endpoints indicated their support of user message interleaving
			// and the I-FORWARD-TSN chunk." Linux 6.1
			// lists I-DATA but not I-FORWARD-TSN in its Supported Extensions (and
			// announces PR-SCTP with the Forward-TSN-Supported parameter only), so
			// usctp does not use PR-SCTP for sent messages; Linux itself sends
			// I-FORWARD-TSN (see from-kernel). Fail when that changes.
			if p.as.PartialReliability() {
				p.failf("PR-SCTP with I-DATA negotiated with the kernel: Linux now lists I-FORWARD-TSN; test the transfer")
			}
			if err := p.as.Shutdown(p.ctx); err != nil {
				p.failf("usctp Shutdown: %v", err)
			}
			t.Logf("Linux %s with I-DATA: no I-FORWARD-TSN in its Supported Extensions, PR-SCTP not used for sent messages", p.vm.Guest().Release)
			return
		}
		if !p.as.PartialReliability() {
			p.failf("PR-SCTP not negotiated with the kernel")
		}
		const count = 240
		var msgs []message
		for i := range count {
			size := 200 + (i*613)%2600 // up to three chunks
			sid := uint16(1 + i%2)
			msgs = append(msgs, message{sid, uint32(ppidBase + i), false, payload(make([]byte, size), i)})
		}
		start := time.Now()
		for i, m := range msgs {
			info := sctp.SendInfo{Stream: m.sid, PPID: m.ppid}
			switch i % 4 {
			case 1:
				info.PR = sctp.Lifetime(200 * time.Millisecond)
			case 3:
				info.PR = sctp.MaxRetransmits(0)
			}
			p.write(m.data, info)
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v (%s)", err, statsLine(p.as.Stats()))
		}
		// The kernel's MSG lines, then DONE.
		next := map[int]int{1: 0, 2: 1} // per stream: the lowest index the next message may have
		got := 0
		for {
			l, err := p.vm.Wait(p.ctx, func(l kernelvm.Line) bool {
				return (l.Verb == "MSG" || l.Verb == "DONE") && l.Get("id") == p.id
			})
			if err != nil {
				p.failf("kernel: %v after %d messages", err, got)
			}
			if l.Verb == "DONE" {
				if l.Get("end") != "eof" || l.Int("msgs") != got {
					p.failf("kernel: %s; want end=eof after %d messages", l, got)
				}
				break
			}
			i := l.Int("ppid") - ppidBase
			if i < 0 || i >= count || l.Int("sid") != int(msgs[i].sid) || l.Int("len") != len(msgs[i].data) || l.Get("crc") != crcHex(msgs[i].data) {
				p.failf("kernel received %s: not a sent message", l)
			}
			sid := int(msgs[i].sid)
			if sid == 1 && i != next[1] || i < next[sid] {
				p.failf("kernel received message %d on stream %d, expected %d next", i, sid, next[sid])
			}
			next[sid] = i + 2
			got++
		}
		if next[1] != count {
			p.failf("kernel got the reliable messages up to %d of %d", next[1], count)
		}
		s := p.as.Stats()
		if s.ForwardTSNsOut == 0 || s.PRAbandoned[sctp.PRTTL]+s.PRAbandoned[sctp.PRRtx] == 0 {
			p.failf("nothing abandoned: %d FORWARD-TSNs, abandoned %v", s.ForwardTSNsOut, s.PRAbandoned)
		}
		fwd, other := chunk.TypeForwardTSN, chunk.TypeIForwardTSN
		if cfg.Extensions.Interleaving {
			fwd, other = other, fwd
		}
		if s.ChunksOut[fwd] == 0 || s.ChunksOut[other] != 0 {
			p.failf("usctp sent %d %v and %d %v chunks: want the first only", s.ChunksOut[fwd], fwd, s.ChunksOut[other], other)
		}
		t.Logf("%d of %d messages delivered (all %d reliable) with %d/%d packets dropped in %v: abandoned ttl %d rtx %d (%d never sent), %d FORWARD-TSNs; %s",
			got, count, count/2, lc.dropOut.Load(), lc.dropIn.Load(), time.Since(start).Round(time.Millisecond),
			s.PRAbandoned[sctp.PRTTL], s.PRAbandoned[sctp.PRRtx], s.PRAbandonedUnsent, s.ForwardTSNsOut, statsLine(s))
	})
}

// prFromKernel: the kernel sends 200 messages on two ordered streams, each with no
// retransmission allowed (sinfo_flags SCTP_PR_SCTP_RTX, value 0), while usctp's socket
// drops one packet in 8 each way. The kernel abandons what is lost and sends FORWARD-TSN
// chunks; usctp must apply them (RFC 3758 section 3.6): the messages that arrive are
// intact and in order per stream, and the kernel's graceful shutdown completes (usctp's
// cumulative TSN reached the kernel's last TSN), so ReadMsg ends with io.EOF.
func prFromKernel(t *testing.T) {
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		uc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		lc := &lossyConn{UDPConn: uc, dropEvery: 8}
		const count, streams = 200, 2
		kopts := fmt.Sprintf("mode=source log=0 buf=1048576 count=%d size=200,1500,3000,700 streams=%d ppid=%d pr=rtx:0 then=close",
			count, streams, ppidBase)
		p := newPair(t, setup{tr: tr, role: role, kopts: kopts, timeout: 3 * time.Minute,
			cfg: sctp.Config{PacketConn: lc, Timers: sctp.Timers{RTOMin: 200 * time.Millisecond, RTOInitial: 500 * time.Millisecond}}})
		start := time.Now()
		buf := make([]byte, 8<<10)
		want := make([]byte, 8<<10)
		last := [streams]int{-1, -1}
		got := 0
		for {
			msg, info, err := p.readMsg(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				p.failf("usctp ReadMsg after %d messages: %v (%s)", got, err, statsLine(p.as.Stats()))
			}
			if len(msg) == 0 {
				p.failf("empty message %+v", info)
			}
			// Message i starts with byte(i*7): 183 is 7's inverse modulo 256.
			i := int(msg[0]) * 183 % 256
			sid := int(info.Stream)
			if i >= count || sid != i%streams || info.PPID != uint32(ppidBase+sid) || !bytes.Equal(msg, payload(want[:len(msg)], i)) || i <= last[sid] {
				p.failf("usctp message %+v of %d bytes: not message %d intact and in order (last on its stream %d)", info, len(msg), i, last[sid])
			}
			last[sid] = i
			got++
		}
		s := p.as.Stats()
		if s.ForwardTSNsIn == 0 {
			p.failf("no FORWARD-TSN from the kernel: %s", statsLine(s))
		}
		t.Logf("%d of %d messages received with %d/%d packets dropped in %v; %d FORWARD-TSNs in (%d invalid), %d partial deliveries aborted; %s",
			got, count, lc.dropOut.Load(), lc.dropIn.Load(), time.Since(start).Round(time.Millisecond),
			s.ForwardTSNsIn, s.ForwardTSNsInvalid, s.PartialDeliveriesAborted, statsLine(s))
	})
}
