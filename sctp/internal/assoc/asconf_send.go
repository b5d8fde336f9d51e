package assoc

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The sending side of RFC 5061: this end asks the peer to add or delete one
// of our addresses, or to send to one of them (Set Primary Address). One
// ASCONF is outstanding at a time (section 5.1: "only one ASCONF chunk may
// be in flight", paraphrase), retransmitted on the RTO; requests made
// meanwhile wait and go together in the next one.

// maxASCONFQueue bounds the requests waiting for the next ASCONF.
const maxASCONFQueue = 16

// ascReq is one request of ours.
type ascReq struct {
	typ  chunk.ParamType
	addr netip.Addr
	op   uint64
}

// asconfSender is the sender's side of the ASCONF exchange.
type asconfSender struct {
	serial uint32   // serial of the next ASCONF
	out    []byte   // the outstanding ASCONF chunk; nil when none
	reqs   []ascReq // its requests (correlation id i+1 for reqs[i])
	queue  []ascReq // requests waiting for the next one
	retx   int
	rto    time.Duration
	nextOp uint64
}

// AddLocalAddr asks the peer to add ip to the association (RFC 5061 Add
// IP Address). The shell makes sure the endpoint receives on ip; the core
// only refuses addresses no host can own. The answer comes as an Event
// with the returned Op: Err nil, or the *api.ASCONFError of a refusal.
func (a *Assoc) AddLocalAddr(now time.Time, ip netip.Addr) (uint64, error) {
	ip = ip.Unmap()
	if !ownableAddr(ip, ip) {
		return 0, api.ErrNotLocalAddr
	}
	return a.asconfRequest(now, chunk.ParamAddIPAddress, ip)
}

// RemoveLocalAddr asks the peer to delete ip from the association (RFC
// 5061 Delete IP Address).
func (a *Assoc) RemoveLocalAddr(now time.Time, ip netip.Addr) (uint64, error) {
	return a.asconfRequest(now, chunk.ParamDeleteIPAddress, ip.Unmap())
}

// SetPeerPrimary asks the peer to send to our address ip (RFC 5061 Set
// Primary Address).
func (a *Assoc) SetPeerPrimary(now time.Time, ip netip.Addr) (uint64, error) {
	return a.asconfRequest(now, chunk.ParamSetPrimaryAddress, ip.Unmap())
}

func (a *Assoc) asconfRequest(now time.Time, typ chunk.ParamType, ip netip.Addr) (uint64, error) {
	defer a.ep.reached(a)
	switch {
	case a.closed:
		return 0, ErrClosed
	case a.state != stateEstablished || !a.asconfOK() || a.auth.peerNeeds.has(chunk.TypeASCONF) == false:
		// Section 6 (paraphrase): ASCONF is only sent authenticated,
		// to a peer that requires it so.
		return 0, api.ErrASCONFNotNegotiated
	}
	s := a.ascOut
	if s == nil {
		// Section 5.1 (paraphrase): the first ASCONF carries our Initial
		// TSN as its serial number.
		s = &asconfSender{serial: uint32(a.localTSN)}
		a.ascOut = s
	}
	if len(s.queue) >= maxASCONFQueue {
		return 0, api.ErrASCONFBusy
	}
	s.nextOp++
	op := s.nextOp | 1<<63
	s.queue = append(s.queue, ascReq{typ: typ, addr: ip, op: op})
	a.asconfNext(now)
	return op, nil
}

// asconfNext builds the next ASCONF from the queue when none is
// outstanding.
func (a *Assoc) asconfNext(now time.Time) {
	s := a.ascOut
	if s == nil || s.out != nil || len(s.queue) == 0 {
		return
	}
	m := chunk.ASCONF{Serial: s.serial}
	// The address parameter names an address the peer knows already:
	// one of ours not being changed, or the wildcard.
	local := netip.IPv4Unspecified()
	for _, ip := range a.ep.cfg.LocalAddrs {
		if !slices.ContainsFunc(s.queue, func(r ascReq) bool { return r.addr == ip }) {
			local = ip
			break
		}
	}
	m.Address.Type, m.Address.Value = chunk.ParamIPv4Address, local.AsSlice()
	if local.Is6() {
		m.Address.Type = chunk.ParamIPv6Address
	}
	s.reqs = append(s.reqs[:0], s.queue...)
	s.queue = s.queue[:0]
	for i, r := range s.reqs {
		m.Params, _ = chunk.AppendASCONFAddrParam(m.Params, r.typ, uint32(i+1), r.addr)
	}
	s.out, _ = m.Append(nil)
	s.serial++
	s.retx = 0
	s.rto = a.currentRTO()
	a.pend.set(ctlASCONF)
	a.timers.start(timerASCONF, now, s.rto)
	a.ep.markReady(a)
}

// appendASCONF appends the outstanding ASCONF.
func (a *Assoc) appendASCONF(now time.Time, b []byte, limit int) []byte {
	s := a.ascOut
	if s == nil || s.out == nil || len(b)+len(s.out) > limit {
		return b
	}
	a.pend.clear(ctlASCONF)
	a.stats.ASCONF.Sent++
	return append(b, s.out...)
}

// asconfTimer retransmits the outstanding ASCONF (section 5.1, paraphrase:
// on expiry of the retransmission timer the ASCONF is sent again with the
// RTO backed off, and the error counter of the association is
// incremented; beyond Association.Max.Retrans the association fails).
func (a *Assoc) asconfTimer(now time.Time) {
	s := a.ascOut
	if s == nil || s.out == nil {
		return
	}
	s.retx++
	a.stats.ASCONF.Retransmits++
	a.errCount++
	if a.errCount > a.ep.cfg.MaxRetransmits {
		a.fail(reasonPeerUnreachable, 0)
		return
	}
	s.rto = min(2*s.rto, a.ep.cfg.RTOMax)
	a.pend.set(ctlASCONF)
	a.timers.start(timerASCONF, now, s.rto)
	a.ep.markReady(a)
}

// asconfAck5061 handles an ASCONF-ACK (section 5.3): it must answer the
// outstanding ASCONF; each request without an error indication succeeded.
func (a *Assoc) asconfAck5061(now time.Time, p *inPacket, c *rxChunk) disp {
	s := a.ascOut
	if !a.asconfOK() {
		return a.asconfUnauthenticated(now, p, c)
	}
	m, err := chunk.ParseASCONF(chunkOfRx(c))
	if err != nil {
		a.stats.ASCONF.Malformed++
		return dispNext
	}
	if s == nil || s.out == nil {
		// Section 5.3: "F0) If an endpoint receives an ASCONF-ACK that is
		// greater than or equal to the next Sequence Number to be used
		// but no ASCONF Chunk is outstanding, the endpoint MUST ABORT the
		// association." (with an "Association Aborted due to Illegal
		// ASCONF-ACK" cause, section 4.3.4). Smaller ones are ignored.
		next := uint32(a.localTSN)
		if s != nil {
			next = s.serial
		}
		if int32(m.Serial-next) >= 0 {
			a.stats.Violations++
			cause := appendCause(a.ep.scratch[:0], chunk.CauseIllegalASCONFAck, nil)
			a.ep.scratch = cause[:0]
			a.sendAbort(cause)
			a.fail(reasonProtocolViolation, chunk.CauseIllegalASCONFAck)
			return dispDeleted
		}
	}
	if s == nil || s.out == nil || m.Serial != s.serial-1 {
		a.stats.ASCONF.StaleAcks++
		return dispNext
	}
	causes := make([]chunk.CauseCode, len(s.reqs))
	it := m.Walk()
	for pr, ok := it.Next(); ok; pr, ok = it.Next() {
		q, err := chunk.ParseASCONFParam(pr)
		if err != nil || q.CorrelationID == 0 || int(q.CorrelationID) > len(s.reqs) {
			a.stats.ASCONF.Malformed++
			continue
		}
		if q.Type == chunk.ParamErrorCauseIndication && len(q.Causes) >= 4 {
			causes[q.CorrelationID-1] = chunk.CauseCode(binary.BigEndian.Uint16(q.Causes))
		}
	}
	a.timers.stop(timerASCONF)
	a.errCount = 0
	s.out = nil
	a.pend.clear(ctlASCONF)
	for i, r := range s.reqs {
		a.stats.ASCONF.AcksIn++
		var err error
		if causes[i] != 0 {
			err = &api.ASCONFError{Addr: r.addr, Cause: uint16(causes[i])}
		}
		a.answerOp(r.op, err)
	}
	s.reqs = s.reqs[:0]
	a.asconfNext(now)
	return dispNext
}
