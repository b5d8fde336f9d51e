package transfer

import "math/bits"

// tsnMapBits is the width of the TSN map's window: TSNs more than this
// beyond the cumulative TSN are dropped (the peer retransmits them).
const tsnMapBits = 1 << 14

// tsnMap records the TSNs received: everything up to cum, and a bitmap of
// the window above it, allocated on the first out-of-order TSN.
type tsnMap struct {
	cum     TSN // cumulative TSN: every TSN up to it was received
	highest TSN // highest TSN received (cum when no gap)
	words   *[tsnMapBits / 64]uint64
}

func (m *tsnMap) init(peerInitial TSN) {
	m.cum = peerInitial - 1
	m.highest = m.cum
}

// reset forgets every TSN received and expects next (an SSN/TSN reset,
// RFC 6525).
func (m *tsnMap) reset(next TSN) {
	if m.words != nil {
		*m.words = [tsnMapBits / 64]uint64{}
	}
	m.init(next)
}

func (m *tsnMap) bit(t TSN) (int, uint64) {
	i := uint32(t) % tsnMapBits
	return int(i / 64), 1 << (i % 64)
}

// inWindow reports whether t lies in (cum, cum+tsnMapBits].
func (m *tsnMap) inWindow(t TSN) bool {
	return t.GT(m.cum) && t.Sub(m.cum) <= tsnMapBits
}

// has reports whether t was received; t above the window was not.
func (m *tsnMap) has(t TSN) bool {
	if t.LEQ(m.cum) {
		return true
	}
	if !m.inWindow(t) || m.words == nil {
		return false
	}
	w, b := m.bit(t)
	return m.words[w]&b != 0
}

// add records t, which must be in the window and not yet received, and
// advances cum over every TSN now in sequence.
func (m *tsnMap) add(t TSN) {
	if t.GT(m.highest) {
		m.highest = t
	}
	if t != m.cum+1 {
		if m.words == nil {
			m.words = new([tsnMapBits / 64]uint64)
		}
		w, b := m.bit(t)
		m.words[w] |= b
		return
	}
	m.cum = t
	// cum below highest means a TSN arrived out of order: the bitmap exists.
	for m.cum != m.highest {
		w, b := m.bit(m.cum + 1)
		if m.words[w]&b == 0 {
			break
		}
		m.words[w] &^= b
		m.cum++
	}
}

// remove forgets t, received above cum and not yet delivered, as if it
// never arrived (the receiver dropped it to make room).
func (m *tsnMap) remove(t TSN) {
	if !t.GT(m.cum) || !m.inWindow(t) || m.words == nil {
		return
	}
	w, b := m.bit(t)
	m.words[w] &^= b
	if t != m.highest {
		return
	}
	for m.highest = t - 1; m.highest != m.cum; m.highest-- {
		if w, b := m.bit(m.highest); m.words[w]&b != 0 {
			return
		}
	}
}

// hasGaps reports whether TSNs above cum were received.
func (m *tsnMap) hasGaps() bool { return m.highest != m.cum }

// gaps calls fn for each Gap Ack Block (offsets from cum) in order, at
// most max blocks.
func (m *tsnMap) gaps(max int, fn func(start, end uint16)) int {
	n := 0
	off := uint32(1)
	span := m.highest.Sub(m.cum)
	for off <= span && n < max {
		// Find the next set bit at or after off.
		for off <= span {
			w, b := m.bit(m.cum.Add(off))
			word := m.words[w] &^ (b - 1) // bits from b upward
			if word == 0 {
				off += uint32(64 - bits.TrailingZeros64(b))
				continue
			}
			off += uint32(bits.TrailingZeros64(word) - bits.TrailingZeros64(b))
			break
		}
		if off > span {
			break
		}
		start := off
		// Find the next clear bit.
		for off <= span {
			w, b := m.bit(m.cum.Add(off))
			word := ^m.words[w] &^ (b - 1)
			if word == 0 {
				off += uint32(64 - bits.TrailingZeros64(b))
				continue
			}
			off += uint32(bits.TrailingZeros64(word) - bits.TrailingZeros64(b))
			break
		}
		end := min(off-1, span)
		fn(uint16(start), uint16(end))
		n++
	}
	return n
}
