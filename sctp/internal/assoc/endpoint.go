package assoc

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/ratelimit"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Endpoint is the sans-I/O endpoint core: it demultiplexes packets to
// associations, checks verification tags, answers INITs statelessly with a
// State Cookie (RFC 9260 section 5.1), creates associations from valid
// COOKIE ECHOs, and handles out-of-the-blue packets (section 8.4). It is
// not safe for concurrent use: its owner serializes every call.
type Endpoint struct {
	cfg    Config
	jar    *cookieJar
	assocs map[assocKey]*Assoc
	hit    lookupHit         // the last association Receive found in assocs
	tags   map[uint32]*Assoc // local verification tag -> association, for unique tags
	events []Event           // queued events; events[evHead:] are not yet taken
	evHead int
	stats  api.Stats // endpoint-level counters (OOTB, cookies, stateless replies)

	// Limits against hostile peers (admission.go).
	budget  *transfer.Budget   // shared by every association's receiver; nil: none
	limiter *ratelimit.Limiter // out-of-the-blue answers; nil until needed (or no limit)
	pending int                // associations not accepted yet
	probes  probePacer         // the PLPMTU probes of all associations (pmtu.go)

	// sendBudget is shared by every association's sender; nil: none.
	sendBudget *transfer.SendBudget
	// recvBudget is shared by every association's receiver; nil: none.
	recvBudget *transfer.RecvBudget

	// Stateless replies: a fixed ring of reused buffers, so an INIT flood
	// costs CPU and no memory; when full, replies are dropped and counted.
	replies     [maxReplies]reply
	replyHead   int
	replyCount  int
	repliesLost uint64

	// ready lists associations that may have something to send;
	// ready[readyHead:] are pending, taken from the head in O(1).
	ready     []*Assoc
	readyHead int
	// changed lists the associations that entry points reached since the
	// shell last took the list (Changed); changedOut is the list taken.
	changed, changedOut []*Assoc
	// batched lists the associations a receive batch reached while
	// batching (endpoint_batch.go).
	batched  []*Assoc
	batching bool
	// timerq orders the associations' deadlines (endpoint_timers.go).
	timerq timerHeap
	// polled is the association Poll or a received packet last reached;
	// its timerq place is updated once per burst of packets (deferTouch,
	// syncPolled).
	polled *Assoc
	due    []*Assoc // scratch for Expire

	rnd     [256]byte // random bytes read ahead (one Read per 64 tags)
	rndOff  int
	in      inPacket // reused parse state for receive
	scratch []byte   // reused encoding buffer
	// announce is the list of the host's addresses for the INIT or INIT
	// ACK being built (hostaddrs.go).
	announce []netip.Addr
	// fragmentable: the packet appendPacket built last exceeds its path's
	// PLPMTU (chunks cut before it shrank) and may be IP-fragmented.
	fragmentable bool
	tracef       func(format string, args ...any)
	// gather is where Poll appends the holes of its packets (GatherInto;
	// nil: it copies every payload); holes collects those of the packet
	// appendPacket builds, the ones shorter than holeKeep until the
	// checksum fills them in; holders lists the associations whose
	// messages packets with holes reference until BatchWritten (gather.go).
	gather   *[]chunk.Hole
	holeMin  int
	holeKeep int
	holes    []chunk.Hole
	holders  []*Assoc
	// run is the association whose DATA-only packet Poll or PollNext
	// built last, for PollNext (pollrun.go).
	run dataRun

	// The port filter (SetPortFilter).
	filter      bool
	sharedPorts bool
	listenPort  uint16
	dialPort    uint16
}

const maxReplies = 16

// reply is one queued stateless packet.
type reply struct {
	to  netip.AddrPort
	pkt []byte
}

// NewEndpoint returns an endpoint with configuration cfg (zero fields take
// their defaults) whose cookie secrets start at now.
func NewEndpoint(cfg Config, now time.Time) *Endpoint {
	cfg.setDefaults()
	ep := &Endpoint{
		cfg:    cfg,
		assocs: make(map[assocKey]*Assoc),
		tags:   make(map[uint32]*Assoc),
	}
	ep.rndOff = len(ep.rnd)
	ep.jar = newCookieJar(cfg.Rand, cfg.SecretRotation, now)
	ep.setupLimits()
	for i := range ep.replies {
		// Replies are small: a large MTU does not size them.
		ep.replies[i].pkt = make([]byte, 0, min(cfg.MTU, DefaultMTU))
	}
	return ep
}

func (ep *Endpoint) trace(a *Assoc, format string, args ...any) {
	if ep.tracef != nil {
		ep.tracef("%08x: "+format, append([]any{a.localTag}, args...)...)
	}
}

// random32 returns a random 32-bit value.
func (ep *Endpoint) random32() uint32 {
	if ep.rndOff+4 > len(ep.rnd) {
		if _, err := io.ReadFull(ep.cfg.Rand, ep.rnd[:]); err != nil {
			panic("sctp: random source failed: " + err.Error())
		}
		ep.rndOff = 0
	}
	v := binary.BigEndian.Uint32(ep.rnd[ep.rndOff:])
	ep.rndOff += 4
	return v
}

// newTag returns a random verification tag in 1..2^32-1 (section 5.3.1)
// that no association of this endpoint uses.
func (ep *Endpoint) newTag() uint32 {
	for {
		if t := ep.random32(); t != 0 && ep.tags[t] == nil {
			return t
		}
	}
}

// newAssoc creates an association in COOKIE-WAIT or from a cookie.
func (ep *Endpoint) newAssoc(key assocKey) *Assoc {
	a := &Assoc{ep: ep, key: key, rto: ep.cfg.RTOInitial, t1RTO: ep.cfg.RTOInitial, heapIdx: -1, pp: ep.cfg.defaultPathParams()}
	a.localOS, a.localMIS = ep.cfg.OutStreams, ep.cfg.InStreams
	if ep.cfg.authOffered() {
		a.auth = ep.newAuthState()
	}
	return a
}

func (ep *Endpoint) insert(a *Assoc) {
	ep.hit = lookupHit{}
	ep.assocs[a.key] = a
	ep.tags[a.localTag] = a
}

// retag changes the local tag under which a is indexed.
func (ep *Endpoint) retag(a *Assoc, tag uint32) {
	if ep.tags[a.localTag] == a {
		delete(ep.tags, a.localTag)
	}
	a.localTag = tag
	ep.tags[tag] = a
}

func (ep *Endpoint) remove(a *Assoc) {
	ep.hit = lookupHit{}
	if ep.run.a == a {
		ep.run.a = nil
	}
	if ep.polled == a {
		ep.polled = nil
	}
	ep.timerq.remove(a)
	a.heapAt = time.Time{}
	if ep.assocs[a.key] == a {
		delete(ep.assocs, a.key)
	}
	a.removePaths()
	a.removeInitAddrs(netip.AddrPort{})
	if ep.tags[a.localTag] == a {
		delete(ep.tags, a.localTag)
	}
	ep.leave(a)
	addCounters(&ep.stats.Counters, &a.stats)
	a.chunks.expand(&ep.stats)
	a.stats, a.chunks = api.Counters{}, chunkCounts{}
}

// connect starts an association to peer (section 11.1 C ASSOCIATE):
// TCB, INIT, T1-init, COOKIE-WAIT.
func (ep *Endpoint) connect(now time.Time, peer netip.AddrPort, localPort, peerPort uint16) (*Assoc, error) {
	if localPort == 0 || peerPort == 0 {
		return nil, errInvalidPort
	}
	key := assocKey{peer: peer, localPort: localPort, peerPort: peerPort}
	if ep.assocs[key] != nil {
		return nil, ErrExists
	}
	if max := ep.cfg.MaxAssociations; max > 0 && len(ep.assocs) >= max {
		return nil, errTooMany
	}
	a := ep.newAssoc(key)
	a.localTag = ep.newTag()
	a.localTSN = chunk.TSN(ep.random32())
	if a.auth != nil {
		a.auth.fillRandom(ep.cfg.Rand)
	}
	ep.insert(a)
	a.setState(stateCookieWait)
	a.sendInit(now)
	ep.reached(a)
	return a, nil
}

// NextEvent returns the oldest queued event, or nil when none is queued.
// The event stays valid until the next call.
func (ep *Endpoint) NextEvent() *Event {
	if ep.evHead > 0 {
		ep.events[ep.evHead-1] = Event{} // the one the last call returned
	}
	if ep.evHead == len(ep.events) {
		ep.events, ep.evHead = ep.events[:0], 0
		return nil
	}
	ep.evHead++
	return &ep.events[ep.evHead-1]
}

// reached runs at the end of every entry point that reached a: it records
// a's deadline, reports the engine's news and lists a in Changed.
func (ep *Endpoint) reached(a *Assoc) {
	ep.touch(a)
	ep.report(a)
}

// reachedByPacket is reached for a packet received: a's deadline goes to
// the timer heap once for a burst of packets (deferTouch).
func (ep *Endpoint) reachedByPacket(a *Assoc) {
	ep.deferTouch(a)
	ep.report(a)
}

// report reports the engine's news and lists a in Changed.
func (ep *Endpoint) report(a *Assoc) {
	if a.engineReports() {
		a.reportEngine()
	}
	if !a.changed {
		a.changed = true
		ep.changed = append(ep.changed, a)
	}
}

// Changed returns the associations reached since the last call, each once,
// so the shell looks only at those. An association may be listed after it
// closed. The slice is valid until the next call.
func (ep *Endpoint) Changed() []*Assoc {
	clear(ep.changedOut) // the previous call's: no closed association stays reachable
	ep.changedOut, ep.changed = ep.changed, ep.changedOut[:0]
	for _, a := range ep.changedOut {
		a.changed = false
	}
	return ep.changedOut
}

// markReady notes that a may have a packet to send.
func (ep *Endpoint) markReady(a *Assoc) {
	if a.ready {
		return
	}
	a.ready = true
	if h := ep.readyHead; h >= 64 && h >= len(ep.ready)/2 {
		// Drop the taken head before the array grows.
		n := copy(ep.ready, ep.ready[h:])
		clear(ep.ready[n:])
		ep.ready, ep.readyHead = ep.ready[:n], 0
	}
	ep.ready = append(ep.ready, a)
}

// replyBuf returns the buffer for the next stateless packet to to, or nil
// when the ring is full; commitReply queues it.
func (ep *Endpoint) replyBuf(to netip.AddrPort) []byte {
	if ep.replyCount == maxReplies {
		ep.repliesLost++
		return nil
	}
	r := &ep.replies[(ep.replyHead+ep.replyCount)%maxReplies]
	r.to = to
	return r.pkt[:0]
}

// commitReply queues the packet built in the buffer from replyBuf.
func (ep *Endpoint) commitReply(b []byte) {
	if b == nil {
		return
	}
	ep.replies[(ep.replyHead+ep.replyCount)%maxReplies].pkt = b
	ep.replyCount++
}

// Packet is a packet the core built, with what the shell needs to send
// it.
type Packet struct {
	// To is the destination: the peer's address as the lower layer sees
	// it (IP, and UDP port with RFC 6951 encapsulation).
	To netip.AddrPort
	// Data is the buffer given to Poll with the packet appended.
	Data []byte
	// ECN is the ECN codepoint: ECT(0) for an ECN association (RFC 9260
	// appendix A), else Not-ECT.
	ECN uint8
	// MayFragment: the packet exceeds its path's PLPMTU with DATA chunks cut
	// before it shrank; send it with IP fragmentation allowed.
	MayFragment bool
}

// Poll appends the next packet to send to buf and returns it; ok is false
// when nothing is left to send now.
func (ep *Endpoint) Poll(now time.Time, buf []byte) (p Packet, ok bool) {
	ep.run.a = nil
	if ep.replyCount > 0 {
		r := &ep.replies[ep.replyHead]
		ep.replyHead = (ep.replyHead + 1) % maxReplies
		ep.replyCount--
		ep.countOut(nil, r.pkt)
		return Packet{To: r.to, Data: append(buf, r.pkt...)}, true
	}
	for ep.readyHead < len(ep.ready) {
		a := ep.ready[ep.readyHead]
		if !a.closed {
			ep.fragmentable = false
			if ep.gather != nil {
				h := *ep.gather
				ep.holes = h[len(h):len(h):cap(h)]
			}
			var b []byte
			mtu := 0
			if a.dataOnly() {
				mtu = a.sendLimit()
				b = a.appendDataPacket(now, buf, mtu)
			} else {
				b = a.appendMixedPacket(now, buf)
			}
			holes := len(ep.holes)
			ep.holes = nil
			if a.engineReports() {
				a.reportEngine()
			}
			if len(b) > len(buf) {
				if holes > 0 {
					*ep.gather = (*ep.gather)[:len(*ep.gather)+holes]
				}
				ep.deferTouch(a)
				p := Packet{To: a.sendTo(), Data: b, MayFragment: ep.fragmentable}
				if a.ect() {
					p.ECN = ecnECT0
				}
				if mtu > 0 {
					ep.run = dataRun{a: a, to: p.To, ecn: p.ECN, mtu: mtu}
				}
				return p, true
			}
			ep.deferTouch(a) // often the association a packet just reached
		} else if ep.polled == a {
			ep.polled = nil
		}
		a.ready = false
		ep.ready[ep.readyHead] = nil
		ep.readyHead++
	}
	// Empty: start again at the front, keeping the array.
	ep.ready, ep.readyHead = ep.ready[:0], 0
	return Packet{Data: buf}, false
}

// countOut counts an outgoing packet and its chunks, for association a or
// (nil) for the endpoint.
func (ep *Endpoint) countOut(a *Assoc, pkt []byte) {
	s := &ep.stats.Counters
	if a != nil {
		s = &a.stats
	}
	s.PacketsOut++
	s.BytesOut += uint64(len(pkt))
	// The packet is one the core built, so the walk reads only each
	// chunk's type and length; it stops where chunk.Chunks would report
	// an error (a length below 4 or past the end, partial padding).
	for off := commonHeaderLen; len(pkt)-off >= 4; {
		l := int(binary.BigEndian.Uint16(pkt[off+2:]))
		if l < 4 || l > len(pkt)-off {
			break
		}
		next := off + (l+3)&^3
		if next > len(pkt) && off+l != len(pkt) {
			break
		}
		t := chunk.Type(pkt[off])
		if k := chunkKindOf[t]; a != nil && k > 0 {
			a.chunks.countOut(int(k - 1))
		} else {
			ep.stats.ChunksOut[t]++
		}
		off = next
	}
}

// Stats returns the endpoint's counters, including those of its
// live associations, and its memory budget now.
func (ep *Endpoint) Stats() api.Stats {
	s := ep.stats
	for _, a := range ep.assocs {
		as := a.Stats()
		addStats(&s, &as)
	}
	if b := ep.budget; b != nil {
		s.MemoryInUse, s.MemoryBudget = b.Used(), b.Limit()
	}
	return s
}

// String returns "PEER:PEERPORT->LOCALPORT".
func (k assocKey) String() string {
	return fmt.Sprintf("%v:%d->%d", k.peer, k.peerPort, k.localPort)
}
