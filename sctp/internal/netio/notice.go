package netio

// NoticeKind says what the network reported about a packet this end
// sent: an ICMP or ICMPv6 error the kernel matched to the socket, or an
// error the kernel queued locally. A conn opened with Notices delivers
// them through ReadBatch, in place of a received packet.
type NoticeKind uint8

const (
	// NoticeNone marks a received packet, not a notice.
	NoticeNone NoticeKind = iota
	// NoticeRefused: nothing listens at the destination (ICMP port
	// unreachable for UDP encapsulation, ICMP protocol unreachable for
	// raw IP: the host has no SCTP).
	NoticeRefused
	// NoticeUnreachable: the destination host or network cannot be
	// reached (ICMP destination unreachable for a host or network,
	// administratively prohibited, time exceeded).
	NoticeUnreachable
	// NoticeTooBig: the packet was larger than a link on the way (ICMP
	// fragmentation needed, ICMPv6 packet too big); Packet.MTU holds the
	// MTU reported, if any.
	NoticeTooBig
	// NoticeLocalTooBig: this host refused to send a packet larger than
	// the MTU of its route (the EMSGSIZE a write with Don't Fragment
	// returned, as the kernel queues it locally); Packet.MTU holds that
	// MTU. It quotes nothing of the packet: the writer knows which one
	// it was (the packet WriteBatch failed with ErrPacketTooBig).
	NoticeLocalTooBig
)

var noticeNames = [...]string{"none", "refused", "unreachable", "too-big", "local-too-big"}

// String returns the kind's name.
func (k NoticeKind) String() string {
	if int(k) < len(noticeNames) {
		return noticeNames[k]
	}
	return "notice?"
}

// maxNoticeQuote bounds the bytes of the quoted packet kept per notice:
// enough for the common header and the first chunk's fixed part, which is
// what RFC 9260 appendix C's checks read (the verification tag, and the
// Initiate Tag of an INIT or the TSN of a DATA chunk).
const maxNoticeQuote = 128
