package transfer

import (
	"errors"
	"time"
)

// Multi-homing (RFC 9260 sections 6.4, 6.3.2, 7): the engine keeps one Path
// per peer address in the sender's pathSet. Engine.path is element 0, the
// path of the address the handshake used; AddPath adds the others. The association (the core)
// decides what the addresses' states are and which path is the primary;
// the engine:
//
//   - sends new data on the primary (SetPrimary), the one path whose
//     send opportunity, Max.Burst limit, RACK state and T3-rtx the
//     sender's single-path fields hold (lossDetector.t3 is the
//     primary's timer; the other paths keep theirs in Path.t3);
//   - remembers in every chunk record the path it was last sent on
//     (the high bits of record.marks, from pathShift), so that flight
//     size, acknowledgements, cwnd growth, RTT measurements and the
//     clearing of the error counter credit that path;
//   - sends chunks that a T3-rtx expiry marked for retransmission to an
//     alternate path when one is up (section 6.4.1: "the endpoint SHOULD
//     try to retransmit a chunk that timed out to an active destination
//     transport address that is different from the last destination
//     address to which the DATA chunk was sent"), and chunks of a path the
//     association took down (SetPathDown) likewise; fast retransmissions
//     stay on their path, as usrsctp and Linux do (the path works, a chunk
//     was lost);
//   - runs T3-rtx per path (6.3.2 R1 to R3, 6.3.3 for the expired path
//     only) and reports which paths' timers expired (FaultedPaths), for the
//     association's Path.Max.Retrans and potentially-failed logic.
//
// Each packet AppendData builds goes to one path, DataDest. With a single
// path all of this reduces to the single-homed case: the path index is
// always 0 and the multi-path branches are skipped on len(list) == 1.

// Record path bits: markT3 marks a chunk a T3-rtx expiry marked for
// retransmission (it goes to an alternate path); the bits from pathShift
// up hold the index of the path the chunk was last sent on.
const (
	markT3    = 1 << 2
	pathShift = 3
)

// maxPaths is the most paths (peer addresses) an engine keeps.
const maxPaths = 1 << (8 - pathShift)

// errTooManyPaths is returned by AddPath beyond maxPaths.
var errTooManyPaths = errors.New("transfer: too many paths")

// pathSet is the sender's paths: every path, the primary among them, and
// what the last packet, SACK and timeout did per path.
type pathSet struct {
	// list is every path, the primary among them at index primaryIdx;
	// inline is list's backing array while there is one path, so a
	// single-homed association allocates none.
	list       []*Path
	inline     [1]*Path
	primary    *Path // the path new data goes to
	primaryIdx uint8
	dest       uint8  // the path of the packet AppendData built last
	faulted    uint32 // the paths whose T3-rtx expired in the last OnTimeout (bit i for path i)
	// ackedElsewhere is the bytes a SACK newly acknowledged on other
	// paths than the primary (credited to them by credit).
	ackedElsewhere int
}

// init makes first, the path of the handshake's address, the one path.
func (ps *pathSet) init(first *Path) {
	ps.inline[0] = first
	ps.list = ps.inline[:]
	ps.primary = first
}

// add adds a path for another peer address (ipv6 selects the initial cwnd)
// and returns its index, or errTooManyPaths.
func (ps *pathSet) add(cfg *Config, ipv6 bool) (int, error) {
	n := len(ps.list)
	if n >= maxPaths {
		return -1, errTooManyPaths
	}
	p := &Path{}
	p.initFor(cfg, ipv6)
	p.index = uint8(n)
	ps.list = append(ps.list, p)
	return n, nil
}

// at returns path i, or nil when there is none.
func (ps *pathSet) at(i int) *Path {
	if i < 0 || i >= len(ps.list) {
		return nil
	}
	return ps.list[i]
}

// setPath records that r was (re)sent on path i.
func (r *record) setPath(i uint8) { r.marks = r.marks&(1<<pathShift-1) | i<<pathShift }

// of returns the path chunk r was last sent on.
func (ps *pathSet) of(r *record) *Path { return ps.list[r.marks>>pathShift] }

// alternate returns the path a chunk last sent on path i is retransmitted
// on: the primary when it is another path and up, else the path up with
// the largest cwnd (as usrsctp's sctp_find_alternate_net), else i itself.
func (ps *pathSet) alternate(i uint8) uint8 {
	if ps.primaryIdx != i && !ps.primary.down {
		return ps.primaryIdx
	}
	best, cw := i, -1
	for _, p := range ps.list {
		if p.index != i && !p.down && p.cwnd > cw {
			best, cw = p.index, p.cwnd
		}
	}
	return best
}

// destFor returns the path chunk r, marked for retransmission, goes to.
func (ps *pathSet) destFor(r *record) uint8 {
	i := r.marks >> pathShift
	if r.marks&markT3 != 0 || ps.list[i].down {
		return ps.alternate(i)
	}
	return i
}

// credit applies, after a SACK, what it acknowledged on paths other than
// the primary: cwnd growth (7.2.1, 7.2.2), the error counter (8.2) and
// the T3-rtx rules R2 and R3 of section 6.3.2 for those paths.
func (ps *pathSet) credit(now time.Time) {
	for _, p := range ps.list {
		if p == ps.primary {
			continue
		}
		if p.ackedNow > 0 {
			p.onAck(now, p.ackedNow, p.flight+p.ackedNow)
			p.ClearErrors()
			p.ackedNow = 0
			if p.flight > 0 {
				p.t3 = now.Add(p.rto) // R3
			}
		}
		if p.flight == 0 {
			p.t3 = time.Time{} // R2
		}
	}
	ps.ackedElsewhere = 0
}

// deadline returns the earliest T3-rtx deadline of the paths other than
// the primary, or the zero time.
func (ps *pathSet) deadline() time.Time {
	var d time.Time
	for _, p := range ps.list {
		if p != ps.primary && !p.t3.IsZero() && (d.IsZero() || p.t3.Before(d)) {
			d = p.t3
		}
	}
	return d
}

// AddPath adds a path for another peer address (ipv6 selects the initial
// cwnd of section 7.2.1) and returns its index. The path starts up;
// new data goes to it only once it is made the primary.
func (e *Engine) AddPath(ipv6 bool) (int, error) { return e.send.paths.add(&e.cfg, ipv6) }

// NumPaths returns the number of paths.
func (e *Engine) NumPaths() int { return len(e.send.paths.list) }

// PathAt returns path i, or nil when there is none.
func (e *Engine) PathAt(i int) *Path { return e.send.paths.at(i) }

// Primary returns the index of the path new data goes to.
func (e *Engine) Primary() int { return int(e.send.paths.primaryIdx) }

// SetPrimary makes path i the one new data goes to (the primary path, or
// the path the association selected while the primary is potentially
// failed or inactive). It reports whether i is a path.
func (e *Engine) SetPrimary(i int) bool { return e.send.setPrimary(i) }

// SetPathDown tells the engine whether the association considers path i
// unusable (potentially failed, inactive or unconfirmed): chunks to
// retransmit whose last path is down go to another path, and the chunks
// in flight on it when it goes down are marked for retransmission there
// at once (they would otherwise hold the cumulative ack point back until
// the path's backed-off T3-rtx). The primary is not changed (SetPrimary
// does that).
func (e *Engine) SetPathDown(i int, down bool) { e.send.setPathDown(i, down) }

// SetPathMTU changes the MTU of path i (after path MTU discovery).
// Chunks cut before keep their size: when one no longer fits a packet,
// AppendData returns it alone in a packet longer than room, and the
// association must send that packet with IP fragmentation allowed.
func (e *Engine) SetPathMTU(i, mtu int) {
	p := e.PathAt(i)
	if p == nil || mtu < 256 || mtu > 65535 {
		return
	}
	p.mtu = mtu
	e.send.setFragPoint()
}

// setPrimary is Engine.SetPrimary.
func (s *sender) setPrimary(i int) bool {
	np := s.paths.at(i)
	if np == nil {
		return false
	}
	if np == s.paths.primary {
		return true
	}
	old := s.paths.primary
	// T3-rtx follows its path: the sender's timer is the primary's.
	old.t3, s.loss.t3 = s.loss.t3, np.t3
	np.t3 = time.Time{}
	if old.flight == 0 {
		old.t3 = time.Time{} // R2
	}
	old.rack.timer, old.rack.pto = time.Time{}, time.Time{}
	s.loss.tailProbe = false
	s.paths.primary, s.paths.primaryIdx = np, uint8(i)
	// The one-packet rule of 7.2.3 was for the path that timed out; the
	// new primary starts from its own window.
	s.loss.t3Recovery, s.loss.t3Sent = false, false
	s.setFragPoint()
	s.sendOpportunity(0)
	return true
}

// setPathDown is Engine.SetPathDown.
func (s *sender) setPathDown(i int, down bool) {
	p := s.paths.at(i)
	if p == nil || p.down == down {
		return
	}
	p.down = down
	if !down && len(s.paths.list) > 1 {
		// A path is usable again: the chunks still in flight on paths
		// that are down (sent there while no other path was up) go to
		// it now, rather than wait for their path's backed-off T3-rtx.
		for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
			if r := s.ledger.rec(t); r.state == recInFlight && s.paths.list[r.marks>>pathShift].down {
				s.markForAlternate(r)
			}
		}
		return
	}
	if !down || len(s.paths.list) == 1 || s.paths.alternate(p.index) == p.index {
		return
	}
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		if r := s.ledger.rec(t); r.state == recInFlight && r.marks>>pathShift == p.index {
			s.markForAlternate(r)
		}
	}
	if p != s.paths.primary {
		p.t3 = time.Time{}
	}
}

// markForAlternate marks r, in flight, for retransmission on an alternate
// path (section 6.4.1): its path timed out or went down.
func (s *sender) markForAlternate(r *record) {
	s.markRtx(r)
	r.marks |= markT3
	r.misses = 0
}

// rtxDest returns the path of the next retransmission packet: that of the
// lowest TSN marked for retransmission.
func (s *sender) rtxDest() uint8 {
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		if r := s.ledger.rec(t); r.state == recRtx {
			return s.paths.destFor(r)
		}
	}
	return s.paths.primaryIdx
}

// rtxRoom reports whether the congestion window of the next
// retransmission packet's path has room.
func (s *sender) rtxRoom() bool {
	if len(s.paths.list) == 1 {
		return s.paths.primary.flight < s.window()
	}
	d := s.paths.list[s.rtxDest()]
	if d == s.paths.primary {
		return d.flight < s.window()
	}
	return d.flight < d.cwnd
}

// pathTimers runs the T3-rtx timers of the paths other than the primary
// (section 6.3.3, for "the destination address for which the timer
// expires"). It reports whether one expired and counted an error.
func (s *sender) pathTimers(now time.Time) bool {
	expired := false
	for _, p := range s.paths.list {
		if p == s.paths.primary || p.t3.IsZero() || now.Before(p.t3) {
			continue
		}
		p.t3 = time.Time{}
		s.stats.T3Expiries++
		p.onT3Expiry(now)
		p.backoff()
		marked := false
		for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
			r := s.ledger.rec(t)
			if r.state == recInFlight && r.marks>>pathShift == p.index {
				s.markForAlternate(r)
				marked = true
			}
		}
		if !marked {
			continue // nothing was outstanding there: no error
		}
		// The packet a T3-rtx recovery of the primary allowed may be
		// what was lost here (it went to this alternate): without an
		// acknowledgement to end the recovery, this expiry allows the
		// next one, or nothing would be sent again.
		s.loss.t3Sent = false
		s.rtt.stop()
		p.Fault()
		s.paths.faulted |= 1 << p.index
		expired = true
	}
	return expired
}
