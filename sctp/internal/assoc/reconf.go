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

// Stream reconfiguration (RFC 6525): the RE-CONFIG exchange. At most one
// request of ours is outstanding (section 5.1.1: "there MUST NOT be more
// than one request in flight"), retransmitted on its own timer; every
// request parameter of the peer is answered. Package transfer does the
// data plane.

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

// reconfReq is one request of ours and the user operation waiting for it
// (op 0: none).
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

// reconfOn reports whether both ends negotiated RE-CONFIG (RFC 6525
// section 5.1.1).
func (a *Assoc) reconfOn() bool {
	return !a.ep.cfg.DisableStreamReconfig && a.peerExt&extReconfig != 0
}

// initReconf forgets the reconfiguration state when the engine starts
// (again): after a peer restart the old requests fail.
func (a *Assoc) initReconf() {
	a.dropReconf(errPeerRestarted)
	a.timers.stop(timerReconf)
	a.rc = nil
}

// reconfState returns the reconfiguration state, made on first use; the
// sequence numbers start at the initial TSNs (section 4.1).
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

// behind returns how many numbers seq is behind next, in serial
// arithmetic.
func (seq reqSeq) behind(next reqSeq) uint32 { return uint32(next - seq) }

// assocResetGap: "Only one SSN/TSN Reset Request SHOULD be sent within 30
// seconds" (RFC 6525 section 5.1.4).
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

// ResetStreams queues a user request to reset streams sids (none: all) in
// direction dir (RFC 6525 sections 4.1, 4.2). It returns the operation id
// the answering Event carries.
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
// streams (RFC 6525 sections 4.5, 4.6). It returns the operation id.
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

// ResetAssoc queues an SSN/TSN Reset Request (RFC 6525 section 5.1.4);
// one within 30 s of the last, or while one waits, fails with
// api.ErrAssocResetTooSoon.
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

// beginReq makes r our outstanding request: Add Outgoing adds the streams
// at once (closed until answered), Outgoing SSN Reset starts holding new
// messages on its streams.
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

// outResetReady applies section 5.1.2: the request may leave only once the
// streams' old messages are cut, so the Sender's Last Assigned TSN covers
// them; later messages wait.
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
// request when due. Section 5.2.1: multiple returned parameters "MUST be
// put into one RE_CONFIG chunk"; a response may ride with the Outgoing
// SSN Reset Request that answers an Incoming one (section 3.1).
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
			// Section 5.1.4: no new DATA, and the request goes only once
			// everything outstanding is acknowledged.
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
						// Acknowledge the peer's DATA first, or it answers
						// "In progress".
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

// appendReconfChunk appends one RE-CONFIG chunk holding params; its length
// leaves out the last parameter's padding (RFC 9260 section 3.2).
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
// timer uses the RTO with exponential backoff, and on expiry "the sender
// MUST retransmit the RE-CONFIG chunk, increment the appropriate error
// counts ... and perform threshold management".
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

func (a *Assoc) answerParam(q chunk.ReconfigParam) {
	if len(a.rc.answers) >= maxReconfAnswers {
		a.stats.Reconf.AnswersDropped++
		return
	}
	a.rc.answers = append(a.rc.answers, q)
	a.ep.markReady(a)
}

// peerRequest checks the sequence number of a peer request: the expected
// one is fresh; one or two less is a retransmission and gets the same
// result as before (section 5.2.1; the RFC does not say how far back);
// anything else gets "Error - Bad Sequence Number".
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

// reply answers the peer's fresh request seq with r and settles it.
func (a *Assoc) reply(seq reqSeq, r chunk.ReconfigResult) {
	a.answer(seq, r)
	a.settle(r)
}

// settle records the result of the peer's fresh request and expects the
// next sequence number (section 4.1).
func (a *Assoc) settle(r chunk.ReconfigResult) {
	a.rc.lastResults[1] = a.rc.lastResults[0]
	a.rc.lastResults[0] = r
	a.rc.peerSeq++
}

// reconfig6525 handles a RE-CONFIG chunk (RFC 6525 section 5.2). Malformed
// parameters are counted and skipped; unknown types follow RFC 9260
// section 3.2.1.
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
			// Section 5.2.1: a SACK "SHOULD be sent back".
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

// sidsOf copies a stream list from the wire; ok is false when an id is
// not below limit.
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

// validSids reports whether every stream id of l is below limit.
func validSids(l chunk.List16, limit uint16) bool {
	for i := range l.Len() {
		if l.At(i) >= limit {
			return false
		}
	}
	return true
}

// reconfRoom returns the room for one RE-CONFIG chunk in the smallest
// packet we ever send: BASE_PLPMTU less the common header and AUTH.
func (a *Assoc) reconfRoom() int {
	return a.ep.cfg.PMTUBase - commonHeaderLen - a.authOverhead()
}

// resetFits reports whether a user's stream reset of n streams fits one
// RE-CONFIG chunk in reconfRoom.
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
// Request may list so that our answering request fits reconfRoom.
func (a *Assoc) peerResetMax() int {
	// Pairs of ids, so that the list needs no padding.
	return max(0, (a.reconfRoom()-reconfChunkHdr-maxAnswerLen-resetParamHdr)/4*2)
}

// ourParam returns our outstanding request parameter of kind k with
// sequence number seq (any when any), or nil.
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
	// E1: the response sequence number acknowledges our Incoming SSN
	// Reset Request.
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
	// 'deferred reset processing'" and answer "In progress".
	if eng.CumulativeTSN().LT(q.LastTSN) {
		a.rc.deferring, a.rc.deferSeq, a.rc.deferSids = true, reqSeq(q.ReqSeq), sids
		eng.DeferIncomingReset(q.LastTSN, sids)
		a.answer(reqSeq(q.ReqSeq), chunk.ReconfigPending)
		return
	}
	a.performInReset(reqSeq(q.ReqSeq), sids)
}

// performInReset resets inbound streams sids (E3, E4), answers "Success -
// Performed" (E5, E6) and expects the next request.
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
// peer's last assigned TSN.
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
// 5.2.3): our answering Outgoing SSN Reset Request carries its sequence
// number as response (as in Linux); with a request of ours outstanding the
// answer is "In progress".
//
// A request listing more streams than our smallest packet carries could
// never be answered, and every later request would get "In progress"
// forever: it is answered "Denied" (section 4.4) and counted. Resetting
// every stream instead would reset streams the peer did not name.
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
// 5.2.5), which also answers an Add Incoming Streams Request of ours.
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
// 5.2.6): we answer with an Add Outgoing Streams Request (as in Linux),
// "Denied" beyond 65535, or "In progress".
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
// outstanding request (section 5.2.7); "In progress" keeps it outstanding.
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
			// Performed without the next TSNs cannot be applied: keep it.
			a.stats.Reconf.Malformed++
			return
		}
		p.tsns = *q
	}
	p.done, p.result = true, q.Result
	a.finishReq(now)
}

// finishReq completes our request once every parameter is answered.
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
			// Reported when the peer's request is performed; only a refusal
			// here.
			ev.Direction, quiet = api.DirIncoming, err == nil
		case rqAddOut:
			ev = api.Event{Kind: api.EventStreamsAdded, Direction: api.DirOutgoing, Added: p.n, Err: err}
			a.outStreams = uint16(a.data.eng.FinishAddOutgoing(err == nil))
			if err == nil {
				a.stats.Reconf.StreamsAddedOut += uint64(p.n)
			}
		case rqAddIn:
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

// dropReconf fails every request of ours with err.
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
