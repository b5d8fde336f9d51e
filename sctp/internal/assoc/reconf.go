package assoc

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/stream"
)

// Stream reconfiguration (RFC 6525): the RE-CONFIG exchange. The
// association keeps at most one request of its own outstanding (one
// RE-CONFIG chunk with one or two request parameters; section 5.1.1: "At
// any given time, there MUST NOT be more than one request in flight. So,
// if the Re-configuration Timer is running and the RE-CONFIG chunk
// contains at least one request parameter, the chunk MUST be buffered."),
// retransmits it on its own timer, and answers every request parameter of
// the peer. The data plane (package transfer) resets stream numbering,
// holds the data of a deferred reset and grows the stream tables.

// Request kinds of our own RE-CONFIG parameters.
const (
	rqOutReset   uint8 = iota + 1 // Outgoing SSN Reset Request (4.1)
	rqInReset                     // Incoming SSN Reset Request (4.2)
	rqAddOut                      // Add Outgoing Streams Request (4.5)
	rqAddIn                       // Add Incoming Streams Request (4.6)
	rqAssocReset                  // SSN/TSN Reset Request (4.3)
)

// Bounds on what the reconfiguration state holds.
const (
	maxReconfQueue   = 8  // user requests waiting behind the outstanding one
	maxReconfAnswers = 4  // Re-configuration Response Parameters owed at once
	maxResetStreams  = 64 // stream ids one reset request of the user may list (and what fits, resetFits)
)

// Sizes for fitting a RE-CONFIG chunk in a packet.
const (
	reconfChunkHdr = 4  // the RE-CONFIG chunk header
	resetParamHdr  = 16 // an Outgoing SSN Reset Request without its stream list; an Incoming one is 8
	inResetHdr     = 8
	maxAnswerLen   = 20 // a Re-configuration Response Parameter with next TSNs, sent with our Outgoing request
)

// reconfParam is one request parameter of ours.
type reconfParam struct {
	kind    uint8
	done    bool
	seq     reqSeq       // Re-configuration Request Sequence Number
	respSeq reqSeq       // rqOutReset: the peer's Incoming request this answers
	hasResp bool         // respSeq is set
	lastTSN chunk.TSN    // rqOutReset: Sender's Last Assigned TSN, set when first sent
	sids    []uint16     // rqOutReset, rqInReset: streams (empty: all)
	list    chunk.List16 // sids as on the wire, built once when the request begins
	n       uint16       // rqAddOut, rqAddIn: streams to add
	result  chunk.ReconfigResult
	blocked bool                // rqOutReset, rqAssocReset: every stream is ResetPending with its old messages cut
	tsns    chunk.ReconfigParam // rqAssocReset: the response performing it (its next TSNs)
}

// reconfReq is one request of ours: a RE-CONFIG chunk with one or two
// parameters, and the user operation waiting for it (op 0: none, it
// answers the peer).
type reconfReq struct {
	op     uint64
	params [2]reconfParam
	np     int
	sent   bool // transmitted at least once
}

// reconf is the association's stream reconfiguration state.
type reconf struct {
	nextSeq reqSeq      // our next Re-configuration Request Sequence Number
	out     *reconfReq  // our outstanding request, nil when none
	queue   []reconfReq // user requests waiting for it
	due     bool        // the outstanding request must be (re)transmitted
	rto     time.Duration
	retx    int

	peerSeq     reqSeq                  // the peer's next expected Request Sequence Number
	lastResults [2]chunk.ReconfigResult // results of peerSeq-1 and peerSeq-2
	deferSeq    reqSeq                  // the peer's Outgoing request in deferred reset processing
	deferSids   []uint16
	deferring   bool

	answers []chunk.ReconfigParam // responses owed to the peer
	lastOp  uint64

	assocSent time.Time           // when our last SSN/TSN Reset Request was first sent
	tsnResp   chunk.ReconfigParam // our last "Success - Performed" answer to an SSN/TSN Reset Request, sent again for a retransmission
}

// reconfOn reports whether both ends negotiated RE-CONFIG. RFC 6525
// section 5.1.1: "If the chunk type of the RE-CONFIG chunk does not appear
// in the supported extension's list of chunks, then the sender MUST NOT
// send any re-configuration request to the peer, and any request by the
// application for such service SHOULD be responded to with an appropriate
// error indicating that the peer SCTP stack does not support the
// re-configuration extension."
func (a *Assoc) reconfOn() bool {
	return !a.ep.cfg.DisableStreamReconfig && a.peerExt&extReconfig != 0
}

// initReconf forgets the reconfiguration state when the transfer engine
// starts (again): after a peer restart the requests of the old
// association fail.
func (a *Assoc) initReconf() {
	a.dropReconf(errPeerRestarted)
	a.timers.stop(timerReconf)
	a.rc = nil
}

// reconfState returns the reconfiguration state, made on first use: most
// associations never reconfigure, and the sequence numbers start from
// the initial TSNs kept in the TCB (section 4.1: the Re-configuration
// Request Sequence Number "is initialized to the same value as the
// initial TSN").
func (a *Assoc) reconfState() *reconf {
	if a.rc == nil {
		a.rc = &reconf{nextSeq: reqSeq(a.localTSN), peerSeq: reqSeq(a.peerTSN),
			lastResults: [2]chunk.ReconfigResult{chunk.ReconfigBadSeq, chunk.ReconfigBadSeq}}
	}
	return a.rc
}

// reqSeq is a Re-configuration Request Sequence Number (RFC 6525 section
// 4.1): 32 bits that wrap, starting at the sender's initial TSN.
type reqSeq uint32

// behind returns how many numbers seq is behind next (0: it is next),
// in serial arithmetic: a number just after next is far behind.
func (seq reqSeq) behind(next reqSeq) uint32 { return uint32(next - seq) }

// assocResetGap is the least time between two SSN/TSN Reset Requests of
// ours. RFC 6525 section 5.1.4: "Only one SSN/TSN Reset Request SHOULD be
// sent within 30 seconds, which is considered a maximum segment lifetime
// (the IP MSL)."
const assocResetGap = 30 * time.Second

// resultErr returns nil for a success result, else the error it means.
func resultErr(r chunk.ReconfigResult) error {
	switch r {
	case chunk.ReconfigSuccessNothing, chunk.ReconfigSuccessPerformed:
		return nil
	case chunk.ReconfigDenied:
		return api.ErrReconfigDenied
	}
	return fmt.Errorf("%w: %v", api.ErrReconfigFailed, r)
}

// ResetStreams queues a user request to reset the numbering of streams
// sids (none: all) in direction dir (RFC 6525 Outgoing and Incoming SSN
// Reset Requests). It returns the operation id that the answer (an
// Event with Op) will carry.
func (a *Assoc) ResetStreams(now time.Time, dir api.StreamDirection, sids []uint16) (uint64, error) {
	defer a.ep.reached(a)
	if err := a.reconfAllowed(); err != nil {
		return 0, err
	}
	if dir&^api.DirBoth != 0 || dir == 0 {
		return 0, fmt.Errorf("sctp: stream direction %d", dir)
	}
	if len(sids) > maxResetStreams {
		return 0, fmt.Errorf("sctp: %d streams in one reset, at most %d (none: all)", len(sids), maxResetStreams)
	}
	if !a.resetFits(dir, len(sids)) {
		return 0, fmt.Errorf("sctp: %d streams in one reset do not fit in one packet to the peer (%d bytes at the least)",
			len(sids), a.ep.cfg.PMTUBase)
	}
	sids = slices.Clone(sids)
	slices.Sort(sids)
	sids = slices.Compact(sids)
	var r reconfReq
	if dir&api.DirOutgoing != 0 {
		if n := len(sids); n > 0 && int(sids[n-1]) >= int(a.outStreams) {
			return 0, fmt.Errorf("%w: %d, %d outbound streams", api.ErrStreamID, sids[n-1], a.outStreams)
		}
		r.params[r.np] = reconfParam{kind: rqOutReset, sids: sids}
		r.np++
	}
	if dir&api.DirIncoming != 0 {
		if n := len(sids); n > 0 && int(sids[n-1]) >= int(a.inStreams) {
			return 0, fmt.Errorf("%w: %d, %d inbound streams", api.ErrStreamID, sids[n-1], a.inStreams)
		}
		r.params[r.np] = reconfParam{kind: rqInReset, sids: sids}
		r.np++
	}
	return a.queueReconf(now, r), nil
}

// AddStreams queues a user request to add out outbound and in inbound
// streams (RFC 6525 Add Outgoing and Add Incoming Streams Requests). It
// returns the operation id that the answer (an Event with Op) will carry.
func (a *Assoc) AddStreams(now time.Time, out, in uint16) (uint64, error) {
	defer a.ep.reached(a)
	if err := a.reconfAllowed(); err != nil {
		return 0, err
	}
	switch {
	case out == 0 && in == 0:
		return 0, errors.New("sctp: no streams to add")
	case int(a.outStreams)+int(out) > stream.MaxStreams || int(a.inStreams)+int(in) > stream.MaxStreams:
		return 0, fmt.Errorf("%w: more than %d streams", api.ErrStreamID, stream.MaxStreams)
	}
	var r reconfReq
	if out > 0 {
		r.params[r.np] = reconfParam{kind: rqAddOut, n: out}
		r.np++
	}
	if in > 0 {
		r.params[r.np] = reconfParam{kind: rqAddIn, n: in}
		r.np++
	}
	return a.queueReconf(now, r), nil
}

// reconfAllowed says whether a user request may be queued now.
func (a *Assoc) reconfAllowed() error {
	switch {
	case a.closed:
		return ErrClosed
	case a.data.eng == nil:
		return errNotReady
	case !a.reconfOn():
		return api.ErrReconfigUnsupported
	case a.state != stateEstablished:
		return api.ErrShutdown
	case len(a.reconfState().queue) >= maxReconfQueue:
		return api.ErrReconfigBusy
	}
	return nil
}

// queueReconf queues user request r and returns its operation id.
func (a *Assoc) queueReconf(now time.Time, r reconfReq) uint64 {
	a.rc.lastOp++
	r.op = a.rc.lastOp
	a.rc.queue = append(a.rc.queue, r)
	a.startReconf(now)
	return r.op
}

// ResetAssoc queues an SSN/TSN Reset Request (RFC 6525 section
// 5.1.4). At most one is sent within 30 seconds: a second one within that
// time, or while one waits, fails with api.ErrAssocResetTooSoon.
func (a *Assoc) ResetAssoc(now time.Time) (uint64, error) {
	defer a.ep.reached(a)
	if err := a.reconfAllowed(); err != nil {
		return 0, err
	}
	if !a.rc.assocSent.IsZero() && now.Sub(a.rc.assocSent) < assocResetGap {
		return 0, api.ErrAssocResetTooSoon
	}
	if p := a.ourParam(rqAssocReset, 0, true); p != nil {
		return 0, api.ErrAssocResetTooSoon
	}
	for i := range a.rc.queue {
		if a.rc.queue[i].params[0].kind == rqAssocReset {
			return 0, api.ErrAssocResetTooSoon
		}
	}
	r := reconfReq{np: 1}
	r.params[0] = reconfParam{kind: rqAssocReset}
	return a.queueReconf(now, r), nil
}

// startReconf makes the next waiting request outstanding when none is.
func (a *Assoc) startReconf(now time.Time) {
	if a.rc.out != nil || len(a.rc.queue) == 0 || a.closed {
		return
	}
	r := a.rc.queue[0]
	copy(a.rc.queue, a.rc.queue[1:])
	a.rc.queue = a.rc.queue[:len(a.rc.queue)-1]
	a.beginReq(now, &r)
}

// beginReq makes r our outstanding request: it takes its sequence
// numbers; an Add Outgoing Streams request adds the streams at once
// (closed until the peer answers), and an Outgoing SSN Reset Request
// starts holding the messages written to its streams from now on.
func (a *Assoc) beginReq(now time.Time, r *reconfReq) {
	eng := a.data.eng
	for i := range r.np {
		p := &r.params[i]
		p.seq = a.rc.nextSeq
		a.rc.nextSeq++
		switch p.kind {
		case rqAddOut:
			if _, err := eng.AddOutgoing(p.n); err != nil {
				p.done, p.result = true, chunk.ReconfigDenied
			}
		case rqOutReset, rqAssocReset:
			eng.BeginOutgoingReset(p.sids)
		}
		if p.kind == rqOutReset || p.kind == rqInReset {
			// The stream list goes as it is on every transmission.
			p.list = chunk.MakeList16(nil, p.sids...)
		}
	}
	a.rc.out = r
	a.rc.due = true
	a.rc.retx = 0
	a.rc.rto = a.currentRTO()
	a.ep.markReady(a)
	a.finishReq(now) // a request refused locally completes at once
}

// outResetReady applies section 5.1.2 to our Outgoing SSN Reset Request:
// the streams being reset send nothing new until it is answered, and it
// may leave only once what was written to them before has been cut into
// chunks, so that the Sender's Last Assigned TSN covers all of their old
// numbering (Engine.BeginOutgoingReset, OutgoingResetReady). Later messages wait, kept.
func (a *Assoc) outResetReady(p *reconfParam) bool {
	if !p.blocked {
		p.blocked = a.data.eng.OutgoingResetReady()
	}
	return p.blocked
}

// unblockOut ends an outgoing reset: the streams reopen, numbered from 0
// when the peer performed it.
func (a *Assoc) unblockOut(p *reconfParam, performed bool) {
	a.data.eng.FinishOutgoingReset(p.sids, performed)
	a.ep.markReady(a)
}

// appendReconf appends the RE-CONFIG chunks owed: responses, then our
// outstanding request when it is due. Section 5.2.1: "If multiple
// parameters have to be returned, they MUST be put into one RE_CONFIG
// chunk": two responses go together, and a response goes with the
// Outgoing SSN Reset Request that answers an Incoming one (one of the
// combinations section 3.1 allows).
func (a *Assoc) appendReconf(now time.Time, b []byte, limit int) []byte {
	if a.rc == nil {
		return b
	}
	var ps [2]chunk.ReconfigParam
	np := 0
	r := a.rc.out
	if len(a.rc.answers) == 1 && r != nil && a.rc.due && r.np == 1 && r.params[0].kind == rqOutReset {
		ps[0] = a.rc.answers[0] // sent with the request below
		np = 1
	} else {
		for len(a.rc.answers) > 0 {
			n := min(len(a.rc.answers), 2)
			need := 4 + 20*n
			if len(b)+need > limit {
				return b
			}
			b = a.appendReconfChunk(b, a.rc.answers[:n])
			a.rc.answers = append(a.rc.answers[:0], a.rc.answers[n:]...)
		}
	}
	if r == nil || !a.rc.due {
		return b
	}
	answers := np
	for i := range r.np {
		p := &r.params[i]
		if p.done {
			continue
		}
		q := chunk.ReconfigParam{ReqSeq: uint32(p.seq)}
		switch p.kind {
		case rqOutReset, rqAssocReset:
			// Section 5.1.4 for the SSN/TSN Reset Request: the sender
			// stops sending new DATA (every stream is blocked once what
			// was written before has been cut) and sends the request only
			// once everything outstanding is acknowledged (Engine.SenderReadyForTSNReset).
			if !r.sent && (!a.outResetReady(p) || p.kind == rqAssocReset && !a.data.eng.SenderReadyForTSNReset()) {
				if answers > 0 {
					b = a.appendReconfChunk(b, ps[:answers])
					a.rc.answers = a.rc.answers[:0]
				}
				return b // wait until the streams are clear
			}
			if p.kind == rqAssocReset {
				if !r.sent {
					a.rc.assocSent = now
					a.data.eng.BeginTSNReset()
					if eng := a.data.eng; eng.SACKPending() && limit-len(b) >= 16+4+8 {
						// Acknowledge the peer's DATA first: it
						// performs the request only with its data
						// acknowledged (else "In progress").
						b = eng.AppendSACK(now, b, limit-len(b)-4-8)
					}
				}
				q.Type = chunk.ParamSSNTSNReset
				break
			}
			if !r.sent {
				p.lastTSN = chunk.TSN(a.data.eng.LastAssignedTSN())
			}
			q.Type, q.LastTSN, q.RespSeq = chunk.ParamOutgoingSSNReset, p.lastTSN, uint32(p.respSeq)
			q.Streams = p.list
		case rqInReset:
			q.Type = chunk.ParamIncomingSSNReset
			q.Streams = p.list
		case rqAddOut:
			q.Type, q.NewStreams = chunk.ParamAddOutgoingStreams, p.n
		case rqAddIn:
			q.Type, q.NewStreams = chunk.ParamAddIncomingStreams, p.n
		}
		ps[np] = q
		np++
	}
	if np == answers {
		return b
	}
	need := 4
	for i := range np {
		need += (ps[i].Len() + 3) &^ 3
	}
	if len(b)+need > limit {
		return b
	}
	b = a.appendReconfChunk(b, ps[:np])
	if answers > 0 {
		a.rc.answers = a.rc.answers[:0]
	}
	if r.sent {
		a.stats.Reconf.Retransmits++
	}
	r.sent = true
	a.rc.due = false
	a.timers.start(timerReconf, now, a.rc.rto)
	return b
}

// appendReconfChunk appends one RE-CONFIG chunk holding params. Its
// length leaves out the last parameter's padding (RFC 9260 section 3.2;
// a stream list of odd length pads the Outgoing and Incoming SSN Reset
// Requests).
func (a *Assoc) appendReconfChunk(b []byte, params []chunk.ReconfigParam) []byte {
	b, at := chunk.BeginChunk(b, chunk.TypeReconfig, 0)
	last := at
	for i := range params {
		last = len(b)
		b, _ = params[i].Append(b)
	}
	b, _ = chunk.EndChunk(b, at)
	a.stats.Reconf.ChunksOut++
	return unpadLastParam(b, at, last)
}

// reconfTimer retransmits our outstanding request. Section 5.1.1: the
// timer "MUST use the same value as SCTP's data transmission timer (i.e.,
// the retransmission timeout (RTO) timer) and MUST use exponential
// backoff, doubling the value at every expiration. If the timer expires,
// besides doubling the value, the sender MUST retransmit the RE-CONFIG
// chunk, increment the appropriate error counts (for both the association
// and the destination), and perform threshold management, possibly
// destroying the association if SCTP retransmission thresholds are
// exceeded."
func (a *Assoc) reconfTimer(now time.Time) {
	if a.rc == nil || a.rc.out == nil {
		return
	}
	if a.countError(now) {
		return
	}
	a.rc.rto = backoff(a.rc.rto, a.ep.cfg.RTOMax)
	a.rc.retx++
	a.rc.due = true
	a.ep.markReady(a)
}

// answer queues a Re-configuration Response Parameter for the peer.
func (a *Assoc) answer(seq reqSeq, r chunk.ReconfigResult) {
	a.answerParam(chunk.ReconfigParam{Type: chunk.ParamReconfigResponse, RespSeq: uint32(seq), Result: r})
}

// answerParam queues response parameter q for the peer.
func (a *Assoc) answerParam(q chunk.ReconfigParam) {
	if len(a.rc.answers) >= maxReconfAnswers {
		a.stats.Reconf.AnswersDropped++
		return
	}
	a.rc.answers = append(a.rc.answers, q)
	a.ep.markReady(a)
}

// peerRequest checks the sequence number of a request of the peer: the
// expected number is processed (fresh); one or two less than the expected
// one is taken for a retransmission and gets the result it got before
// (section 5.2.1: "If the received RE-CONFIG chunk contains at least one
// request and based on the analysis of the Re-configuration Request
// Sequence Numbers this is the last received RE-CONFIG chunk (i.e., a
// retransmission), the same RE-CONFIG chunk MUST to be sent back in
// response, as it was earlier."; the RFC does not say which numbers count
// as a retransmission); anything else is answered "Error - Bad Sequence
// Number".
func (a *Assoc) peerRequest(seq reqSeq) (fresh bool) {
	switch d := seq.behind(a.rc.peerSeq); {
	case d == 0:
		return true
	case d == 1 || d == 2:
		a.stats.Reconf.DupRequests++
		if t := a.rc.tsnResp; t.HasTSNs && reqSeq(t.RespSeq) == seq {
			a.answerParam(t) // an SSN/TSN reset performed: its next TSNs again
			break
		}
		a.answer(seq, a.rc.lastResults[d-1])
	default:
		a.stats.Reconf.BadSeq++
		a.answer(seq, chunk.ReconfigBadSeq)
	}
	return false
}

// reply answers the peer's fresh request seq with r and settles it:
// the answer and the result remembered for a retransmission are one.
func (a *Assoc) reply(seq reqSeq, r chunk.ReconfigResult) {
	a.answer(seq, r)
	a.settle(r)
}

// settle records the final result of the peer's fresh request and
// expects the next sequence number (section 4.1: the Re-configuration
// Request Sequence Number "is increased by 1 whenever sending a new
// Re-configuration Request Parameter").
func (a *Assoc) settle(r chunk.ReconfigResult) {
	a.rc.lastResults[1] = a.rc.lastResults[0]
	a.rc.lastResults[0] = r
	a.rc.peerSeq++
}

// reconfig6525 handles a RE-CONFIG chunk (RFC 6525 section 5.2): every
// request parameter is answered, every response matched to our request.
// A malformed parameter is counted and skipped; unknown parameter types
// follow the action bits of RFC 9260 section 3.2.1.
func (a *Assoc) reconfig6525(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.reconfOn() {
		return a.unknownChunk3_2(now, p, c)
	}
	if a.data.eng == nil {
		a.stats.Ignored++
		return dispNext
	}
	rc, err := chunk.ParseReconfig(chunkOfRx(c))
	if err != nil {
		a.stats.Reconf.Malformed++
		return dispNext
	}
	a.reconfState()
	a.stats.Reconf.ChunksIn++
	it := rc.Walk()
	off := 0
	for {
		start := it.Offset()
		prm, ok := it.Next()
		if !ok {
			break
		}
		off = start
		switch prm.Type {
		case chunk.ParamOutgoingSSNReset, chunk.ParamIncomingSSNReset, chunk.ParamSSNTSNReset,
			chunk.ParamReconfigResponse, chunk.ParamAddOutgoingStreams, chunk.ParamAddIncomingStreams:
		default:
			act := prm.Type.Action()
			a.stats.Reconf.Malformed++
			if act.Report() {
				a.queueErrorCause(chunk.CauseUnrecognizedParams, rc.Params[off:off+prm.Len()])
			}
			if !act.Skip() {
				return dispNext
			}
			continue
		}
		q, err := chunk.ParseReconfigParam(prm)
		if err != nil {
			a.stats.Reconf.Malformed++
			continue
		}
		if q.Type != chunk.ParamReconfigResponse {
			// Section 5.2.1: "If the received RE-CONFIG chunk contains at
			// least one request parameter, a selective acknowledgment
			// (SACK) chunk SHOULD be sent back and MAY be bundled with
			// the RE-CONFIG chunk."
			a.pend.sackNow = true
		}
		switch q.Type {
		case chunk.ParamReconfigResponse:
			a.reconfResponse(now, &q)
		case chunk.ParamOutgoingSSNReset:
			a.peerOutReset(now, &q)
		case chunk.ParamIncomingSSNReset:
			a.peerInReset(now, &q)
		case chunk.ParamSSNTSNReset:
			a.peerAssocReset(now, &q)
		case chunk.ParamAddOutgoingStreams:
			a.peerAddOut(now, &q)
		case chunk.ParamAddIncomingStreams:
			a.peerAddIn(now, &q)
		}
		if a.closed {
			return dispDeleted
		}
	}
	a.ep.markReady(a)
	return dispNext
}

// sidsOf copies a stream list from the wire, checking each id against
// limit; ok is false when one is out of range.
func sidsOf(l chunk.List16, limit uint16) (sids []uint16, ok bool) {
	sids = make([]uint16, l.Len())
	for i := range sids {
		sids[i] = l.At(i)
		if sids[i] >= limit {
			return nil, false
		}
	}
	return sids, true
}

// validSids reports whether every stream id of l is below limit, without
// copying the list.
func validSids(l chunk.List16, limit uint16) bool {
	for i := range l.Len() {
		if l.At(i) >= limit {
			return false
		}
	}
	return true
}

// reconfRoom returns the room for one RE-CONFIG chunk in the smallest
// packet this association ever sends: BASE_PLPMTU (the PLPMTU of no path
// goes below it, RFC 8899's MIN_PLPMTU here; without discovery every
// path has Config.MTU, which is at least as large), less the common
// header and the AUTH chunk the packet may need.
func (a *Assoc) reconfRoom() int {
	return a.ep.cfg.PMTUBase - commonHeaderLen - a.authOverhead()
}

// resetFits reports whether a user's stream reset listing n streams in
// direction dir fits in one packet of reconfRoom: one RE-CONFIG chunk
// with an Outgoing and/or an Incoming SSN Reset Request (section 3.1
// allows the two together).
func (a *Assoc) resetFits(dir api.StreamDirection, n int) bool {
	need := reconfChunkHdr
	if dir&api.DirOutgoing != 0 {
		need += (resetParamHdr + 2*n + 3) &^ 3
	}
	if dir&api.DirIncoming != 0 {
		need += (inResetHdr + 2*n + 3) &^ 3
	}
	return need <= a.reconfRoom()
}

// peerResetMax returns the most streams the peer's Incoming SSN Reset
// Request may list: our answering Outgoing SSN Reset Request, with the
// response it may carry along (appendReconf), must fit in reconfRoom.
func (a *Assoc) peerResetMax() int {
	// Pairs of ids, so that the list needs no padding.
	return max(0, (a.reconfRoom()-reconfChunkHdr-maxAnswerLen-resetParamHdr)/4*2)
}

// ourParam returns our outstanding request parameter of kind k with
// sequence number seq (any sequence number when any), or nil.
func (a *Assoc) ourParam(k uint8, seq reqSeq, any bool) *reconfParam {
	r := a.rc.out
	if r == nil {
		return nil
	}
	for i := range r.np {
		p := &r.params[i]
		if p.kind == k && !p.done && (any || p.seq == seq) {
			return p
		}
	}
	return nil
}

// peerOutReset handles the peer's Outgoing SSN Reset Request (section
// 5.2.2).
func (a *Assoc) peerOutReset(now time.Time, q *chunk.ReconfigParam) {
	// E1: "If the Re-configuration Timer is running for the
	// Re-configuration Request Sequence Number indicated in the
	// Re-configuration Response Sequence Number field, the
	// Re-configuration Request Sequence Number MUST be marked as
	// acknowledged." That is our Incoming SSN Reset Request.
	if p := a.ourParam(rqInReset, reqSeq(q.RespSeq), false); p != nil {
		p.done, p.result = true, chunk.ReconfigSuccessPerformed
		defer a.finishReq(now)
	}
	if !a.peerRequest(reqSeq(q.ReqSeq)) {
		return
	}
	sids, ok := sidsOf(q.Streams, a.inStreams)
	if !ok {
		a.stats.Reconf.BadStream++
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigWrongSSN)
		return
	}
	if p := a.ourParam(rqAssocReset, 0, true); p != nil && a.rc.out.sent {
		// Our SSN/TSN Reset Request holds all incoming data already.
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigInProgress)
		return
	}
	eng := a.data.eng
	// E2: "If the Sender's Last Assigned TSN is greater than the
	// cumulative acknowledgment point, then the endpoint MUST enter
	// 'deferred reset processing'." ... "If the endpoint enters 'deferred
	// reset processing', it MUST put a Re-configuration Response Parameter
	// into a RE-CONFIG chunk indicating 'In progress' and MUST send the
	// RE-CONFIG chunk."
	if eng.CumulativeTSN().LT(q.LastTSN) {
		a.rc.deferring, a.rc.deferSeq, a.rc.deferSids = true, reqSeq(q.ReqSeq), sids
		eng.DeferIncomingReset(q.LastTSN, sids)
		a.answer(reqSeq(q.ReqSeq), chunk.ReconfigPending)
		return
	}
	a.performInReset(reqSeq(q.ReqSeq), sids)
}

// performInReset resets inbound streams sids (E3), releases the data a
// deferral held (E4), answers "Success - Performed" (E5, E6) and expects
// the next request.
func (a *Assoc) performInReset(seq reqSeq, sids []uint16) {
	a.rc.deferring = false
	if !a.data.eng.ResetIncoming(sids) {
		a.protocolViolation("DATA held for a stream reset breaks the fragment sequence")
		return
	}
	a.reply(seq, chunk.ReconfigSuccessPerformed)
	a.stats.Reconf.StreamResetsIn++
	a.emit(api.Event{Kind: api.EventStreamReset, Direction: api.DirIncoming, Streams: sids})
}

// reconfProgress ends a deferred reset once the cumulative TSN reached the
// peer's last assigned TSN; the association calls it after each packet.
func (a *Assoc) reconfProgress() {
	if a.rc == nil || a.data.eng == nil || a.closed {
		return
	}
	if a.assocResetWaiting() {
		a.ep.markReady(a)
	}
	if !a.rc.deferring {
		return
	}
	eng := a.data.eng
	last, ok := eng.DeferredIncomingReset()
	if !ok || eng.CumulativeTSN().LT(last) {
		return
	}
	a.performInReset(a.rc.deferSeq, a.rc.deferSids)
}

// peerInReset handles the peer's Incoming SSN Reset Request (section
// 5.2.3): we reset our outgoing streams with an Outgoing SSN Reset Request
// whose Re-configuration Response Sequence Number is the peer's request
// (that request is the answer; no response parameter goes with it, as in
// Linux). With a request of ours outstanding the answer is "Error -
// Request already in progress".
//
// Our answering request lists the streams the peer's does, but the
// peer's packet may be far larger than ours to it (a 64 KiB packet on a
// path whose MTU is 1500 for us, or an IP-fragmented one): a request
// naming more streams than one of our packets can carry could never be
// sent, its timer would never start, and every later request would be
// answered "In progress" for the association's life. Such a request is
// answered "Denied" (section 4.4's result 2, the answer of an endpoint
// not willing to perform a request) and counted (ResetListTooLong). We
// do not reset every stream instead (an Outgoing SSN Reset Request
// listing none, which always fits): that resets streams the peer did not
// name, whose messages both applications would then number from 0 again
// with a reset event neither asked for, and blocks all our streams
// meanwhile; "Denied" leaves the peer free to ask again in parts. The
// bound is what fits in the smallest packet we ever send (resetFits), so
// a request accepted stays sendable even if the path MTU falls later.
func (a *Assoc) peerInReset(now time.Time, q *chunk.ReconfigParam) {
	if !a.peerRequest(reqSeq(q.ReqSeq)) {
		return
	}
	if !validSids(q.Streams, a.outStreams) {
		a.stats.Reconf.BadStream++
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigWrongSSN)
		return
	}
	switch {
	case q.Streams.Len() > a.peerResetMax():
		a.stats.Reconf.ResetListTooLong++
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigDenied)
		return
	case a.rc.out != nil:
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigInProgress)
		return
	}
	sids, _ := sidsOf(q.Streams, a.outStreams)
	a.settle(chunk.ReconfigSuccessPerformed)
	r := reconfReq{np: 1}
	r.params[0] = reconfParam{kind: rqOutReset, sids: sids, respSeq: reqSeq(q.ReqSeq), hasResp: true}
	a.beginReq(now, &r)
}

// peerAddOut handles the peer's Add Outgoing Streams Request (section
// 5.2.5): our inbound streams grow, up to 65535 ("Denied" beyond). It
// also answers an Add Incoming Streams Request of ours.
func (a *Assoc) peerAddOut(now time.Time, q *chunk.ReconfigParam) {
	if p := a.ourParam(rqAddIn, 0, true); p != nil {
		p.done, p.result = true, chunk.ReconfigSuccessPerformed
		defer a.finishReq(now)
	}
	if !a.peerRequest(reqSeq(q.ReqSeq)) {
		return
	}
	if q.NewStreams == 0 {
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigSuccessNothing)
		return
	}
	n, err := a.data.eng.AddIncoming(q.NewStreams)
	if err != nil {
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigDenied)
		return
	}
	a.inStreams = uint16(n)
	a.reply(reqSeq(q.ReqSeq), chunk.ReconfigSuccessPerformed)
	a.stats.Reconf.StreamsAddedIn += uint64(q.NewStreams)
	a.emit(api.Event{Kind: api.EventStreamsAdded, Direction: api.DirIncoming, Added: q.NewStreams})
}

// peerAddIn handles the peer's Add Incoming Streams Request (section
// 5.2.6): we add outgoing streams with an Add Outgoing Streams Request of
// our own (the answer, as in Linux), or answer "Denied" beyond 65535 and
// "Error - Request already in progress" while a request of ours is
// outstanding.
func (a *Assoc) peerAddIn(now time.Time, q *chunk.ReconfigParam) {
	if !a.peerRequest(reqSeq(q.ReqSeq)) {
		return
	}
	switch {
	case q.NewStreams == 0:
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigSuccessNothing)
		return
	case int(a.outStreams)+int(q.NewStreams) > stream.MaxStreams:
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigDenied)
		return
	case a.rc.out != nil:
		a.reply(reqSeq(q.ReqSeq), chunk.ReconfigInProgress)
		return
	}
	a.settle(chunk.ReconfigSuccessPerformed)
	r := reconfReq{np: 1}
	r.params[0] = reconfParam{kind: rqAddOut, n: q.NewStreams}
	a.beginReq(now, &r)
}

// reconfResponse matches a Re-configuration Response Parameter to our
// outstanding request (section 5.2.7). "In progress" keeps the request
// outstanding: the timer sends it again. Any answer clears the error
// counter.
func (a *Assoc) reconfResponse(now time.Time, q *chunk.ReconfigParam) {
	r := a.rc.out
	var p *reconfParam
	if r != nil {
		for i := range r.np {
			if x := &r.params[i]; !x.done && x.seq == reqSeq(q.RespSeq) {
				p = x
			}
		}
	}
	if p == nil {
		a.stats.Reconf.Stale++
		return
	}
	a.clearErrors()
	if q.Result == chunk.ReconfigPending {
		a.stats.Reconf.Pending++
		a.rc.rto = a.currentRTO()
		a.timers.start(timerReconf, now, a.rc.rto)
		return
	}
	if p.kind == rqAssocReset && q.Result == chunk.ReconfigSuccessPerformed {
		if !q.HasTSNs {
			// Performed without the next TSNs cannot be applied: the
			// request stays outstanding, sent again by its timer.
			a.stats.Reconf.Malformed++
			return
		}
		p.tsns = *q
	}
	p.done, p.result = true, q.Result
	a.finishReq(now)
}

// finishReq completes our outstanding request once every parameter is
// answered: it applies the results, tells the user and starts the next.
func (a *Assoc) finishReq(now time.Time) {
	r := a.rc.out
	if r == nil {
		return
	}
	for i := range r.np {
		if !r.params[i].done {
			return
		}
	}
	a.rc.out = nil
	a.timers.stop(timerReconf)
	var first error
	for i := range r.np {
		p := &r.params[i]
		err := resultErr(p.result)
		if first == nil {
			first = err
		}
		ev := api.Event{Kind: api.EventStreamReset, Streams: p.sids, Err: err}
		quiet := false
		switch p.kind {
		case rqOutReset:
			ev.Direction = api.DirOutgoing
			a.unblockOut(p, err == nil)
			if err == nil {
				a.stats.Reconf.StreamResetsOut++
			}
		case rqInReset:
			// The reset itself is reported when the peer's Outgoing SSN
			// Reset Request is performed; only a refusal is reported here.
			ev.Direction, quiet = api.DirIncoming, err == nil
		case rqAddOut:
			ev = api.Event{Kind: api.EventStreamsAdded, Direction: api.DirOutgoing, Added: p.n, Err: err}
			a.outStreams = uint16(a.data.eng.FinishAddOutgoing(err == nil))
			if err == nil {
				a.stats.Reconf.StreamsAddedOut += uint64(p.n)
			}
		case rqAddIn:
			// Reported when the peer's Add Outgoing Streams Request is
			// performed, or here when refused.
			ev = api.Event{Kind: api.EventStreamsAdded, Direction: api.DirIncoming, Added: p.n, Err: err}
			quiet = err == nil
		case rqAssocReset:
			ev = api.Event{Kind: api.EventAssocReset, Direction: api.DirBoth, Err: err}
			if !a.endAssocReset(p, err == nil) {
				return
			}
			if err == nil {
				ev.NextTSN, ev.PeerNextTSN = uint32(p.tsns.ReceiverNextTSN), uint32(p.tsns.SenderNextTSN)
				a.stats.Reconf.AssocResetsOut++
			}
		}
		if !quiet {
			a.emit(ev)
		}
	}
	if r.op != 0 {
		a.answerOp(r.op, first)
	}
	a.ep.markReady(a)
	a.startReconf(now)
}

// dropReconf fails every request of ours with err (the association ended,
// or the peer restarted).
func (a *Assoc) dropReconf(err error) {
	if a.rc == nil {
		return
	}
	if r := a.rc.out; r != nil && r.op != 0 {
		a.answerOp(r.op, err)
	}
	for _, r := range a.rc.queue {
		a.answerOp(r.op, err)
	}
	a.rc.out, a.rc.queue = nil, nil
	a.rc.deferring = false
}
