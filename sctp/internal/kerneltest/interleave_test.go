package kerneltest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// intlSizes are the messages of TestKernelInterleaving, sent in this order: message i
// goes on stream intlStream(i) with PPID ppidBase+i. Two 200 KB messages (streams 1 and
// 2) are followed by small ones on streams 0 and 3, which a per-chunk scheduler sends
// between the large messages' fragments, and a second pair of large ones closes.
var intlSizes = []int{200 << 10, 200 << 10, 100, 1000, 3000, 1, 5000, 500, 150 << 10, 180 << 10, 20, 2000}

// intlStream puts the large messages on streams 1 and 2 and the small ones on 0 and 3.
func intlStream(i int) uint16 {
	if intlSizes[i] >= 100<<10 {
		return uint16(1 + i%2)
	}
	return uint16(3 * (i % 2))
}

// TestKernelInterleaving negotiates I-DATA (RFC 8260) with the kernel (kpeer intl=1,
// usctp Interleaving with round-robin per chunk and Linux's FSN numbering) over
// transport A, usctp as client and as server, and sends large messages on two streams
// interleaved with small ones on two others, which kpeer's echo mode returns. Both sides
// check every message's stream, PPID, length and content; usctp must have sent and
// received I-DATA chunks only. The FSN the kernel gives a message's second fragment is
// read from usctp's pcap and logged (Linux 6.1: 0).
//
// usctp numbers Linux's way from the start (FSNLinux): with FSNAuto it sends RFC 8260's
// numbering (second fragment FSN 1) until it has seen Linux's, and Linux 6.1 SACKs such
// messages but never delivers them, so every ordered stream stops at its first
// multi-fragment message and, usctp sending first, the kernel never sends the
// fragmented echo that would make usctp switch.
func TestKernelInterleaving(t *testing.T) {
	batchPcaps(t)
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo buf=4194304 intl=1 sched=rr ostreams=4 istreams=4",
			cfg: sctp.Config{OutStreams: 4, InStreams: 4, Scheduler: sctp.SchedulerRoundRobin,
				Extensions: sctp.Extensions{Interleaving: true, InterleaveFSN: sctp.FSNLinux},
				// usctp reads the echoes only once the kernel has all the messages: a
				// window smaller than one large echo keeps the kernel's echoes queued
				// together, so its scheduler has messages to interleave whatever the
				// timing (with a large window each echo could leave whole before the
				// next was written).
				Buffers: sctp.Buffers{RecvBuffer: 64 << 10}}})
		msgs := make([]message, len(intlSizes))
		for i, size := range intlSizes {
			msgs[i] = message{intlStream(i), uint32(ppidBase + i), false, payload(make([]byte, size), i)}
		}
		werr := make(chan error, 1)
		go func() {
			for _, m := range msgs {
				if _, err := p.as.WriteMsg(m.data, sctp.SendInfo{Stream: m.sid, PPID: m.ppid}); err != nil {
					werr <- fmt.Errorf("WriteMsg %d bytes on stream %d: %w", len(m.data), m.sid, err)
					return
				}
			}
			werr <- nil
		}()
		// The kernel's side: each message once, whole, in order within its stream.
		kseen := map[int]bool{}
		var korder []string
		last := map[int]int{}
		for range msgs {
			l := p.wait("MSG", nil)
			i := l.Int("ppid") - ppidBase
			if i < 0 || i >= len(msgs) || kseen[i] {
				p.failf("kernel received %s: no such message sent, or twice", l)
			}
			w := &msgs[i]
			if l.Int("sid") != int(w.sid) || l.Int("len") != len(w.data) || l.Int("unordered") != 0 || l.Get("crc") != crcHex(w.data) {
				p.failf("kernel received %s; want %v", l, w)
			}
			if j, ok := last[int(w.sid)]; ok && j > i {
				p.failf("kernel received message %d on stream %d after message %d", i, w.sid, j)
			}
			last[int(w.sid)] = i
			kseen[i] = true
			korder = append(korder, fmt.Sprintf("%d:s%d", i, w.sid))
		}
		// usctp's side: the echoes.
		buf := make([]byte, 64<<10)
		useen := map[int]bool{}
		var uorder []string
		ulast := map[uint16]int{}
		for range msgs {
			got, info, err := p.readMsg(buf)
			if err != nil {
				p.failf("usctp ReadMsg: %v after %d echoes", err, len(useen))
			}
			i := int(info.PPID) - ppidBase
			if i < 0 || i >= len(msgs) || useen[i] {
				p.failf("usctp received %d bytes on stream %d with PPID %d: no such message sent, or twice", len(got), info.Stream, info.PPID)
			}
			w := &msgs[i]
			if info.Stream != w.sid || info.Unordered || !bytes.Equal(got, w.data) {
				p.failf("usctp received stream %d PPID %d unordered=%v %d bytes (crc %s); want %v",
					info.Stream, info.PPID, info.Unordered, len(got), crcHex(got), w)
			}
			if j, ok := ulast[info.Stream]; ok && j > i {
				p.failf("usctp received message %d on stream %d after message %d", i, info.Stream, j)
			}
			ulast[info.Stream] = i
			useen[i] = true
			uorder = append(uorder, fmt.Sprintf("%d:s%d", i, info.Stream))
		}
		if err := <-werr; err != nil {
			p.failf("%v", err)
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		if l := p.wait("DONE", nil); l.Int("msgs") != len(msgs) || l.Get("end") != "eof" {
			p.failf("kernel: %s, want msgs=%d end=eof", l, len(msgs))
		}
		s := p.as.Stats()
		if s.ChunksOut[chunk.TypeIData] == 0 || s.ChunksIn[chunk.TypeIData] == 0 || s.ChunksOut[chunk.TypeData] != 0 || s.ChunksIn[chunk.TypeData] != 0 {
			p.failf("usctp chunks I-DATA out=%d in=%d, DATA out=%d in=%d: want I-DATA only, both ways",
				s.ChunksOut[chunk.TypeIData], s.ChunksIn[chunk.TypeIData], s.ChunksOut[chunk.TypeData], s.ChunksIn[chunk.TypeData])
		}
		p.ep.Close() // flushes the pcap; the pair's cleanup closes it again, harmlessly
		f := idataFragments(t, p.pcap, p.ep.Addr().UDPPort)
		if f.kernelSecond == nil {
			p.failf("no multi-fragment message from the kernel in the pcap")
		}
		if f.interleavedIn == 0 || f.interleavedOut == 0 {
			p.failf("I-DATA chunks of another message between a large message's fragments: kernel %d, usctp %d; want both > 0",
				f.interleavedIn, f.interleavedOut)
		}
		t.Logf("kernel %s: second-fragment FSN %s (Linux's 0, RFC 8260's 1); usctp sent %s",
			p.vm.Guest().Release, fsnSet(f.kernelSecond), fsnSet(f.usctpSecond))
		t.Logf("interleaved chunks: kernel %d, usctp %d; I-DATA out=%d in=%d; kernel arrival %s; usctp arrival %s",
			f.interleavedIn, f.interleavedOut, s.ChunksOut[chunk.TypeIData], s.ChunksIn[chunk.TypeIData],
			strings.Join(korder, ","), strings.Join(uorder, ","))
	})
}

// intlFrags is what idataFragments finds in a pcap.
type intlFrags struct {
	kernelSecond, usctpSecond     map[uint32]int // FSN of second fragments -> count
	interleavedIn, interleavedOut int            // chunks of another message amid a fragmented one
}

func fsnSet(m map[uint32]int) string {
	var s []string
	for fsn, n := range m {
		s = append(s, fmt.Sprintf("%d (%d messages)", fsn, n))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// idataFragments reads usctp's pcap of transport A (LINKTYPE_RAW, IPv4, UDP; usctp's
// port is port) and collects, per direction, the FSN of each message's second I-DATA
// fragment (the chunk after the first one of the same stream and MID in TSN order) and
// how often another message's chunk came between the first and last fragment of one.
func idataFragments(t *testing.T, path string, port uint16) intlFrags {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 24 {
		t.Fatalf("read pcap %s: %v", path, err)
	}
	type key struct {
		in  bool
		sid uint16
		mid uint32
	}
	type state struct {
		tsn    chunk.TSN
		frags  int
		others int
	}
	f := intlFrags{kernelSecond: map[uint32]int{}, usctpSecond: map[uint32]int{}}
	open := map[key]*state{}
	seenTSN := map[[2]uint32]bool{} // retransmissions counted once
	for off := 24; off+16 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		rec := b[off+16 : min(off+16+n, len(b))]
		off += 16 + n
		if len(rec) < 28 || rec[9] != 17 {
			continue
		}
		in := binary.BigEndian.Uint16(rec[22:]) == port // to usctp: from the kernel
		pkt, err := chunk.ParsePacket(rec[28:])
		if err != nil {
			continue
		}
		it := pkt.Walk()
		for c, ok := it.Next(); ok; c, ok = it.Next() {
			if c.Type != chunk.TypeIData {
				continue
			}
			d, err := chunk.ParseIData(c)
			if err != nil {
				t.Errorf("pcap %s: %v", path, err)
				continue
			}
			dir := uint32(0)
			if in {
				dir = 1
			}
			if seenTSN[[2]uint32{dir, uint32(d.TSN)}] {
				continue
			}
			seenTSN[[2]uint32{dir, uint32(d.TSN)}] = true
			k := key{in, d.SID, d.MID}
			for ok2, s := range open {
				if ok2.in == in && ok2 != k {
					s.others++
				}
			}
			s := open[k]
			if d.Beginning() {
				if d.End() {
					continue
				}
				open[k] = &state{tsn: d.TSN, frags: 1}
				continue
			}
			if s == nil {
				continue
			}
			s.frags++
			if s.frags == 2 {
				if in {
					f.kernelSecond[d.FSN]++
				} else {
					f.usctpSecond[d.FSN]++
				}
			}
			if d.End() {
				if in {
					f.interleavedIn += s.others
				} else {
					f.interleavedOut += s.others
				}
				delete(open, k)
			}
		}
	}
	return f
}
