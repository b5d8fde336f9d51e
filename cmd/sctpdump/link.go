package main

import (
	"encoding/binary"

	"github.com/google/gopacket/layers"

	"github.com/usctp/usctp/sctp/chunk"
)

// Link, network and transport decoding, by hand: only the few headers on the
// way to SCTP matter, and a hand decoder never gives up on a packet whose
// SCTP part is malformed (that is for the chunk decoder to report).

const (
	protoUDP  = 17
	protoSCTP = 132
)

// linkTypeSLL2 is LINKTYPE_LINUX_SLL2 (276) as gopacket v1.1.19 reports it:
// its LinkType is a uint8, so 276 arrives as 276&0xff = 20 (a value no
// other link type uses).
const linkTypeSLL2 layers.LinkType = 276 & 0xff

// udpRule says which UDP datagrams carry SCTP (RFC 6951): those with a
// port in ports, and, with detect, those on any other port whose payload
// is an SCTP packet with a valid CRC32c checksum (a check that a datagram
// of another protocol passes about once in 2^32).
type udpRule struct {
	ports  []int
	detect bool
}

// Kinds of SCTP payload that sctpPayload finds.
const (
	notSCTP     = iota
	plainSCTP   // IP protocol 132
	udpPortSCTP // UDP, on a -udp-port port
	udpSeenSCTP // UDP on another port, recognised by its checksum
)

// sctpPayload returns the SCTP packet carried by a captured frame and how
// it was found, or notSCTP if the frame holds no SCTP (or is an IP
// fragment).
func sctpPayload(frame []byte, link layers.LinkType, udp udpRule) ([]byte, int) {
	ip, ok := networkPayload(frame, link)
	if !ok {
		return nil, notSCTP
	}
	proto, seg, ok := transport(ip)
	if !ok {
		return nil, notSCTP
	}
	switch proto {
	case protoSCTP:
		return seg, plainSCTP
	case protoUDP:
		if len(seg) < 8 {
			return nil, notSCTP
		}
		src, dst := binary.BigEndian.Uint16(seg), binary.BigEndian.Uint16(seg[2:])
		l := int(binary.BigEndian.Uint16(seg[4:]))
		if l < 8 || l > len(seg) {
			l = len(seg)
		}
		payload := seg[8:l]
		for _, p := range udp.ports {
			if int(src) == p || int(dst) == p {
				return payload, udpPortSCTP
			}
		}
		if udp.detect && len(payload) >= chunk.HeaderLen+4 {
			if r, err := chunk.VerifyChecksum(payload, false); err == nil && r == chunk.ChecksumValid {
				return payload, udpSeenSCTP
			}
		}
	}
	return nil, notSCTP
}

// networkPayload strips the link layer and returns the IP packet.
func networkPayload(b []byte, link layers.LinkType) ([]byte, bool) {
	switch link {
	case layers.LinkTypeEthernet:
		if len(b) < 14 {
			return nil, false
		}
		et := binary.BigEndian.Uint16(b[12:])
		b = b[14:]
		for et == 0x8100 || et == 0x88a8 { // VLAN tags
			if len(b) < 4 {
				return nil, false
			}
			et = binary.BigEndian.Uint16(b[2:])
			b = b[4:]
		}
		return ipByEtherType(b, et)
	case layers.LinkTypeLinuxSLL:
		if len(b) < 16 {
			return nil, false
		}
		return ipByEtherType(b[16:], binary.BigEndian.Uint16(b[14:]))
	case linkTypeSLL2:
		if len(b) < 20 {
			return nil, false
		}
		return ipByEtherType(b[20:], binary.BigEndian.Uint16(b))
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12, 14:
		return b, len(b) > 0
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(b) < 4 {
			return nil, false
		}
		return b[4:], true
	}
	return nil, false
}

func ipByEtherType(b []byte, et uint16) ([]byte, bool) {
	if et != 0x0800 && et != 0x86dd {
		return nil, false
	}
	return b, true
}

// transport parses an IPv4 or IPv6 header (by its version nibble) and
// returns the upper-layer protocol and its bytes, trimmed to the IP length.
// Fragments are skipped.
func transport(b []byte) (proto uint8, seg []byte, ok bool) {
	if len(b) < 1 {
		return 0, nil, false
	}
	switch b[0] >> 4 {
	case 4:
		if len(b) < 20 {
			return 0, nil, false
		}
		ihl := int(b[0]&0xf) * 4
		total := int(binary.BigEndian.Uint16(b[2:]))
		if total == 0 {
			total = len(b) // segmentation offload: the length is left to the NIC
		}
		if ihl < 20 || total < ihl || total > len(b) {
			return 0, nil, false
		}
		if frag := binary.BigEndian.Uint16(b[6:]); frag&0x3fff != 0 { // MF or offset
			return 0, nil, false
		}
		return b[9], b[ihl:total], true
	case 6:
		if len(b) < 40 {
			return 0, nil, false
		}
		plen := int(binary.BigEndian.Uint16(b[4:]))
		if 40+plen > len(b) {
			return 0, nil, false
		}
		next, rest := b[6], b[40:40+plen]
		for {
			switch next {
			case 0, 43, 60: // hop-by-hop, routing, destination options
				if len(rest) < 8 {
					return 0, nil, false
				}
				l := 8 + 8*int(rest[1])
				if l > len(rest) {
					return 0, nil, false
				}
				next, rest = rest[0], rest[l:]
			case 44: // fragment
				return 0, nil, false
			default:
				return next, rest, true
			}
		}
	}
	return 0, nil, false
}
