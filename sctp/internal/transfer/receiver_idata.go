package transfer

import (
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
)

// IData is an I-DATA chunk (RFC 8260 section 2.1) as the engine takes it.
type IData = chunk.IData

// wrongVariant answers DATA on an association that negotiated I-DATA, or
// I-DATA on one that did not (RFC 8260 section 2.2.3: "MUST abort the
// association").
func (r *receiver) wrongVariant() (Verdict, error) {
	return Dropped, ErrProtocolViolation
}

// handleIData processes one I-DATA chunk (RFC 8260 section 2.2.3 with the
// rules of RFC 9260 section 6.2). The full-window exception for partial
// delivery goes by MID and FSN: I-DATA fragments of one message need not
// have consecutive TSNs.
func (r *receiver) handleIData(now time.Time, d *IData) (Verdict, error) {
	defer r.syncBudget()
	r.stats.DataChunksReceived++
	if r.idata == nil {
		return r.wrongVariant()
	}
	if v, ok, err := r.admit(d.TSN, d.Flags, d.SID, len(d.Payload), d); !ok {
		return v, err
	}
	r.idata.SetCumulativeTSN(r.tsns.cum)
	if !r.addFrag(interleave.FillIData(r.fragment(d.Payload), d)) {
		r.stats.IDataMIDRefused = r.idata.MIDRefused()
		return Dropped, ErrProtocolViolation
	}
	r.stats.BytesReceived += uint64(len(d.Payload))
	r.checkPartial()
	r.tuneOnData(now)
	return Accepted, nil
}

// forwardTo moves the cumulative TSN to newCum (RFC 3758 section 3.6),
// then over every TSN in sequence after it. It reports false for a newCum
// at or behind the cumulative TSN, which "MUST NOT update its Cumulative
// TSN".
func (m *tsnMap) forwardTo(newCum TSN) bool {
	if !newCum.GT(m.cum) {
		return false
	}
	if m.words == nil { // nothing arrived out of order: no marks
		m.cum, m.highest = newCum, newCum
		return true
	}
	n := min(newCum.Sub(m.cum), tsnMapBits)
	for i := uint32(1); i <= n; i++ {
		w, b := m.bit(m.cum.Add(i))
		m.words[w] &^= b
	}
	if n == tsnMapBits && newCum.Sub(m.cum) > tsnMapBits {
		clear(m.words[:]) // jumped past the whole window
	}
	m.cum = newCum
	if !m.highest.GT(m.cum) {
		m.highest = m.cum
		return true
	}
	for m.cum != m.highest {
		w, b := m.bit(m.cum + 1)
		if m.words[w]&b == 0 {
			break
		}
		m.words[w] &^= b
		m.cum++
	}
	return true
}

// handleIForwardTSN processes an I-FORWARD-TSN chunk (RFC 8260 section
// 2.3): an invalid one is discarded and the error returned, as Linux does;
// otherwise the cumulative TSN moves, skipped messages leave the
// reassembler and a SACK is due at once. Without I-DATA it is
// ErrProtocolViolation (section 2.3.1).
func (r *receiver) handleIForwardTSN(now time.Time, c chunk.Chunk) error {
	defer r.syncBudget()
	r.stats.ForwardTSNsIn++
	if r.idata == nil {
		return ErrProtocolViolation
	}
	cum, skips, err := interleave.ParseIForwardTSN(c, r.cfg.InStreams, r.skips[:0])
	r.skips = skips[:0]
	if err != nil {
		r.stats.ForwardTSNsInvalid++
		return err
	}
	r.acks.dueNow = true
	if !r.tsns.forwardTo(cum) {
		r.stats.ForwardTSNsStale++
		if !r.staleApplies(cum) {
			return nil // see HandleForwardTSN
		}
	}
	r.idata.ForwardMID(cum, skips)
	r.idata.SetCumulativeTSN(r.tsns.cum)
	return nil
}

// followFSN sets the I-DATA sender's FSN numbering from
// Config.InterleaveFSN; FSNAuto uses RFC 8260's until the peer is seen
// numbering Linux's way.
func (s *sender) followFSN(r *receiver) {
	f, ok := s.frame.(*interleave.IDataFramer)
	if !ok {
		return
	}
	switch s.cfg.InterleaveFSN {
	case interleave.FSNLinux:
		f.LinuxFSN = true
	case interleave.FSNAuto:
		f.Follow = r.idata
	}
}
