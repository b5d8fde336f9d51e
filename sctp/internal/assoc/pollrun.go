package assoc

import (
	"net/netip"
	"time"
)

// Runs of DATA packets. In a bulk transfer the sending association builds
// DATA-only packets (dataOnly) one after another, each the last one with
// the next TSNs. Poll finds the association at the head of the ready list
// and checks what it owes before each packet; PollNext, for the packets
// that follow while the caller has called nothing else on the endpoint,
// skips what building DATA cannot have changed: the association stays at
// the head of the ready list, in its state, on its one path, with its MTU,
// its destination and its ECN codepoint, owing no control chunk and no
// SACK it did not owe (those come only from arrivals, timers and user
// calls). What can change is checked again: a FORWARD TSN that abandoning
// a message made due, and the engine's reports. The packets are the ones
// Poll would build, byte for byte.

// dataRun is the association whose DATA-only packet Poll or PollNext built
// last, with what its next packets share; a nil a is no run.
type dataRun struct {
	a   *Assoc
	to  netip.AddrPort
	ecn uint8
	mtu int // a.sendLimit()
}

// PollNext is Poll for a caller that has called nothing else on the
// endpoint (GatherInto and BatchWritten aside) since the Poll or PollNext
// that returned its last packet: a shell collecting a batch of packets
// calls Poll for the first, PollNext for the others. It returns the same
// packets as Poll, building the next one of a run of DATA-only packets
// with fewer checks.
func (ep *Endpoint) PollNext(now time.Time, buf []byte) (Packet, bool) {
	r := &ep.run
	a := r.a
	if a == nil || ep.replyCount > 0 || ep.readyHead >= len(ep.ready) || ep.ready[ep.readyHead] != a || a.closed {
		return ep.Poll(now, buf)
	}
	eng := a.data.eng
	if eng.ForwardDue() {
		return ep.Poll(now, buf) // a FORWARD TSN goes with the DATA
	}
	ep.fragmentable = false
	if ep.gather != nil {
		h := *ep.gather
		ep.holes = h[len(h):len(h):cap(h)]
	}
	b := a.appendDataPacket(now, buf, r.mtu)
	holes := len(ep.holes)
	ep.holes = nil
	if eng.HasReports() {
		a.reportEngine()
	}
	ep.deferTouch(a)
	if len(b) == len(buf) {
		// Nothing more: as Poll does, the association leaves the ready
		// list and Poll goes on with the next.
		a.ready = false
		ep.ready[ep.readyHead] = nil
		ep.readyHead++
		r.a = nil
		if ep.readyHead == len(ep.ready) {
			// Empty: what Poll would find and do.
			ep.ready, ep.readyHead = ep.ready[:0], 0
			return Packet{Data: buf}, false
		}
		return ep.Poll(now, buf)
	}
	if holes > 0 {
		*ep.gather = (*ep.gather)[:len(*ep.gather)+holes]
	}
	return Packet{To: r.to, Data: b, ECN: r.ecn, MayFragment: ep.fragmentable}, true
}
