package assoc

import (
	"cmp"
	"encoding/binary"
	"errors"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// dataPlane connects the association to its transfer engine (package
// sctp/internal/transfer): DATA and SACK chunks go in, DATA and SACK chunks
// come out, and the engine's deadline joins the association's. The engine
// exists from the moment both initial TSNs are known (INIT ACK received,
// or a valid COOKIE ECHO) until the association closes.
type dataPlane struct {
	eng     *transfer.Engine
	kept    *transfer.Engine // the engine after close, for the messages not read yet
	gotData bool             // a DATA chunk was received (the first one is SACKed at once)
	holder  bool             // listed in Endpoint.holders
	d       transfer.Data    // reused views
	sack    transfer.SACK
}

// startData creates the transfer engine from the negotiated parameters.
func (a *Assoc) startData(now time.Time) {
	cfg := a.ep.cfg
	e, err := transfer.New(transfer.Config{
		Timers:     cfg.Timers,
		Buffers:    cfg.Buffers,
		Paths:      cfg.Paths,
		LocalTSN:   transfer.TSN(a.localTSN),
		PeerTSN:    transfer.TSN(a.peerTSN),
		PeerRwnd:   a.peerRwnd,
		Budget:     a.ep.budget,
		SendBudget: a.ep.sendBudget,
		RecvBudget: a.ep.recvBudget,
		OutStreams: int(a.outStreams),
		InStreams:  int(a.inStreams),
		MTU:        cfg.MTU,
		Scheduler:  a.newStreamScheduler(),
		// RFC 8260 section 2.2.1: "User message interleaving has been
		// negotiated for an association if both endpoints have
		// indicated I-DATA support."
		Interleaved:        a.Interleaved(),
		InterleaveFSN:      cfg.InterleaveFSN,
		PartialReliability: a.PartialReliability(),
	})
	if err != nil {
		// The negotiated values were checked: a failure here is a bug.
		panic("sctp: transfer engine: " + err.Error())
	}
	a.data.close(&a.stats)
	a.data.eng = e
	a.pendingBuffer()
	a.initReconf()
}

func (d *dataPlane) deadline() time.Time {
	if d.eng == nil {
		return time.Time{}
	}
	return d.eng.Deadline()
}

func (d *dataPlane) rto() time.Duration {
	if d.eng == nil {
		return 0
	}
	return d.eng.PathAt(0).RTO()
}

// timeout runs the engine's timers and reports a T3-rtx expiry.
func (d *dataPlane) timeout(now time.Time) bool {
	if d.eng == nil {
		return false
	}
	return d.eng.OnTimeout(now)
}

func (d *dataPlane) endPacket(now time.Time) {
	if d.eng != nil {
		d.eng.EndPacket(now)
	}
}

// idle reports whether nothing is queued or unacknowledged.
func (d *dataPlane) idle() bool { return d.eng == nil || d.eng.SendIdle() }

func (d *dataPlane) clearPathErrors() {
	if d.eng != nil {
		d.eng.PathAt(0).ClearErrors()
	}
}

// close drops the engine (its queued data is discarded) after adding its
// counters to s.
func (d *dataPlane) close(s *api.Counters) {
	d.fold(s)
	if d.eng != nil {
		// The association ends or restarts: what its data cost goes back
		// to the endpoint's budget (what stays readable is no longer
		// charged).
		d.eng.ReleaseBudgets()
	}
	d.eng, d.gotData = nil, false
}

// Stats returns the association's counters with the engine's and the
// primary path's current values.
func (a *Assoc) Stats() api.Stats {
	s := api.Stats{Counters: a.stats}
	a.chunks.expand(&s)
	a.data.fold(&s.Counters)
	if e := a.data.eng; e != nil {
		p := e.PathAt(0)
		s.SRTT, s.RTO, s.Cwnd = p.SRTT(), p.RTO(), uint32(p.Cwnd())
		s.Unacked, s.SendBuffered, s.RecvBuffered = e.Outstanding(), e.SendBuffered(), e.RecvHeld()
		s.PeerRwnd = e.PeerRwnd()
		s.RecvMemory = e.RecvMemory()
	}
	if e := cmp.Or(a.data.eng, a.data.kept); e != nil {
		s.PLPMTU = e.PathAt(e.Primary()).MTU()
	}
	return s
}

// fold adds the engine's counters to s.
func (d *dataPlane) fold(s *api.Counters) {
	if d.eng == nil {
		return
	}
	es := d.eng.Stats()
	s.Retransmits += es.Retransmits
	s.FastRetransmit += es.FastRetransmit
	s.T3Expiries += es.T3Expiries
	s.FastRecoveries += es.FastRecoveries
	s.RepeatFastRetransmits += es.RepeatFastRetransmits
	s.Probes += es.Probes
	s.SpuriousRetransmits += es.SpuriousRetransmits
	s.RTOUndos += es.RTOUndos
	for p := range s.PRAbandoned {
		s.PRAbandoned[p] += es.PRAbandoned[p]
		s.PRAbandonedBytes[p] += es.PRAbandonedBytes[p]
	}
	s.PRAbandonedUnsent += es.PRAbandonedUnsent
	s.ForwardTSNsOut += es.ForwardTSNsOut
	s.ForwardTSNsIn += es.ForwardTSNsIn
	s.ForwardTSNsInvalid += es.ForwardTSNsInvalid
	s.IDataMIDRefused += es.IDataMIDRefused
	s.PartialDeliveriesAborted += es.PartialDeliveriesAborted
	s.ECNReductions += es.ECNReductions
}

// cumAck applies the Cumulative TSN Ack of a SHUTDOWN chunk as a SACK
// without gap blocks.
func (d *dataPlane) cumAck(now time.Time, cum uint32) error {
	if d.eng == nil {
		return nil
	}
	d.sack.CumTSNAck = transfer.TSN(cum)
	d.sack.ARwnd = uint32(d.eng.PeerRwnd())
	d.sack.Gaps, d.sack.Dups = d.sack.Gaps[:0], d.sack.Dups[:0]
	_, err := d.eng.HandleSACK(now, &d.sack)
	return err
}

// rttSample feeds an RTT measurement of a handshake or heartbeat exchange.
func (a *Assoc) rttSample(now time.Time, rtt time.Duration) {
	if a.data.eng != nil {
		a.data.eng.PathAt(0).RTTSample(now, rtt)
	}
}

// data6_2 hands a DATA chunk to the receiver (section 6.2).
func (a *Assoc) data6_2(now time.Time, p *inPacket, c *rxChunk) disp {
	if a.data.eng == nil {
		a.stats.Ignored++
		return dispNext
	}
	if a.Interleaved() {
		a.protocolViolation("DATA chunk on an association that negotiated I-DATA")
		return dispDeleted
	}
	if !parseData(c, &a.data.d) {
		a.stats.Malformed++
		return dispStop
	}
	a.data.eng.SetRecvBuf(p.buf)
	v, err := a.data.eng.HandleData(now, &a.data.d)
	a.data.eng.SetRecvBuf(nil)
	a.data.d.Payload = nil // it aliases the packet's buffer, which may be replaced
	if err == nil && v == transfer.Accepted && a.data.gotData {
		return dispNext // the common case: nothing to answer
	}
	return a.dataHandled(v, err, a.data.d.TSN, a.data.d.SID, "DATA")
}

// dataHandled answers what the receiver made of a DATA or I-DATA chunk
// (kind names it): the RFC's reply to an empty one or to one that breaks
// the fragment sequence, the first chunk's immediate SACK, and the ERROR
// for an invalid stream.
func (a *Assoc) dataHandled(v transfer.Verdict, err error, tsn chunk.TSN, sid uint16, kind string) disp {
	switch {
	case err == nil:
	case errors.Is(err, api.ErrEmptyMessage):
		// Section 6.2: "If an endpoint receives a DATA chunk with no user
		// data (i.e., the Length field is set to 16), it SHOULD send an
		// ABORT chunk with a "No User Data" error cause."
		a.stats.Violations++
		cause := appendNoUserDataCause(a.ep.scratch[:0], uint32(tsn))
		a.ep.scratch = cause[:0]
		a.sendAbort(cause)
		a.fail(reasonProtocolViolation, chunk.CauseNoUserData)
		return dispDeleted
	default:
		a.protocolViolation(kind + " chunk breaks the fragment sequence")
		return dispDeleted
	}
	if !a.data.gotData {
		// Section 5.1: "After the reception of the first DATA chunk in an
		// association, the endpoint MUST immediately respond with a SACK
		// chunk to acknowledge the DATA chunk."
		a.data.gotData = true
		a.pend.sackNow = true
	}
	if v == transfer.InvalidStream {
		// Section 6.5: "immediately send an ERROR chunk with cause set to
		// "Invalid Stream Identifier" (see Section 3.3.10), and discard the
		// DATA chunk."
		var info [4]byte
		binary.BigEndian.PutUint16(info[:], sid)
		a.queueErrorCause(chunk.CauseInvalidStream, info[:])
	}
	return dispNext
}

// dataInShutdownSent9_2 accepts DATA in SHUTDOWN-SENT; endPacket answers
// the packet with a SHUTDOWN (section 9.2).
func (a *Assoc) dataInShutdownSent9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	return a.data6_2(now, p, c)
}

// sack6_2_1 hands a SACK to the sender (section 6.2.1). A SACK that
// acknowledges TSNs never sent is a protocol violation: ABORT.
func (a *Assoc) sack6_2_1(now time.Time, p *inPacket, c *rxChunk) disp {
	if a.data.eng == nil {
		a.stats.Ignored++
		return dispNext
	}
	if !parseSack(c, &a.data.sack) {
		a.stats.Malformed++
		return dispStop
	}
	acked, err := a.data.eng.HandleSACK(now, &a.data.sack)
	if err != nil {
		a.protocolViolation("SACK acknowledges a TSN that was never sent")
		return dispDeleted
	}
	if acked {
		// Section 8.1: "The counter used for endpoint failure detection
		// MUST be reset each time a DATA chunk sent to that peer endpoint
		// is acknowledged (by the reception of a SACK chunk)."
		a.clearErrors()
	}
	return dispNext
}

// Message is a user message for Send: the stream it goes on, its payload
// protocol identifier, whether it is unordered, its partial reliability
// (the zero PR is reliable) and its bytes.
type Message struct {
	Stream    uint16
	PPID      uint32
	Unordered bool
	PR        api.PR
	Payload   []byte
}

// Send is the SEND primitive (section 11.1 F): it queues message m.
func (a *Assoc) Send(now time.Time, m *Message) error {
	defer a.ep.reached(a)
	switch {
	case a.closed:
		return ErrClosed
	case !a.state.acceptsUserData():
		// Section 9.2: "An endpoint SHOULD reject any new data request
		// from its upper layer if it is in the SHUTDOWN-PENDING,
		// SHUTDOWN-SENT, SHUTDOWN-RECEIVED, or SHUTDOWN-ACK-SENT state."
		return api.ErrShutdown
	case a.data.eng == nil:
		return errNotReady
	}
	if err := a.data.eng.Queue(now, m.Stream, m.PPID, m.Unordered, m.Payload, m.PR); err != nil {
		return err
	}
	a.ep.markReady(a)
	return nil
}

// CanSendNow reports whether a flush now would send data just queued: the
// windows allow it, or nothing is in flight (then no SACK is coming to
// open them, and a zero window probe may have to be scheduled). Otherwise
// the next SACK (the reader sends after each) or T3-rtx (running while
// data is outstanding) sends it, and waking the owner goroutine for each
// message written behind a full window is wasted.
func (a *Assoc) CanSendNow(now time.Time) bool {
	eng := a.data.eng
	return eng == nil || eng.Outstanding() == 0 || eng.Pending(now)
}
