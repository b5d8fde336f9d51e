package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// NoticeKind is what the network said about a packet this end sent (an
// ICMP or ICMPv6 error the shell's socket reported).
type NoticeKind uint8

const (
	// NoticeRefused: nothing listens at the destination: ICMP protocol
	// unreachable for plain SCTP, or port unreachable for UDP
	// encapsulation, which RFC 6951 section 5.5 maps to protocol
	// unreachable.
	NoticeRefused NoticeKind = iota + 1
	// NoticeUnreachable: the destination host or network cannot be
	// reached.
	NoticeUnreachable
	// NoticeTooBig: the packet was larger than a link's MTU.
	NoticeTooBig
)

// Notice processes what the network said about a packet this end sent to
// the transport address to: quote is the sent packet as the ICMP error
// quoted it, from its SCTP common header on (possibly truncated). It
// follows RFC 9260 appendix C.
//
// The quote must name one of our associations (ICMP5, paraphrased: the
// ICMP payload locates the association, else the message is ignored) and
// carry its peer's Verification Tag, or, for an INIT (tag 0), our
// Initiate Tag (ICMP6, paraphrased: a non-zero tag that does not match
// the peer's is discarded; with tag 0 the quote must show an INIT chunk
// whose Initiate Tag matches); anything else is dropped and counted in
// NoticesDropped, so that a forged ICMP error cannot end an association.
//
// A valid NoticeRefused is handled as ICMP8 asks of a "Protocol
// Unreachable" (paraphrased: treated as an ABORT with the T bit set if
// it does not quote an INIT; if it quotes an INIT and the association is
// in COOKIE-WAIT, handled like an ABORT): the association ends with
// ReasonPortUnreachable. NoticeUnreachable is only counted: ICMP9 lets an
// implementation "MAY move the destination to the unreachable state or,
// alternatively, increment the path error counter", and each packet that
// draws one also expires a retransmission timer, which already counts
// against the association (counting both would halve
// Association.Max.Retrans); a transient routing error thus never ends an
// association by itself. NoticeTooBig is counted (no path MTU discovery).
func (ep *Endpoint) Notice(now time.Time, to netip.AddrPort, kind NoticeKind, quote []byte) {
	if len(quote) < 12 {
		ep.stats.NoticesDropped++
		return
	}
	src, dst := binary.BigEndian.Uint16(quote), binary.BigEndian.Uint16(quote[2:])
	a := ep.assocs[assocKey{peer: to, localPort: src, peerPort: dst}]
	if a == nil || a.closed {
		ep.stats.NoticesDropped++
		return
	}
	init := false
	switch vtag := binary.BigEndian.Uint32(quote[4:]); {
	case vtag != 0:
		if vtag != a.peerTag {
			ep.stats.NoticesDropped++
			return
		}
	case len(quote) >= 20 && quote[12] == byte(chunk.TypeInit) &&
		binary.BigEndian.Uint32(quote[16:]) == a.localTag:
		init = true
	default:
		ep.stats.NoticesDropped++
		return
	}
	a.stats.NoticesIn++
	if kind != NoticeRefused {
		return
	}
	if init && a.state != stateCookieWait {
		return // an old INIT's answer: the handshake went on
	}
	if init && a.initAddrs != nil {
		return // one of the peer's addresses refused: T1-init tries the next (connectx.go)
	}
	a.fail(ReasonPortUnreachable, 0)
	ep.touch(a)
}
