package transfer

import (
	"errors"
	"time"

	"github.com/usctp/usctp/sctp/internal/plpmtud"
)

// Multi-homing (RFC 9260 sections 6.4, 6.3.2, 7): the engine keeps one Path
// per peer address; path 0 is the handshake's address. The association
// decides the addresses' states and the primary; the engine:
//
//   - sends new data on the primary, whose T3-rtx, RACK state and
//     Max.Burst the sender's single-path fields hold;
//   - records in each chunk the path it was last sent on (record.marks
//     from pathShift), so flight size, acks, cwnd growth, RTT samples and
//     error counters credit that path;
//   - retransmits chunks a T3-rtx expiry marked, and chunks of a path
//     taken down, on an alternate path when one is up (section 6.4.1);
//     fast retransmissions stay on their path, as in usrsctp and Linux;
//   - runs T3-rtx per path and reports expiries (FaultedPaths).
//
// With a single path the multi-path branches are skipped.

// Record path bits: markT3 sends a chunk a T3-rtx expiry marked to an
// alternate path; the bits from pathShift hold its last path's index.
const (
	markT3    = 1 << 2
	pathShift = 3
)

// maxPaths is the most paths (peer addresses) an engine keeps.
const maxPaths = 1 << (8 - pathShift)

// errTooManyPaths is returned by AddPath beyond maxPaths.
var errTooManyPaths = errors.New("sctp: too many paths")

// pathSet is the sender's paths and what the last packet, SACK and timeout
// did per path.
type pathSet struct {
	// inline backs list while there is one path, so a single-homed
	// association allocates none.
	list       []*Path
	inline     [1]*Path
	primary    *Path // the path new data goes to
	primaryIdx uint8
	dest       uint8  // the path of the packet AppendData built last
	faulted    uint32 // the paths whose T3-rtx expired in the last OnTimeout (bit i for path i)
	// ackedElsewhere is the bytes a SACK newly acked on other paths.
	ackedElsewhere int
	// free holds the slots of removed paths (bit i for path i), which
	// add reuses once no chunk names them.
	free uint32
}

// init makes first, the path of the handshake's address, the one path.
func (ps *pathSet) init(first *Path) {
	ps.inline[0] = first
	ps.list = ps.inline[:]
	ps.primary = first
}

// add adds a path for another peer address and returns its index: the
// slot of a removed path no chunk names (named reports whether one does),
// else a new one.
func (ps *pathSet) add(cfg *Config, ipv6 bool, named func(i uint8) bool) (int, error) {
	p := &Path{}
	p.initFor(cfg, ipv6)
	for i := range ps.list {
		if ps.free&(1<<i) != 0 && !named(uint8(i)) {
			ps.free &^= 1 << i
			p.index = uint8(i)
			ps.list[i] = p
			return i, nil
		}
	}
	n := len(ps.list)
	if n >= maxPaths {
		return -1, errTooManyPaths
	}
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

// alternate returns the path to retransmit a chunk last sent on path i:
// the primary when it is another path and up, else the path up with the
// largest cwnd (as usrsctp's sctp_find_alternate_net), else i.
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

// credit applies what a SACK acknowledged on paths other than the primary:
// cwnd growth, the error counter (8.2) and T3-rtx rules R2 and R3.
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

// deadline returns the earliest T3-rtx deadline of the non-primary paths.
func (ps *pathSet) deadline() time.Time {
	var d time.Time
	for _, p := range ps.list {
		if p != ps.primary && !p.t3.IsZero() && (d.IsZero() || p.t3.Before(d)) {
			d = p.t3
		}
	}
	return d
}

// AddPath adds a path for another peer address and returns its index,
// reusing the slot of a removed path when no chunk still names it. New
// data goes to it only once it is made the primary. It fails beyond 32
// paths.
func (e *Engine) AddPath(ipv6 bool) (int, error) {
	return e.send.paths.add(&e.cfg, ipv6, e.send.pathNamed)
}

// RemovePath frees path i, whose peer address is gone (RFC 5061 Delete
// IP Address): it is taken down (its chunks in flight go to another
// path), its discovery stops, and AddPath reuses its slot. Path 0 and the
// primary cannot be removed; RemovePath reports whether i was.
func (e *Engine) RemovePath(i int) bool {
	ps := &e.send.paths
	p := ps.at(i)
	if p == nil || i == 0 || p == ps.primary {
		return false
	}
	e.send.setPathDown(i, true)
	p.t3 = time.Time{}
	p.pmtu = plpmtud.Prober{}
	ps.free |= 1 << i
	return true
}

// pathNamed reports whether a chunk not yet cumulatively acknowledged
// was last sent on path i.
func (s *sender) pathNamed(i uint8) bool {
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		if r := s.ledger.rec(t); r.marks>>pathShift == i {
			return true
		}
	}
	return false
}

// NumPaths returns the number of paths.
func (e *Engine) NumPaths() int { return len(e.send.paths.list) }

// PathAt returns path i, or nil when there is none.
func (e *Engine) PathAt(i int) *Path { return e.send.paths.at(i) }

// Primary returns the index of the path new data goes to.
func (e *Engine) Primary() int { return int(e.send.paths.primaryIdx) }

// SetPrimary makes path i the one new data goes to. It reports whether i
// is a path.
func (e *Engine) SetPrimary(i int) bool { return e.send.setPrimary(i) }

// SetPathDown marks path i unusable (potentially failed, inactive or
// unconfirmed) or usable again: chunks in flight on a down path are
// retransmitted on another at once rather than after its backed-off
// T3-rtx. It does not change the primary.
func (e *Engine) SetPathDown(i int, down bool) { e.send.setPathDown(i, down) }

// SetPathMTU changes the MTU of path i. Chunks cut before keep their size:
// one larger than the new MTU allows comes alone in a packet longer than room, to be
// sent with IP fragmentation allowed.
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
	// The one-packet rule of 7.2.3 was for the old primary.
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
		// Chunks in flight on down paths go to the path now usable.
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

// markForAlternate marks r for retransmission on an alternate path
// (section 6.4.1).
func (s *sender) markForAlternate(r *record) {
	s.markRtx(r)
	r.marks |= markT3
	r.misses = 0
}

// rtxDest returns the path of the lowest TSN marked for retransmission.
func (s *sender) rtxDest() uint8 {
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		if r := s.ledger.rec(t); r.state == recRtx {
			return s.paths.destFor(r)
		}
	}
	return s.paths.primaryIdx
}

// rtxRoom reports whether the next retransmission's path has cwnd room.
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

// pathTimers runs the T3-rtx timers of the non-primary paths (section
// 6.3.3) and reports whether one expired and counted an error.
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
		// The packet the primary's T3-rtx recovery allowed may have been lost
		// here: allow the next, or nothing would be sent again.
		s.loss.t3Sent = false
		s.rtt.stop()
		p.Fault()
		s.paths.faulted |= 1 << p.index
		expired = true
	}
	return expired
}
