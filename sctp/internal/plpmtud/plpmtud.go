// Package plpmtud is Datagram Packetization Layer Path MTU Discovery
// (DPLPMTUD, RFC 8899, section 6.2 for SCTP) for one path. The Prober is
// a state machine without I/O or clock: the association asks it when a
// probe is due and of which size (Deadline, OnTimer), sends a HEARTBEAT
// padded with a PAD chunk to that size outside congestion control, and
// reports the probe's fate (Sent, Acked, the lost-probe timer through
// OnTimer), Packet Too Big hints (PTB) and signs of a black hole
// (Suspect); Again tells it when a probe left unanswered for about two
// round trips goes once more. The path's PLPMTU is what the sender packs
// packets to; the association copies it to the data-transfer engine when
// it changes.
//
// Sizes are SCTP packets (common header and chunks, no IP or UDP header),
// multiples of 4.
//
// The search probes the largest size first (the upper bound, Config.Max:
// on most paths that succeeds and the search ends after one round trip),
// then sizes between the largest acknowledged and the smallest lost,
// preferring the link MTUs met in practice (commonSizes) and else
// halving the interval, so that a path converges within about
// log2(range/searchGranule) probes. A size is given up after MaxProbes
// lost probes.
package plpmtud

import "time"

// State is the DPLPMTUD state of a path (RFC 8899 section 5.2).
type State uint8

// DPLPMTUD states.
const (
	StateDisabled       State = iota // no discovery: the path uses the configured MTU
	StateBase                        // confirming that the path carries BASE_PLPMTU
	StateSearch                      // probing for a larger PLPMTU
	StateSearchComplete              // the search ended; raised again after PMTU_RAISE_TIMER
	StateError                       // even BASE_PLPMTU probes were lost
)

var stateNames = [...]string{"disabled", "base", "search", "search-complete", "error"}

// String returns the RFC 8899 name of the state ("search-complete"), or
// "PMTUState(?)" for a value out of range: users see the type as
// sctp.PMTUState.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "PMTUState(?)"
}

// DPLPMTUD constants (RFC 8899 section 5.1.2 and 5.1.1).
const (
	// MaxProbes is MAX_PROBES: "The default value of MAX_PROBES is 3."
	MaxProbes = 3
	// DefaultRaise is PMTU_RAISE_TIMER's default, 600 s.
	DefaultRaise = 600 * time.Second
	// searchGranule ends a search: a PLPMTU within this many bytes of
	// the smallest size lost is as good as found.
	searchGranule = 16
	// minProbeTimeout bounds the lost-probe timer from below: RFC 8899
	// section 5.1.1, PROBE_TIMER "MUST NOT be smaller than 1 second".
	minProbeTimeout = time.Second
)

// commonSizes are IP MTUs met in practice (IPv6 minimum, tunnels, PPPoE,
// Ethernet, jumbo frames, loopback), tried before halving.
var commonSizes = [...]int{1280, 1400, 1420, 1440, 1480, 1492, 1500, 4000, 8192, 9000, 16384, 65535}

// Prober is the DPLPMTUD state machine of one path.
type Prober struct {
	state    State
	held     bool   // the probe of size probe was prepared but not sent (Hold)
	again    bool   // the outstanding probe goes once more at sentAt+retry (Again)
	retry    uint32 // the probe timeout it was prepared with in µs, when below PROBE_TIMER; 0: none
	base     int    // BASE_PLPMTU
	max      int    // MAX_PLPMTU (Config.Max)
	overhead int    // IP (and UDP) header bytes: an IP MTU less this is a packet size
	plpmtu   int    // the validated PLPMTU the sender uses

	lo, hi int // search interval: lo acknowledged, hi the smallest size lost (max+4 when none)

	probe   int       // size of the outstanding probe; 0 when none
	count   int       // PROBE_COUNT: probes of that size lost so far
	nonce   uint64    // nonce of the outstanding probe
	sentAt  time.Time // when it was sent
	due     time.Time // next probe (or lost-probe) deadline; zero: none
	suspect int       // black-hole check: the PLPMTU dropped from this size, being confirmed
	raise   time.Duration
}

// Config configures a Prober.
type Config struct {
	Base     int           // BASE_PLPMTU as an SCTP packet size
	Max      int           // MAX_PLPMTU as an SCTP packet size (the configured MTU)
	Overhead int           // IP and UDP header bytes of the path (for PTB's IP MTUs)
	Raise    time.Duration // PMTU_RAISE_TIMER; 0: DefaultRaise
	Delay    time.Duration // before the first probe
}

// Start enables discovery on the path: the PLPMTU is BASE_PLPMTU and a
// probe of that size is due after c.Delay. It returns the PLPMTU.
func (p *Prober) Start(now time.Time, c Config) int {
	c.Base &^= 3
	c.Max &^= 3
	if c.Base > c.Max {
		c.Base = c.Max
	}
	if c.Raise <= 0 {
		c.Raise = DefaultRaise
	}
	*p = Prober{state: StateBase, base: c.Base, max: c.Max, overhead: c.Overhead, plpmtu: c.Base,
		lo: c.Base, hi: c.Max + 4, due: now.Add(c.Delay), raise: c.Raise}
	if c.Base == c.Max {
		// Nothing to search: confirm the one size, as BASE does.
		p.hi = c.Max + 4
	}
	return p.plpmtu
}

// State returns the DPLPMTUD state.
func (p *Prober) State() State { return p.state }

// PLPMTU returns the validated PLPMTU (a packet size).
func (p *Prober) PLPMTU() int { return p.plpmtu }

// Base returns BASE_PLPMTU.
func (p *Prober) Base() int { return p.base }

// Deadline returns when Again or OnTimer must run next, or the zero
// time.
func (p *Prober) Deadline() time.Time {
	if p.state == StateDisabled {
		return time.Time{}
	}
	if p.againArmed() {
		return p.againAt()
	}
	return p.due
}

// againAt returns when the outstanding probe goes once more.
func (p *Prober) againAt() time.Time {
	return p.sentAt.Add(time.Duration(p.retry) * time.Microsecond)
}

// againArmed reports whether the outstanding probe is to go once more
// before its PROBE_TIMER expires.
func (p *Prober) againArmed() bool {
	return p.again && p.probe != 0 && !p.held && p.againAt().Before(p.due)
}

// Again reports whether the outstanding probe is to be sent once more at
// now, with the same nonce: it went unanswered for the probe timeout it
// was prepared with (OnTimer's timeout: about two round trips), while its
// PROBE_TIMER, at least a second, still runs. The probe or its HEARTBEAT
// ACK was most likely lost; without the copy the search would stall at
// the smaller PLPMTU until the timer expired. A probe goes again once
// per PROBE_TIMER, at least one round trip after it was sent (RFC 8899
// section 3: probes outside congestion control are at least one RTT
// apart), and the copy counts neither as a probe lost nor as a new one:
// the acknowledgement of either confirms the size. Again consumes the
// repeat: the caller that cannot send the copy now skips it.
func (p *Prober) Again(now time.Time) bool {
	if !p.againArmed() || now.Before(p.againAt()) || !now.Before(p.due) {
		return false
	}
	p.again = false
	return true
}

// Outstanding returns the size and nonce of the probe awaiting its
// acknowledgement (size 0 when none).
func (p *Prober) Outstanding() (size int, nonce uint64, sent time.Time) {
	if p.held {
		return 0, 0, time.Time{}
	}
	return p.probe, p.nonce, p.sentAt
}

// Hold puts off the probe OnTimer just prepared, not sent, until until:
// OnTimer then prepares it again without counting it lost, and Held
// reports it until Sent. The caller's pacing of the probes of many paths
// uses it (RFC 8899 section 3: probes are not subject to congestion
// control, but a sender "SHOULD limit the rate at which it sends probe
// packets").
func (p *Prober) Hold(until time.Time) {
	if p.probe == 0 {
		return
	}
	p.held, p.nonce, p.sentAt, p.due = true, 0, time.Time{}, until
}

// Held reports whether the probe OnTimer prepared was held (Hold) and not
// sent since: its turn came, and its pacing was paid when it was held.
func (p *Prober) Held() bool { return p.held }

// next returns the size to probe in SEARCH: the upper bound first, then a
// common size inside (lo, hi), then the middle of the interval; 0 when
// the interval is too narrow to search.
func (p *Prober) next() int {
	if p.hi-p.lo <= searchGranule {
		return 0
	}
	if p.hi > p.max {
		return p.max
	}
	mid := (p.lo + p.hi) / 2
	best, atCommon := 0, false
	for _, m := range commonSizes {
		s := (m - p.overhead) &^ 3
		atCommon = atCommon || s == p.lo
		if s > p.lo && s < p.hi && (best == 0 || abs(s-mid) < abs(best-mid)) {
			best = s
		}
	}
	switch {
	case best != 0:
		return best
	case atCommon:
		// The largest size acknowledged is a common link MTU and the
		// next one was lost: that link MTU is the path's (a path a few
		// bytes above it is not worth the probes).
		return 0
	}
	return mid &^ 3
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// OnTimer runs at Deadline: a lost probe is counted (MAX_PROBES lost
// probes of one size end its trial), and a due probe is prepared. It
// returns the size of a probe to send now (0: none) and whether the
// PLPMTU changed.
func (p *Prober) OnTimer(now time.Time, timeout time.Duration) (send int, changed bool) {
	if p.state == StateDisabled || p.due.IsZero() || now.Before(p.due) {
		return 0, false
	}
	if !p.held && p.probe != 0 { // a held probe was never sent: nothing was lost
		p.count++
		if p.count >= MaxProbes {
			changed = p.failed(now)
			if p.due.After(now) {
				return 0, changed // ERROR: BASE_PLPMTU is probed again later
			}
		}
	}
	if p.state == StateSearchComplete && p.probe == 0 {
		// PMTU_RAISE_TIMER: look for a larger PLPMTU again.
		if p.plpmtu < p.max {
			p.state, p.lo, p.hi, p.count = StateSearch, p.plpmtu, p.max+4, 0
		} else {
			p.due = time.Time{}
			return 0, changed
		}
	}
	size := p.probe
	if size == 0 {
		size = p.sizeFor()
	}
	if size == 0 {
		p.complete(now)
		return 0, changed
	}
	p.probe = size
	p.due = now.Add(probeTimeout(timeout))
	p.retry, p.again = 0, false // Sent arms the copy
	if timeout > 0 && timeout < minProbeTimeout {
		p.retry = uint32(max(timeout/time.Microsecond, 1))
	}
	return size, changed
}

// sizeFor returns the next size to probe in the current state.
func (p *Prober) sizeFor() int {
	switch p.state {
	case StateBase, StateError:
		return p.base
	case StateSearch:
		if p.suspect != 0 {
			return p.suspect
		}
		return p.next()
	}
	return 0
}

// probeTimeout bounds the lost-probe timer from below.
func probeTimeout(d time.Duration) time.Duration { return max(d, minProbeTimeout) }

// Sent records that the probe of OnTimer went out with nonce.
func (p *Prober) Sent(now time.Time, nonce uint64) {
	p.nonce, p.sentAt, p.held = nonce, now, false
	p.again = p.retry > 0
}

// failed ends the trial of the outstanding probe size after MaxProbes
// losses and reports whether the PLPMTU changed.
func (p *Prober) failed(now time.Time) bool {
	size := p.probe
	p.probe, p.count, p.held = 0, 0, false
	switch p.state {
	case StateBase, StateError:
		// RFC 8899 section 5.2: BASE moves to ERROR when BASE_PLPMTU
		// probes are lost; the path keeps BASE_PLPMTU (our MIN_PLPMTU)
		// and is probed again later.
		p.state = StateError
		p.due = now.Add(p.raiseAfterError())
		return false
	}
	if size == p.suspect {
		// The black-hole check failed: the path no longer carries the
		// old PLPMTU. Search again from BASE_PLPMTU.
		p.suspect = 0
		old := p.plpmtu
		p.plpmtu = p.base
		p.lo, p.hi = p.base, size
		p.due = now
		return p.plpmtu != old
	}
	if size < p.hi {
		p.hi = size
	}
	p.due = now
	return false
}

// raiseAfterError is how long ERROR waits before probing BASE_PLPMTU
// again.
func (p *Prober) raiseAfterError() time.Duration { return min(p.raise, 30*time.Second) }

// complete ends a search (SEARCH_COMPLETE) and arms PMTU_RAISE_TIMER.
func (p *Prober) complete(now time.Time) {
	p.state = StateSearchComplete
	p.probe, p.count, p.suspect, p.held = 0, 0, 0, false
	p.due = time.Time{}
	if p.plpmtu < p.max {
		p.due = now.Add(p.raise)
	}
}

// Acked processes the acknowledgement of the probe with nonce (a
// HEARTBEAT ACK): the probe's size is confirmed. It reports whether the
// nonce was the outstanding probe's, and whether the PLPMTU changed.
func (p *Prober) Acked(now time.Time, nonce uint64) (ours, changed bool) {
	if p.probe == 0 || p.held || nonce != p.nonce {
		return false, false
	}
	size := p.probe
	p.probe, p.count, p.held = 0, 0, false
	old := p.plpmtu
	switch p.state {
	case StateBase, StateError:
		p.state = StateSearch
		p.lo, p.hi = p.base, p.max+4
		p.plpmtu = max(p.plpmtu, p.base)
	case StateSearch:
		if size > p.plpmtu {
			p.plpmtu = size
		}
		if size > p.lo {
			p.lo = size
		}
		if size == p.suspect {
			// The old PLPMTU still works: the loss was not a black hole.
			p.suspect = 0
			p.complete(now)
			return true, p.plpmtu != old
		}
		if p.hi <= p.lo {
			p.hi = p.max + 4
		}
	}
	p.due = now
	return true, p.plpmtu != old
}

// PTB processes a validated Packet Too Big (ICMP Fragmentation Needed or
// ICMPv6 Packet Too Big) whose quoted packet was ours. mtu is the IP MTU
// it reported (0 when none), quoted the size of the packet it quoted
// (its IP length less the header overhead: the SCTP packet, 0 when
// unknown) and probe whether the quote was the outstanding probe. RFC
// 8899 section 4.6: the PTB is a hint, never trusted to raise the PLPMTU;
// a reported size below BASE_PLPMTU (section 4.6.2: "less than
// MIN_PLPMTU"), not below the probe it quotes, or at least the upper
// bound (we never sent a larger packet) is invalid (valid false). A
// valid one that says nothing new (the PLPMTU already at or below it:
// the reports about packets sent before the PLPMTU fell) is not used. It
// reports whether the hint was valid, used, and whether the PLPMTU
// changed.
func (p *Prober) PTB(now time.Time, mtu int, probe bool) (valid, used, changed bool) {
	if p.state == StateDisabled || mtu <= 0 {
		return false, false, false
	}
	size := (mtu - p.overhead) &^ 3
	switch {
	case size < p.base, size >= p.max:
		return false, false, false
	case probe && size >= p.probe:
		return false, false, false
	case !probe && size >= p.plpmtu:
		return true, false, false
	}
	old := p.plpmtu
	if probe {
		// The probe was too big: its size is lost for good; the next
		// probe tries the reported size.
		p.probe, p.count, p.held = 0, 0, false
		p.hi = min(p.hi, size+4)
		p.due = now
		if size <= p.lo {
			p.complete(now)
		}
		return true, true, false
	}
	// A packet of the current PLPMTU was too big (section 4.6.2: a PTB
	// below the PLPMTU means the path changed): use the reported size
	// at once and confirm it with a probe; if that is lost, search from
	// BASE_PLPMTU.
	p.plpmtu = size
	p.state = StateSearch
	p.probe, p.count, p.held = 0, 0, false
	p.lo, p.hi = p.base, p.plpmtu+4
	p.suspect = p.plpmtu
	p.due = now
	return true, true, p.plpmtu != old
}

// Suspect reports a sign of a black hole: DATA sent at the PLPMTU needed
// a retransmission timeout while the path answers (RFC 8899 section 4.3:
// "repeated loss of packets of size PLPMTU"). When the PLPMTU is above
// BASE_PLPMTU it drops to BASE_PLPMTU at once, so that new packets get
// through, and a probe of the old size follows: if it is acknowledged
// the old PLPMTU comes back (the loss was congestion), if MaxProbes are
// lost the search starts again from BASE_PLPMTU. It reports whether the
// PLPMTU changed.
func (p *Prober) Suspect(now time.Time) bool {
	if p.state == StateDisabled || p.plpmtu <= p.base || p.suspect != 0 {
		return false
	}
	old := p.plpmtu
	p.state = StateSearch
	p.suspect = old
	p.plpmtu = p.base
	p.lo, p.hi = p.base, old+4
	p.probe, p.count, p.held = 0, 0, false
	p.due = now
	return true
}
