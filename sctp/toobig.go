package sctp

import (
	"errors"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// The host's own link smaller than a path's PLPMTU (or than a probe): the
// kernel refuses to send the packet (EMSGSIZE, the socket sends with Don't
// Fragment) and reports the route's MTU on the socket's error queue, in a
// report that quotes nothing of the packet. netio's writer takes that
// report at once (netio.TooBigError.MTU); writeCollected keeps the start
// of the refused packet (refusedPacket) and, after the batch, hands the
// core the kept packet as the quote of a Packet Too Big with that MTU
// (passRefused). The core validates it as any Packet Too Big (the
// verification tag, the probe's nonce or an outstanding TSN) and uses it
// as a hint: a probe above the local MTU is not retried, the next one
// tries the local MTU; DATA above it makes the PLPMTU fall at once, not
// after a retransmission timeout. Only the packet this endpoint just had
// refused is answered this way. Should the reader meet the report instead
// (netio.NoticeLocalTooBig), it pairs it with the kept packet the same way
// (localTooBig); a report from elsewhere, or a second one for the same
// packet, finds nothing kept and is counted as a dropped notice.

// refusedPacket is the start of the last packet the kernel refused as too
// big, awaiting the local report with the MTU. Guarded by Endpoint.flushMu.
type refusedPacket struct {
	to       netip.AddrPort // the packet's destination; invalid: none kept
	mtu      int            // the route's MTU netio's writer read, 0: none
	quoteLen int
	quote    [refusedQuote]byte
}

// refusedQuote is the bytes of a refused packet kept: the common header
// and the first chunk's fields the core checks (a DATA chunk's TSN, a
// probe's nonce).
const refusedQuote = 32

// noteRefused keeps the start of p, which WriteBatch refused with err,
// when err says it was larger than the route's MTU. Called with e.flushMu
// held.
func (e *Endpoint) noteRefused(p *netio.Packet, err error) {
	if e.cfg.DisablePMTUDiscovery || !errors.Is(err, netio.ErrPacketTooBig) {
		return
	}
	r := &e.refused
	r.to, r.mtu = p.Addr, 0
	r.quoteLen = p.CopyData(r.quote[:])
	if te := (*netio.TooBigError)(nil); errors.As(err, &te) {
		r.mtu = te.MTU
	}
}

// passRefused hands the core the packet noteRefused kept, when netio's
// writer got the MTU with the refusal; it reports whether it did (the
// core may have packets to send then). Called with e.flushMu held and e.mu
// not held, after the batch is written.
func (e *Endpoint) passRefused() bool {
	r := &e.refused
	if !r.to.IsValid() || r.mtu == 0 {
		return false
	}
	to, mtu := r.to, r.mtu
	r.to = netip.AddrPort{}
	e.mu.Lock()
	e.core.Notice(time.Now(), assoc.Notice{To: to, Kind: assoc.NoticeTooBig, Quote: r.quote[:r.quoteLen], MTU: mtu})
	e.mu.Unlock()
	return true
}

// localTooBig hands the core the packet kept by noteRefused as the quote
// of a Packet Too Big with the MTU of local report p, if p is about the
// kept packet's destination. Called with e.flushMu and e.mu held.
func (e *Endpoint) localTooBig(now time.Time, p *netio.Packet) {
	r := &e.refused
	if !r.to.IsValid() || r.to.Addr().Unmap() != p.Addr.Addr().Unmap() {
		e.core.Notice(now, assoc.Notice{To: p.Addr, Kind: assoc.NoticeTooBig, MTU: p.MTU}) // counted as dropped
		return
	}
	to := r.to
	r.to = netip.AddrPort{}
	e.core.Notice(now, assoc.Notice{To: to, Kind: assoc.NoticeTooBig, Quote: r.quote[:r.quoteLen], MTU: p.MTU})
}
