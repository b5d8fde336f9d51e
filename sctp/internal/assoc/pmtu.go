package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/plpmtud"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Packetization Layer Path MTU Discovery (RFC 8899 section 6.2), per
// path, with Config.PMTUDiscovery. The state machine of each path is
// plpmtud.Prober; this file drives it: probes are a HEARTBEAT chunk
// padded with a PAD chunk (RFC 4820) to the probe size, alone in their
// packet, sent to the path's address outside congestion control (RFC
// 8899 section 3: probes "are not subject to the congestion control")
// and never retransmitted as data; a lost probe is only counted, it
// neither counts an error against the path nor the association. The
// acknowledging HEARTBEAT ACK echoes the probe's nonce. A probe
// unanswered for the path's probe timeout (about two round trips) goes
// once more with the same nonce before its PROBE_TIMER expires
// (plpmtud.Prober.Again), so that one lost packet does not hold the path
// at the smaller PLPMTU for the timer's second. The path's
// PLPMTU goes to the transfer engine at once (SetPathMTU): the
// fragmentation point, bundling and I-DATA fragment sizes of every chunk
// cut from then on follow it (chunks are cut lazily, when a packet is
// built). Chunks cut before a smaller PLPMTU and still unacknowledged
// cannot be cut again (their TSN and FSN are fixed): their packets go
// over the PLPMTU and the shell lets the IP layer fragment them
// (Packet.MayFragment); RFC 9260 section 6.9 forbids refragmenting a
// sent message, and IP fragmentation is the one way left.
//
// Black holes: a T3-rtx expiry of a path above BASE_PLPMTU drops it to
// BASE_PLPMTU and probes the old size (Prober.Suspect); ICMP Packet Too
// Big reports, validated as RFC 9260 appendix C says (notice.go: the
// verification tag; here also the TSN of a quoted DATA or I-DATA chunk,
// which must be outstanding, or the nonce of a quoted probe), shorten
// the search and are never trusted to raise the PLPMTU.

// pmtuStartDelay is how long after ESTABLISHED (or a path's
// confirmation) the first probe waits: an association that a peer
// aborts at once (or whose peer's socket is already gone) does not draw
// an ICMP error for a probe that would overtake the peer's ABORT (Linux
// reports a socket's pending ICMP error before its queued packets).
const pmtuStartDelay = 100 * time.Millisecond

// Probes are paced per endpoint (probePacer): RFC 8899 section 3 keeps
// probes out of congestion control but asks that a sender "SHOULD limit
// the rate at which it sends probe packets". One association's search
// sends a few probes; unpaced, thousands of associations set up at once
// from one host, each searching towards loopback's 65535 bytes 100 ms
// after it comes up, would send megabytes of probes in a burst, overflow
// the socket buffers and lose the handshake packets of later associations
// with them (a 1 s initial RTO each). A probe beyond the pacer's budget is
// held (plpmtud.Prober.Hold) until its turn, which the pacer assigns
// when it refuses it, so a held probe is sent without asking again and
// the associations waiting are not woken more than once each.

// probeRate and probeBurst bound the PLPMTU probe bytes of an endpoint:
// probeBurst at once (32 probes of loopback's 65535 bytes, more than a
// thousand of Ethernet's), probeRate per second after that. A single
// association's search never waits; 1,000 associations searching to 65535
// bytes at once take half a second, 10,000 five seconds.
const (
	probeRate  = 128 << 20
	probeBurst = 2 << 20
)

// probePacer is a token bucket of probe bytes that may go into debt:
// each refused probe is given the time at which its bytes are covered,
// and the bytes are taken at once, so that the next refused probe waits
// behind it.
type probePacer struct {
	tokens int64     // bytes that may go now; negative: owed by the probes held
	at     time.Time // when tokens was last brought up to date
}

// take returns how long a probe of n bytes must wait (0: it may go now)
// and takes its bytes.
func (b *probePacer) take(now time.Time, n int) time.Duration {
	b.refill(now)
	b.tokens -= int64(n)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens * int64(time.Second) / probeRate)
}

// spare takes n bytes if the bucket holds them now, without going into
// debt, and reports whether it did: for a copy of a probe, which is sent
// now or not at all.
func (b *probePacer) spare(now time.Time, n int) bool {
	b.refill(now)
	if b.tokens < int64(n) {
		return false
	}
	b.tokens -= int64(n)
	return true
}

// refill brings the tokens up to date at now.
func (b *probePacer) refill(now time.Time) {
	if b.at.IsZero() {
		b.tokens, b.at = probeBurst, now
	}
	if el := now.Sub(b.at); el > 0 {
		el = min(el, time.Minute) // keeps the product in range; a minute covers any debt
		b.tokens = min(probeBurst, b.tokens+int64(el)*probeRate/int64(time.Second))
		b.at = now
	}
}

// startPMTU starts discovery on every engine path on entering
// ESTABLISHED.
func (a *Assoc) startPMTU(now time.Time) {
	eng := a.data.eng
	if !a.ep.cfg.PMTUDiscovery || eng == nil {
		return
	}
	for i := range eng.NumPaths() {
		a.startPathPMTU(now, i)
	}
}

// startPathPMTU starts discovery on engine path i.
func (a *Assoc) startPathPMTU(now time.Time, i int) {
	eng := a.data.eng
	if !a.ep.cfg.PMTUDiscovery || eng == nil || eng.PathAt(i) == nil {
		return
	}
	pr := eng.PathAt(i).Prober()
	if pr.State() != api.PMTUDisabled {
		return
	}
	c := &a.ep.cfg
	mtu := pr.Start(now, plpmtud.Config{Base: c.PMTUBase, Max: c.MTU, Overhead: c.PMTUOverhead, Raise: c.PMTURaise,
		Delay: pmtuStartDelay})
	eng.SetPathMTU(i, mtu)
	a.schedulePMTU()
}

// schedulePMTU arms timerPMTU at the earliest probe deadline.
func (a *Assoc) schedulePMTU() {
	eng := a.data.eng
	if eng == nil {
		return
	}
	var d time.Time
	for i := range eng.NumPaths() {
		d = earliest(d, eng.PathAt(i).Prober().Deadline())
	}
	if d.IsZero() {
		a.timers.stop(timerPMTU)
		return
	}
	a.timers.at[timerPMTU], a.timers.stale = d, true
}

// pmtuTimer runs the probers whose deadline passed: lost probes are
// counted, due probes queued.
func (a *Assoc) pmtuTimer(now time.Time) {
	eng := a.data.eng
	if eng == nil || a.heartbeatsStopped() {
		return // the timer stays stopped (see heartbeatsStopped)
	}
	for i := range eng.NumPaths() {
		p := eng.PathAt(i)
		pr := p.Prober()
		if d := pr.Deadline(); d.IsZero() || d.After(now) {
			continue
		}
		before, nonce, _ := pr.Outstanding()
		if pr.Again(now) {
			// Unanswered for two round trips: the same probe once more,
			// if the pacer has room for it now. Its PROBE_TIMER runs on.
			if a.ep.probes.spare(now, before) {
				a.pend.pmtuProbe |= 1 << i
				a.ep.markReady(a)
			}
			continue
		}
		if before != 0 {
			a.stats.PMTUProbesLost++
		}
		size, changed := pr.OnTimer(now, p.ProbeTimeout())
		if changed {
			a.pmtuChanged(i)
		}
		if size == 0 {
			continue
		}
		if !pr.Held() { // a held probe's turn was paid for when it was held
			if wait := a.ep.probes.take(now, size); wait > 0 {
				pr.Hold(now.Add(wait))
				continue
			}
		}
		if size != before {
			nonce = uint64(a.ep.random32())<<32 | uint64(a.ep.random32())
		}
		pr.Sent(now, nonce)
		a.pend.pmtuProbe |= 1 << i
		a.ep.markReady(a)
	}
	a.schedulePMTU()
}

// pmtuChanged applies path i's new PLPMTU to the engine and tells the
// user.
func (a *Assoc) pmtuChanged(i int) {
	eng := a.data.eng
	p := eng.PathAt(i)
	mtu := p.Prober().PLPMTU()
	if mtu == p.MTU() {
		return
	}
	a.ep.trace(a, "path %d PLPMTU %d -> %d (%v)", i, p.MTU(), mtu, p.Prober().State())
	if mtu < p.MTU() {
		a.stats.PMTUDecreases++
	} else {
		a.stats.PMTUIncreases++
	}
	eng.SetPathMTU(i, mtu)
	a.emit(api.Event{Kind: api.EventPathMTU, Addr: a.eventAddr(a.engineAddr(i)), MTU: mtu})
}

// engineAddr returns the peer address of engine path i.
func (a *Assoc) engineAddr(i int) netip.AddrPort {
	for j := range a.paths {
		if a.paths[j].eng == i {
			return a.paths[j].addr
		}
	}
	return a.key.peer
}

// engineIndex returns the engine path of peer address to, or -1.
func (a *Assoc) engineIndex(to netip.AddrPort) int {
	if a.paths == nil {
		if a.data.eng != nil {
			return 0
		}
		return -1
	}
	for j := range a.paths {
		if a.paths[j].addr == to {
			return a.paths[j].eng
		}
	}
	return -1
}

// appendPMTUProbe builds the probe packet owed to one path: a HEARTBEAT
// whose Heartbeat Information is the probe's nonce and send time, and a
// PAD chunk that brings the packet to the probe size.
func (a *Assoc) appendPMTUProbe(buf []byte) ([]byte, bool) {
	eng := a.data.eng
	for a.pend.pmtuProbe != 0 {
		i := 0
		for a.pend.pmtuProbe&(1<<i) == 0 {
			i++
		}
		a.pend.pmtuProbe &^= 1 << i
		p := eng.PathAt(i)
		if p == nil {
			continue
		}
		size, nonce, sent := p.Prober().Outstanding()
		if size == 0 {
			continue
		}
		start := len(buf)
		b := appendHeader(buf, a.key.localPort, a.key.peerPort, a.peerTag)
		info := binary.BigEndian.AppendUint64(a.ep.scratch[:0], nonce)
		info = binary.BigEndian.AppendUint64(info, uint64(sent.UnixNano()))
		b = appendHeartbeat(b, info)
		if n := size - (len(b) - start); n >= 4 {
			b, _ = chunk.AppendPad(b, n)
		}
		a.dest = a.engineAddr(i)
		a.stats.PMTUProbes++
		return a.finishOwn(b, start), true
	}
	return buf, false
}

// pmtuAck handles a HEARTBEAT ACK that may answer a probe and reports
// whether it did.
func (a *Assoc) pmtuAck(now time.Time, nonce uint64) bool {
	eng := a.data.eng
	if !a.ep.cfg.PMTUDiscovery || eng == nil {
		return false
	}
	for i := range eng.NumPaths() {
		ours, changed := eng.PathAt(i).Prober().Acked(now, nonce)
		if !ours {
			continue
		}
		a.stats.PMTUProbeAcks++
		if changed {
			a.pmtuChanged(i)
		}
		a.schedulePMTU()
		return true
	}
	return false
}

// pmtuSuspect reports the T3-rtx expiries of the last engine timeout as
// signs of a black hole on their paths.
func (a *Assoc) pmtuSuspect(now time.Time) {
	eng := a.data.eng
	if !a.ep.cfg.PMTUDiscovery || eng == nil {
		return
	}
	f := eng.FaultedPaths()
	for i := range eng.NumPaths() {
		if f&(1<<i) != 0 && eng.PathAt(i).Prober().Suspect(now) {
			a.stats.PMTUBlackHoles++
			a.pmtuChanged(i)
		}
	}
	a.schedulePMTU()
}

// pmtuTooBig handles a Packet Too Big about a packet of this association
// sent to to (the tag already checked), reporting the IP MTU mtu.
// The quote is validated further: a quoted probe must carry the
// outstanding probe's nonce, a quoted DATA or I-DATA chunk an outstanding
// TSN. An invalid quote or a size the prober refuses (below BASE_PLPMTU,
// not below the probe it quotes, at least Config.MTU) is counted in
// PTBIgnored.
func (a *Assoc) pmtuTooBig(now time.Time, to netip.AddrPort, quote []byte, mtu int) {
	eng := a.data.eng
	i := a.engineIndex(to)
	if !a.ep.cfg.PMTUDiscovery || eng == nil || i < 0 {
		return
	}
	pr := eng.PathAt(i).Prober()
	probe := false
	if len(quote) >= 16 {
		c := quote[12:]
		switch chunk.Type(c[0]) {
		case chunk.TypeHeartbeat:
			size, nonce, _ := pr.Outstanding()
			// HEARTBEAT chunk header, Heartbeat Info parameter header,
			// then our nonce.
			if size == 0 || len(c) < 16 || binary.BigEndian.Uint64(c[8:]) != nonce {
				a.stats.PTBIgnored++
				return
			}
			probe = true
		case chunk.TypeData, chunk.TypeIData:
			if len(c) >= 8 {
				tsn := transfer.TSN(binary.BigEndian.Uint32(c[4:]))
				next := eng.NextTSN()
				out := transfer.TSN(uint32(next) - uint32(eng.Outstanding()))
				if eng.Outstanding() == 0 || tsn.LT(out) || !tsn.LT(next) {
					a.stats.PTBIgnored++
					return
				}
			}
		}
	}
	valid, used, changed := pr.PTB(now, mtu, probe)
	if !valid {
		a.stats.PTBIgnored++
		return
	}
	if !used {
		return // about a packet sent before the PLPMTU fell
	}
	a.stats.PTBUsed++
	if changed {
		a.pmtuChanged(i)
	}
	a.schedulePMTU()
	a.ep.markReady(a)
}

// sendLimit returns the size of the packets appendPacket builds: the
// PLPMTU of the path new data goes to, or Config.MTU before the data
// engine exists.
func (a *Assoc) sendLimit() int {
	if eng := a.data.eng; eng != nil {
		if p := eng.PathAt(eng.Primary()); p != nil {
			return p.MTU()
		}
	}
	return a.ep.cfg.MTU
}
