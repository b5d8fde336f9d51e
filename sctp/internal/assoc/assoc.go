package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Assoc is one association's control-plane state (the TCB of RFC 9260
// section 14) with its transfer engine. Its Endpoint feeds it packets and
// timer expiries and the user calls its methods, each with the current
// time. An Assoc is created by Endpoint.ConnectAddrs or by a valid COOKIE
// ECHO (announced by EventUp).
type Assoc struct {
	ep    *Endpoint
	key   assocKey
	state state

	// Verification tags (section 8.5) and Tie-Tags (section 5.2.2).
	localTag, peerTag uint32
	localTie, peerTie uint32

	localTSN, peerTSN chunk.TSN // initial TSNs
	peerRwnd          uint32
	localOS, localMIS uint16 // what we announced
	peerOS, peerMIS   uint16 // what the peer announced
	outStreams        uint16 // min(local OS, peer MIS) (section 5.1.1)
	inStreams         uint16 // min(local MIS, peer OS)
	peerExt           extFlags
	peerAddrs         []netip.Addr   // addresses the peer listed (bounded), for 5.2.2
	paths             []peerPath     // multi-homing (paths.go); nil with one path
	primary           int            // index in paths of the primary path
	probe             probeBudget    // bounds HEARTBEATs to unconfirmed addresses (pathprobe.go)
	pp                api.PathParams // path settings of the association, taken by new paths (pathparams.go)
	dest              netip.AddrPort
	// Reply destinations with several paths (reply.go): the source of the
	// last DATA, and of the chunk a COOKIE ACK or ERROR answers.
	sackTo, ctlTo netip.AddrPort

	timers   timers
	t1RTO    time.Duration // RTO used by T1-init / T1-cookie, backed off on expiry
	initRetx int           // INIT or COOKIE ECHO retransmissions so far
	initSent time.Time     // when the last INIT / COOKIE ECHO was sent (for 5.2.6 RTT)
	preserve time.Duration // Cookie Preservative to put in the next INIT (section 5.2.6)
	cookie   []byte        // State Cookie from the INIT ACK, echoed in COOKIE ECHO
	t2Retx   int           // SHUTDOWN / SHUTDOWN ACK retransmissions
	errCount int           // association overall error count (section 8.1)
	rto      time.Duration // control RTO when no transfer engine (handshake)
	hb       heartbeatState

	// initAddrs are, in COOKIE-WAIT, the peer addresses the INIT tries in
	// turn (connectx.go); nil with one.
	initAddrs []netip.AddrPort
	// initNo are, in COOKIE-WAIT, the addresses the INIT could not reach
	// (notice.go).
	initNo initRefusals

	// Control chunks owed to the peer, built lazily into the next packet.
	pend pending

	closed        bool
	pendingAccept bool      // created from a COOKIE ECHO, not accepted yet (admission.go)
	ready         bool      // listed in the endpoint's ready list
	inBatch       bool      // listed in the endpoint's receive batch
	changed       bool      // listed in the endpoint's changed list (Changed)
	heapAt        time.Time // deadline recorded in the endpoint's timer heap
	heapIdx       int       // index in the endpoint's timer heap, -1 if not in it
	stats         api.Counters
	chunks        chunkCounts   // chunks in and out by type
	data          dataPlane     // DATA/SACK engine glue (data.go)
	rc            *reconf       // stream reconfiguration, RFC 6525 (reconf.go); nil until used
	auth          *authState    // RFC 4895 (auth.go); nil when the endpoint does not offer AUTH
	asc           *asconfState  // RFC 5061 receiver (asconf.go); nil until the peer's first ASCONF
	ascOut        *asconfSender // RFC 5061 sender (asconf_send.go); nil until the first request
	ecn           ecnAssoc      // ECNE and CWR owed to the peer (ecn.go)
}

// assocKey identifies an association at its endpoint: the peer's transport
// address as the lower layer sees it (IP, or IP and UDP port for RFC 6951
// encapsulation) and the two SCTP ports.
type assocKey struct {
	peer      netip.AddrPort
	localPort uint16
	peerPort  uint16
}

// pending is the set of control chunks owed; most are flags, the chunk
// being rebuilt from the TCB when the packet is built.
type pending struct {
	init          bool
	ctl           ctlFlags         // control chunks owed (cookie, shutdown, heartbeat, ASCONF)
	errorCauses   []byte           // encoded error causes for one ERROR chunk
	heartbeatAcks [][]byte         // Heartbeat Info of HEARTBEATs to answer (bounded)
	hbAckTo       []netip.AddrPort // with several paths: where each HEARTBEAT ACK goes (reply.go)
	unrecognized  []byte           // Unrecognized Parameter causes to send after INIT ACK (with COOKIE ECHO)
	sackNow       bool             // SACK must go in the next packet (e.g. SHUTDOWN-SENT rule)
	pathHB        uint32           // paths owed a HEARTBEAT (paths.go), bit i for a.paths[i]
	pmtuProbe     uint32           // engine paths owed a PLPMTU probe (pmtu.go), bit i for engine path i
}

// ctlFlags are the control chunks owed besides SACK and DATA, one bit
// each, so a packet build tests them all at once.
type ctlFlags uint8

const (
	ctlCookieEcho  ctlFlags = 1 << iota // COOKIE ECHO (with any Unrecognized Parameter causes)
	ctlCookieAck                        // COOKIE ACK
	ctlShutdown                         // SHUTDOWN
	ctlShutdownAck                      // SHUTDOWN ACK
	ctlHeartbeat                        // HEARTBEAT (single path)
	ctlASCONFAck                        // the cached ASCONF-ACK (asconf.go)
	ctlASCONF                           // the outstanding ASCONF (asconf_send.go)
)

// has reports whether control chunk f is owed.
func (p *pending) has(f ctlFlags) bool { return p.ctl&f != 0 }

// set notes that control chunk f is owed.
func (p *pending) set(f ctlFlags) { p.ctl |= f }

// clear notes that control chunk f is no longer owed.
func (p *pending) clear(f ctlFlags) { p.ctl &^= f }

// maxPendingHeartbeatAcks bounds the HEARTBEAT ACKs owed at once: a flood
// of HEARTBEATs costs at most this many buffers.
const maxPendingHeartbeatAcks = 4

// maxPeerAddrs bounds the peer addresses recorded from an INIT or INIT
// ACK; the rest are ignored and counted (Counters.PeerAddrsIgnored).
const maxPeerAddrs = 32

// maxPendingCauses bounds the bytes of error causes queued for one ERROR.
const maxPendingCauses = 512

func (a *Assoc) setState(s state) {
	if a.state == s {
		return
	}
	a.ep.trace(a, "state %v -> %v", a.state, s)
	a.state = s
}

// nextDeadline returns the association's one next deadline: the earliest of
// its control timers and the transfer engine's deadline.
func (a *Assoc) nextDeadline() time.Time {
	if a.closed {
		return time.Time{}
	}
	d := a.timers.next()
	if e := a.data.eng; e != nil {
		if s := e.SendDeadline(); !s.IsZero() {
			d = earliest(d, s)
		}
		if r := e.SACKDeadline(); !r.IsZero() && a.state != stateCookieEchoed {
			// In COOKIE-ECHOED no SACK may leave before the COOKIE ACK (5.1):
			// its deadline must not make the shell spin.
			d = earliest(d, r)
		}
	}
	return d
}

// currentRTO returns the RTO of the primary path.
func (a *Assoc) currentRTO() time.Duration {
	if r := a.data.rto(); r > 0 {
		return r
	}
	return a.rto
}

// emit queues an event for the user.
func (a *Assoc) emit(ev api.Event) {
	a.ep.events = append(a.ep.events, Event{Event: ev, Assoc: a})
}

// answerOp queues the answer to request op: its result err, with no event
// for the user.
func (a *Assoc) answerOp(op uint64, err error) {
	a.ep.events = append(a.ep.events, Event{Event: api.Event{Kind: noEvent, Err: err}, Assoc: a, Op: op, Quiet: true})
}

// reportEngine queues the engine's news for the shell: abandoned messages
// (EventSendFailed), streams whose writers may queue again, and streams
// whose buffered bytes fell to their low-water mark (EventBufferedLow). It runs as
// entry points return, after each packet Poll builds, and on close.
func (a *Assoc) reportEngine() {
	e := a.data.eng
	if e == nil {
		return
	}
	if e.HasFailed() {
		e.TakeFailed(a.reportFailed)
	}
	for _, sid := range e.TakeStreamRoom() {
		a.ep.events = append(a.ep.events, Event{Event: api.Event{Kind: noEvent, Stream: sid}, Assoc: a, Quiet: true, Room: true})
	}
	for _, sid := range e.TakeBufferedLow() {
		a.emit(api.Event{Kind: api.EventBufferedLow, Stream: sid})
	}
}

// engineReports reports whether reportEngine has anything to report.
func (a *Assoc) engineReports() bool {
	e := a.data.eng
	return e != nil && e.HasReports()
}

// reportFailed queues the EventSendFailed of a message given up under its
// PR-SCTP policy.
func (a *Assoc) reportFailed(f transfer.Failed) {
	a.emit(api.Event{Kind: api.EventSendFailed, Stream: f.SID, PPID: f.PPID, Unordered: f.Unordered,
		Msg: f.Payload, MaybeDelivered: f.Sent, PR: f.Policy})
}

// destroy closes the association and removes it from its endpoint,
// queueing its last event: EventShutdown after a graceful shutdown, else
// EventDown with cause (0: none). end gets the final counters and the
// unsent messages.
func (a *Assoc) destroy(end *End, cause chunk.CauseCode) {
	if a.closed {
		return
	}
	a.reportEngine() // the messages given up come before the end
	end.Stats = a.Stats()
	end.PeerDone = end.Reason == reasonShutdown || a.state == stateShutdownReceived || a.state == stateShutdownAckSent
	if e := a.data.eng; e != nil && end.Reason != reasonShutdown {
		e.Drain(func(m transfer.Unsent) {
			end.Unsent = append(end.Unsent, api.Event{Kind: api.EventSendFailed, Stream: m.SID, PPID: m.PPID,
				Unordered: m.Unordered, Msg: append([]byte(nil), m.Payload...), MaybeDelivered: m.Sent})
		})
	}
	k := api.EventDown
	if end.Reason == reasonShutdown {
		k = api.EventShutdown
	}
	a.ep.events = append(a.ep.events, Event{Event: api.Event{Kind: k, Cause: uint16(cause)}, Assoc: a, End: end})
	a.setState(stateClosed)
	a.closed = true
	a.timers.stopAll()
	a.stats.AssocsDown++
	switch end.Reason {
	case reasonShutdown, reasonNone:
	default:
		a.stats.AssocsFailed++
	}
	a.dropReconf(ErrClosed)
	a.data.kept = a.data.eng // unread messages stay readable
	a.data.close(&a.stats)
	a.ep.remove(a)
}

// fail closes the association after a failure with the error cause
// cause (0: none) and tells the user.
func (a *Assoc) fail(r Reason, cause chunk.CauseCode) {
	a.destroy(&End{Reason: r}, cause)
}

// failWith is fail for an ABORT from the peer carrying causes, which the
// user gets parsed (copied).
func (a *Assoc) failWith(r Reason, causes []byte) {
	end := &End{Reason: r}
	it := chunk.Causes(causes)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		end.Causes = append(end.Causes, api.ErrorCause{Code: uint16(c.Code), Value: append([]byte(nil), c.Value...)})
		if c.Code == chunk.CauseUserAbort && end.UserReason == "" {
			end.UserReason = string(c.Value)
		}
	}
	a.destroy(end, firstCause(causes))
}

// addPeerAddr records a peer address listed in INIT or INIT ACK, unless
// the peer cannot own it (ownableAddr), which is counted.
func (a *Assoc) addPeerAddr(ip netip.Addr) {
	ip = ip.Unmap()
	if !ownableAddr(ip, a.key.peer.Addr()) {
		a.stats.PeerAddrsIgnored++
		return
	}
	for _, x := range a.peerAddrs {
		if x == ip {
			return
		}
	}
	if len(a.peerAddrs) < maxPeerAddrs {
		a.peerAddrs = append(a.peerAddrs, ip)
	}
}

// ownableAddr reports whether a peer sending from src can own ip: not
// unspecified, multicast or broadcast, and not loopback unless src is.
func ownableAddr(ip, src netip.Addr) bool {
	ip, src = ip.Unmap(), src.Unmap()
	switch {
	case !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast():
		return false
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return false
	case ip.IsLoopback() && !src.IsLoopback():
		return false
	}
	return true
}

// knowsPeerAddr reports whether ip is one of the peer's addresses.
func (a *Assoc) knowsPeerAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip == a.key.peer.Addr().Unmap() {
		return true
	}
	for _, x := range a.peerAddrs {
		if x == ip {
			return true
		}
	}
	return false
}

// negotiateStreams applies section 5.1.1: "the endpoint MUST use MIS
// outbound streams" when the peer's MIS is below our OS.
func (a *Assoc) negotiateStreams() {
	a.outStreams = min(a.localOS, a.peerMIS)
	a.inStreams = min(a.localMIS, a.peerOS)
}
