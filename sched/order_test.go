package sched

import (
	"strings"
	"testing"
)

// orderCase queues messages and records the stream of every chunk sent.
type orderCase struct {
	name     string
	kind     Kind
	idata    bool
	frag     int      // chunk size
	packet   int      // chunks per packet (PacketDone after each packet); 0: never
	values   []uint16 // per-stream value (priority or weight), by stream
	msgs     string   // queued messages in arrival order: "a3" is 3 bytes on stream a
	want     string   // streams of the chunks sent, one letter per chunk
	blocked  string   // streams blocked before sending
	unblockN int      // after this many chunks, unblock the blocked streams (0: never)
}

func TestServiceOrder(t *testing.T) {
	cases := []orderCase{
		// RFC 8260 section 3.1: "It just passes through the messages in the
		// order in which they have been delivered by the application."
		{name: "fcfs arrival order", kind: FCFS, frag: 10, msgs: "a10 b10 a10 c10 b10", want: "abacb"},
		{name: "fcfs whole messages", kind: FCFS, frag: 10, msgs: "a30 b10 a20", want: "aaabaa"},
		{name: "fcfs idata keeps messages whole", kind: FCFS, idata: true, frag: 10, msgs: "a30 b10 a20", want: "aaabaa"},
		{name: "fcfs blocked skipped then first", kind: FCFS, frag: 10, msgs: "a10 b10 a10 c10", blocked: "a", unblockN: 1, want: "baac"},
		{name: "fcfs blocked never served", kind: FCFS, frag: 10, msgs: "a10 b10 a10 c10", blocked: "a", want: "bc"},

		// Section 3.2: round robin per message without I-DATA ...
		{name: "rr per message", kind: RoundRobin, frag: 10, msgs: "a30 a10 b10 b20 c10", want: "aaabcabb"},
		// ... and per chunk with it.
		{name: "rr per chunk with idata", kind: RoundRobin, idata: true, frag: 10, msgs: "a30 a10 b10 b20 c10", want: "abcababa"},
		{name: "rr blocked never blocks others", kind: RoundRobin, frag: 10, msgs: "a10 a10 b10 b10", blocked: "a", want: "bb"},
		{name: "rr unblocked joins the round", kind: RoundRobin, frag: 10, msgs: "a10 a10 b10 b10 c10", blocked: "a", unblockN: 1, want: "bcbaa"},

		// Section 3.3: round robin per packet, one stream's data per packet.
		{name: "rrp one stream per packet", kind: RoundRobinPacket, idata: true, frag: 10, packet: 2, msgs: "a40 b40 c20", want: "aabbccaabb"},
		{name: "rrp stream runs out mid packet", kind: RoundRobinPacket, idata: true, frag: 10, packet: 3, msgs: "a10 b50 c30", want: "abbcccbbb"},
		{name: "rrp long message spans packets", kind: RoundRobinPacket, frag: 10, packet: 2, msgs: "a50 b20", want: "aaaaabb"},

		// Section 3.4: strict priority, lower value first, round robin
		// within a priority.
		{name: "prio strict", kind: Priority, frag: 10, values: []uint16{2, 1, 1}, msgs: "a10 a10 b10 c10 b10 c10", want: "bcbcaa"},
		{name: "prio rr within level per chunk", kind: Priority, idata: true, frag: 10, values: []uint16{5, 5, 9}, msgs: "c10 a20 b20", want: "ababc"},
		{name: "prio message not split without idata", kind: Priority, frag: 10, values: []uint16{5, 5}, msgs: "a20 b20", want: "aabb"},
		{name: "prio high blocked, low served", kind: Priority, frag: 10, values: []uint16{0, 7}, msgs: "a10 b10 b10", blocked: "a", want: "bb"},
		{name: "prio 65535 lowest", kind: Priority, frag: 10, values: []uint16{65535, 4096, 4095}, msgs: "a10 b10 c10", want: "cba"},

		// Section 3.5: fair capacity equalises bytes, not messages.
		{name: "fc equal turns", kind: FairCapacity, idata: true, frag: 30, msgs: "a300 b90", want: "ababab" + strings.Repeat("a", 7)},
		{name: "fc small and large messages", kind: FairCapacity, frag: 100, msgs: "a10 a10 a10 a10 a10 a10 a10 b30 b30", want: "abaabaaaa"},
		// Section 3.6: WFQ by weight.
		{name: "wfq weights 1:3", kind: WFQ, idata: true, frag: 10, values: []uint16{1, 3}, msgs: "a40 b120", want: "abbbabbbabbbabbb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runOrder(t, c)
			if got != c.want {
				t.Errorf("order %q, want %q", got, c.want)
			}
		})
	}
}

func runOrder(t testing.TB, c orderCase) string {
	h := newHarness(t, c.kind, Options{Interleaved: c.idata, Streams: 26}, c.frag)
	for sid, v := range c.values {
		h.setValue(uint16(sid), v)
	}
	for _, m := range strings.Fields(c.msgs) {
		size := 0
		for _, d := range m[1:] {
			size = size*10 + int(d-'0')
		}
		h.enqueue(uint16(m[0]-'a'), size)
	}
	for _, b := range c.blocked {
		h.block(uint16(b - 'a'))
	}
	h.logging = true
	for n := 0; ; n++ {
		if c.unblockN > 0 && n == c.unblockN {
			for _, b := range c.blocked {
				h.unblock(uint16(b - 'a'))
			}
		}
		if !h.step() {
			break
		}
		if c.packet > 0 && (n+1)%c.packet == 0 {
			h.packetDone()
		}
		h.verify()
	}
	return orderString(h)
}

// orderString returns the streams of the chunks sent, as letters.
func orderString(h *harness) string {
	var b strings.Builder
	for _, sid := range h.order {
		b.WriteByte(byte('a' + sid))
	}
	return b.String()
}

// TestPriorityChangeWhileActive: "A PRIO set on a stream while it is in the
// middle of an interleaved message" (research notes section 5): the stream
// moves to its new level at once, and its message continues from there.
func TestPriorityChangeWhileActive(t *testing.T) {
	h := newHarness(t, Priority, Options{Interleaved: true, Streams: 3}, 10)
	h.logging = true
	h.setValue(0, 5)
	h.setValue(1, 3)
	h.enqueue(0, 30)
	h.enqueue(1, 30)
	h.step() // b: priority 3 first
	h.setValue(0, 1)
	h.verify()
	h.step() // a: now priority 1
	h.step()
	h.setValue(0, 9)
	h.verify()
	for h.step() {
		h.verify()
	}
	if got, want := orderString(h), "baabba"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
}
