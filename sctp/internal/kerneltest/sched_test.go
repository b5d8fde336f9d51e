package kerneltest

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp"
)

// The traffic of the scheduler tests: message i goes on stream i%schedStreams with PPID
// ppidBase+i%schedStreams, its size cycles through schedSizes (single chunks and
// fragmented messages) and its payload is payload(i), as kpeer's sources do.
const (
	schedStreams = 6
	schedCount   = 60
)

var schedSizes = []int{1, 1000, 5000, 30000}

func schedSize(i int) int { return schedSizes[i%len(schedSizes)] }

// checkSchedMsg checks message number k of stream sid against the pattern; it returns a
// description of the difference, or "".
func checkSchedMsg(sid uint16, k int, ppid uint32, data []byte) string {
	i := int(sid) + k*schedStreams
	want := payload(make([]byte, schedSize(i)), i)
	if int(sid) >= schedStreams || ppid != uint32(ppidBase)+uint32(sid) || string(data) != string(want) {
		return fmt.Sprintf("want message %d: stream %d PPID %d %d bytes crc %s", i, i%schedStreams, ppidBase+i%schedStreams, len(want), crcHex(want))
	}
	return ""
}

// TestKernelSchedulers: the kernel sends with each of its stream schedulers (6.1: fcfs,
// prio, rr) while usctp receives, and usctp sends with each of its own (fcfs, prio, rr,
// fc, wfq, rrp) while the kernel receives; every message must arrive whole, on its stream,
// with its PPID, in order within its stream. The arrival order of the streams is logged.
func TestKernelSchedulers(t *testing.T) {
	batchPcaps(t)
	for _, s := range []string{"fcfs", "prio", "rr"} {
		t.Run("kernel-"+s, func(t *testing.T) { kernelSends(t, kvm, s) })
	}
	for _, k := range []sctp.Scheduler{sctp.SchedulerFCFS, sctp.SchedulerPriority, sctp.SchedulerRoundRobin, sctp.SchedulerFairCapacity, sctp.SchedulerWFQ, sctp.SchedulerRoundRobinPacket} {
		t.Run("usctp-"+k.String(), func(t *testing.T) { usctpSends(t, k) })
	}
}

// TestKernelSchedulers612 boots the 6.12 kernel for the two schedulers 6.1 lacks: fc and
// wfq on the kernel's sending side while usctp receives.
func TestKernelSchedulers612(t *testing.T) {
	batchPcaps(t)
	for _, s := range []string{"fc", "wfq"} {
		t.Run("kernel-"+s, func(t *testing.T) { kernelSends(t, kvm612, s) })
	}
}

func kernelSends(t *testing.T, vm *guestVM, name string) {
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		kopts := fmt.Sprintf("mode=source sched=%s count=%d streams=%d size=%s ppid=%d then=close ostreams=%d istreams=%d",
			name, schedCount, schedStreams, joinInts(schedSizes), ppidBase, schedStreams, schedStreams)
		p := newPair(t, setup{tr: tr, role: role, kopts: kopts, vm: vm, cfg: sctp.Config{OutStreams: schedStreams, InStreams: schedStreams}})
		buf := make([]byte, 64<<10)
		per := make([]int, schedStreams)
		var order []string
		for n := 0; ; n++ {
			got, info, err := p.readMsg(buf)
			if err == io.EOF {
				if n != schedCount {
					p.failf("usctp got %d messages before EOF, want %d", n, schedCount)
				}
				break
			}
			if err != nil {
				p.failf("usctp ReadMsg after %d messages: %v", n, err)
			}
			if int(info.Stream) >= schedStreams {
				p.failf("usctp message %d on stream %d, want below %d", n, info.Stream, schedStreams)
			}
			if d := checkSchedMsg(info.Stream, per[info.Stream], info.PPID, got); d != "" {
				p.failf("usctp message %d: stream %d PPID %d %d bytes crc %s; %s", n, info.Stream, info.PPID, len(got), crcHex(got), d)
			}
			per[info.Stream]++
			order = append(order, fmt.Sprint(info.Stream))
		}
		t.Logf("kernel %s scheduler %s: stream order %s", p.vm.Guest().Release, name, strings.Join(first(order, 30), ","))
	})
}

func usctpSends(t *testing.T, k sctp.Scheduler) {
	forEach(t, []string{udp}, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: fmt.Sprintf("mode=sink ostreams=%d istreams=%d", schedStreams, schedStreams),
			cfg: sctp.Config{OutStreams: schedStreams, InStreams: schedStreams, Scheduler: k}})
		switch k {
		case sctp.SchedulerPriority: // the last stream first
			for s := range schedStreams {
				if err := p.as.SetStreamValue(uint16(s), uint16(schedStreams-s)); err != nil {
					p.failf("SetStreamValue(%d): %v", s, err)
				}
			}
		case sctp.SchedulerWFQ: // weight = stream id + 1
			for s := range schedStreams {
				if err := p.as.SetStreamValue(uint16(s), uint16(s+1)); err != nil {
					p.failf("SetStreamValue(%d): %v", s, err)
				}
			}
		}
		for i := range schedCount {
			sid := uint16(i % schedStreams)
			p.write(payload(make([]byte, schedSize(i)), i), sctp.SendInfo{Stream: sid, PPID: uint32(ppidBase) + uint32(sid)})
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		per := make([]int, schedStreams)
		var order []string
		for n := range schedCount {
			l := p.wait("MSG", nil)
			sid := l.Int("sid")
			if sid < 0 || sid >= schedStreams {
				p.failf("kernel message %d: %s; want a stream below %d", n, l, schedStreams)
			}
			i := sid + per[sid]*schedStreams
			want := payload(make([]byte, schedSize(i)), i)
			if l.Int("ppid") != ppidBase+sid || l.Int("len") != len(want) || l.Get("crc") != crcHex(want) {
				p.failf("kernel message %d: %s; want message %d: sid=%d ppid=%d len=%d crc=%s", n, l, i, sid, ppidBase+sid, len(want), crcHex(want))
			}
			per[sid]++
			order = append(order, fmt.Sprint(sid))
		}
		if l := p.wait("DONE", nil); l.Int("msgs") != schedCount || l.Get("end") != "eof" {
			p.failf("kernel: %s; want msgs=%d end=eof", l, schedCount)
		}
		t.Logf("usctp scheduler %s: stream order %s", k, strings.Join(first(order, 30), ","))
	})
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
