package kerneltest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// TestKernelPRPolicies: the kernel sends under Linux's PR-SCTP policies while usctp's
// socket drops one packet in 8 each way. kpeer's source sends count messages, message i
// on stream i%2 with PPID ppidBase+i%2; stream 0's messages are reliable, stream 1's
// carry the policy under test. usctp reads with a buffer smaller than the largest
// messages and a small receive window, so messages come in parts (partial delivery):
//
//   - ttl: stream 1's messages have a 100 ms lifetime (SCTP_PR_SCTP_TTL); the kernel
//     abandons those still unacknowledged when it would retransmit them after that.
//   - prio: stream 0's messages have priority 0, stream 1's priority 10
//     (SCTP_PR_SCTP_PRIO, RFC 7496 section 3.2) and the kernel's send buffer is small:
//     when a priority 0 message finds it full, Linux gives up queued and sent
//     priority 10 messages to make room.
//
// In both, every stream 0 message must arrive, intact and in order; stream 1's messages
// that arrive are intact and in order; a message never ends early: its parts either end
// with EOR and the whole message, or with a RecvInfo.Aborted read (usctp's receiver
// applies the kernel's FORWARD-TSN); the kernel's graceful shutdown completes.
//
// What Linux 6.1 does, seen in the pcaps: when it gives up a message some of whose
// fragments it sent, it gives up the fragments not yet sent without a TSN. If the sent
// ones are still unacknowledged it sends FORWARD-TSN up to the last one sent, which may
// be at or behind usctp's cumulative TSN (out of date by RFC 3758 section 3.6); usctp
// still drops the message and skips its SSN (transfer's HandleForwardTSN). If they were
// all acknowledged it sends no FORWARD-TSN at all: usctp ends the message when the TSN
// after its last fragment turns out to hold another message (DATA fragments of a
// message have consecutive TSNs), with RecvInfo.Aborted; when no TSN follows before the
// association ends (and always with I-DATA) the reader gets the first parts, then
// io.EOF (prReader logs such messages).
func TestKernelPRPolicies(t *testing.T) {
	batchPcaps(t)
	for _, tc := range []struct {
		name, pr, buf string
	}{
		{"ttl", "none,ttl:100", "1048576"},
		{"prio", "prio:0,prio:10", "16384"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prFromKernelPolicy(t, "pr="+tc.pr+" buf="+tc.buf, sctp.Config{}, 1)
		})
	}
}

// TestKernelPRInterleaving: PR-SCTP with I-DATA (RFC 8260) against the kernel, so
// abandoned messages are skipped with I-FORWARD-TSN (RFC 8260 section 2.3), both ways,
// while usctp's socket drops one packet in 8 each way. Both sides use I-DATA with the
// round-robin scheduler (per chunk) and usctp numbers fragments Linux's way
// (InterleaveFSN FSNLinux, see TestKernelInterleaving).
//
//   - to-kernel: Linux 6.1 does not list I-FORWARD-TSN in its Supported Extensions,
//     so by RFC 8260 section 2.3.1 PR-SCTP is not negotiated with I-DATA and usctp
//     gives up no message it sent (the test checks that and stops; should a Linux
//     list it, the test fails, to be turned into TestKernelPartialReliability's
//     to-kernel transfer, which prToKernelWith then runs with I-FORWARD-TSN checks).
//   - from-kernel: TestKernelPRPolicies' ttl scenario over I-DATA. Linux does send
//     I-FORWARD-TSN (it deems PR-SCTP on from our Forward-TSN-Supported parameter) and
//     usctp applies them, as it applies any I-FORWARD-TSN on an association with I-DATA.
func TestKernelPRInterleaving(t *testing.T) {
	batchPcaps(t)
	cfg := sctp.Config{OutStreams: 4, InStreams: 4, Extensions: sctp.Extensions{Interleaving: true, InterleaveFSN: sctp.FSNLinux}, Scheduler: sctp.SchedulerRoundRobin}
	const kopts = "intl=1 sched=rr ostreams=4 istreams=4"
	t.Run("to-kernel", func(t *testing.T) { prToKernelWith(t, kopts, cfg) })
	t.Run("from-kernel", func(t *testing.T) {
		prFromKernelPolicy(t, kopts+" pr=none,ttl:100 buf=1048576", cfg, 1)
	})
}

// prSizes are the sizes kpeer's source cycles through in the PR-SCTP tests (message i
// has prSizes[i%4] bytes): one to seven chunks.
var prSizes = []int{200, 6000, 700, 3000}

// prFromKernelPolicy runs kpeer as a source of 200 messages on two streams with the
// options kopts (pr=..., buf=..., intl=...) against usctp with configuration cfg
// (transport and loss set here) and checks what usctp reads: stream 0 complete and in
// order when stream 0 is reliable, both streams intact and in order, aborted partial
// deliveries only for stream prStream's messages.
func prFromKernelPolicy(t *testing.T, kopts string, cfg sctp.Config, prStream int) {
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		uc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		lc := &lossyConn{UDPConn: uc, dropEvery: 8}
		const count, streams = 200, 2
		var sz []string
		for _, s := range prSizes {
			sz = append(sz, strconv.Itoa(s))
		}
		kopts := fmt.Sprintf("mode=source log=0 count=%d size=%s streams=%d ppid=%d then=close %s",
			count, strings.Join(sz, ","), streams, ppidBase, kopts)
		c := cfg
		c.PacketConn = lc
		c.Timers.RTOMin, c.Timers.RTOInitial = 200*time.Millisecond, 500*time.Millisecond
		c.Buffers.RecvBuffer = 16 << 10
		p := newPair(t, setup{tr: tr, role: role, kopts: kopts, timeout: 2 * time.Minute, cfg: c})
		if !cfg.Extensions.Interleaving && !p.as.PartialReliability() {
			p.failf("PR-SCTP not negotiated with the kernel")
		}
		start := time.Now()
		r := newPRReader(p, count, streams, prStream)
		r.run()
		for sid := range streams {
			if sid != prStream && r.last[sid] != count-streams+sid {
				p.failf("reliable stream %d delivered up to message %d of %d", sid, r.last[sid], count)
			}
		}
		s := p.as.Stats()
		t.Logf("%d of %d messages received (%d on stream %d) with %d/%d packets dropped in %v; %d FORWARD-TSNs in (%d invalid, I-FORWARD-TSN %d), %d partial deliveries aborted, %d aborted parts read; %s",
			r.got, count, r.perStream[prStream], prStream, lc.dropOut.Load(), lc.dropIn.Load(), time.Since(start).Round(time.Millisecond),
			s.ForwardTSNsIn, s.ForwardTSNsInvalid, s.ChunksIn[chunk.TypeIForwardTSN], s.PartialDeliveriesAborted, r.aborted, statsLine(s))
		if cfg.Extensions.Interleaving && s.ChunksIn[chunk.TypeForwardTSN] != 0 {
			p.failf("FORWARD-TSN from the kernel with I-DATA")
		}
		if !cfg.Extensions.Interleaving && s.ChunksIn[chunk.TypeIForwardTSN] != 0 {
			p.failf("I-FORWARD-TSN from the kernel without I-DATA")
		}
		if r.perStream[prStream] == count/streams {
			t.Logf("kernel gave up no message on stream %d", prStream)
		} else if s.ForwardTSNsIn == 0 {
			t.Logf("stream %d missed %d messages, all given up by the kernel before they were sent (no FORWARD-TSN)", prStream, count/streams-r.perStream[prStream])
		}
	})
}

// prReader reads what kpeer's source sends (message i: stream i%streams, PPID
// ppidBase+sid, prSizes[i%4] bytes of payload(i)) with ReadMsg in parts and checks it.
type prReader struct {
	p              *pair
	count, streams int
	last           []int // per stream: the last message index read whole
	perStream      []int
	got, aborted   int
	cut            int               // messages left in partial delivery when the association ended
	parts          map[[2]int][]byte // (stream, unordered): the message being read in parts
	prStream       int               // the stream whose messages may be given up; the others are reliable
	log            []string          // the last reads, for failures
}

func newPRReader(p *pair, count, streams, prStream int) *prReader {
	r := &prReader{p: p, count: count, streams: streams, last: make([]int, streams), perStream: make([]int, streams),
		parts: map[[2]int][]byte{}, prStream: prStream}
	for i := range r.last {
		r.last[i] = i - streams
	}
	return r
}

// run reads until the kernel's shutdown (io.EOF).
func (r *prReader) run() {
	p := r.p
	buf := make([]byte, 2000) // less than the large messages: they come in parts
	want := make([]byte, 8<<10)
	p.as.SetReadDeadline(deadline(p.ctx))
	for {
		n, info, err := p.as.ReadMsg(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			p.failf("usctp ReadMsg after %d messages: %v (%s)", r.got, err, statsLine(p.as.Stats()))
		}
		r.log = append(r.log, fmt.Sprintf("s%d/ssn%d/tsn%d:%d%s%s", info.Stream, info.SSN, info.TSN, n,
			map[bool]string{true: "E"}[info.EOR], map[bool]string{true: "A"}[info.Aborted]))
		if len(r.log) > 12 {
			r.log = r.log[1:]
		}
		sid := int(info.Stream)
		k := [2]int{sid, 0}
		if info.Unordered {
			k[1] = 1
		}
		part, open := r.parts[k]
		if info.Aborted {
			if !open || n != 0 {
				p.failf("Aborted read (%d bytes) on stream %d with no message in partial delivery; last reads %v", n, sid, r.log)
			}
			i := int(part[0]) * 183 % 256
			if sid != r.prStream {
				p.failf("usctp: message %d on stream %d, reliable, aborted after %d bytes", i, sid, len(part))
			}
			delete(r.parts, k)
			r.aborted++
			continue
		}
		msg := append(part, buf[:n]...)
		if !info.EOR {
			r.parts[k] = msg
			continue
		}
		delete(r.parts, k)
		// Message i starts with byte(i*7): 183 is 7's inverse modulo 256.
		i := int(msg[0]) * 183 % 256
		if i >= r.count || sid != i%r.streams || info.PPID != uint32(ppidBase+sid) || len(msg) != prSizes[i%len(prSizes)] ||
			!bytes.Equal(msg, payload(want[:len(msg)], i)) || i <= r.last[sid] || sid != r.prStream && i != r.last[sid]+r.streams {
			p.failf("usctp message %+v of %d bytes: not message %d whole, intact and in order (last on its stream %d)", info, len(msg), i, r.last[sid])
		}
		r.last[sid] = i
		r.perStream[sid]++
		r.got++
	}
	// A message whose first parts were read and whose rest Linux gave up without a
	// (I-)FORWARD-TSN (the fragments it had sent were all acknowledged, and no later
	// TSN of the association shows that its next fragment will not come: with I-DATA
	// none can, fragments of a message need not have consecutive TSNs) stays in
	// partial delivery until the association ends: the reader sees its first parts,
	// then io.EOF. Only the partially reliable stream may end so.
	for k, part := range r.parts {
		i := int(part[0]) * 183 % 256
		if k[0] != r.prStream {
			p.failf("message %d of reliable stream %d left in partial delivery at the end (%d bytes read)", i, k[0], len(part))
		}
		r.cut++
		p.t.Logf("message %d on stream %d: %d of %d bytes read, the rest given up by the kernel without a FORWARD-TSN; then io.EOF",
			i, k[0], len(part), prSizes[i%len(prSizes)])
	}
}
