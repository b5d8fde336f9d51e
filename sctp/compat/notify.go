package sctp

import (
	"encoding/binary"
	"net"

	usctp "github.com/usctp/usctp/sctp"
)

// Notifications are built in the layout of <linux/sctp.h>, fields in
// host byte order, as the kernel hands them to recvmsg.

// notification returns the notification for ev when the program
// subscribed to its kind, else nil. Called with c.mu held.
func (c *SCTPConn) notification(ev *usctp.Event) []byte {
	ne := c.events
	switch ev.Kind {
	case usctp.EventUp, usctp.EventRestart, usctp.EventDown, usctp.EventShutdown:
		if ne&SCTP_EVENT_ASSOCIATION == 0 {
			return nil
		}
		state := SCTP_COMM_UP
		switch ev.Kind {
		case usctp.EventRestart:
			state = SCTP_RESTART
		case usctp.EventDown:
			state = SCTP_COMM_LOST
		case usctp.EventShutdown:
			state = SCTP_SHUTDOWN_COMP
		}
		out, in := c.as.Streams()
		return assocChange(c.id, state, ev.Cause, out, in)
	case usctp.EventPeerAddrChange:
		if ne&SCTP_EVENT_ADDRESS == 0 {
			return nil
		}
		state := uint32(sctpAddrUnreachable)
		switch {
		case ev.PathState == usctp.PathPotentiallyFailed:
			state = sctpAddrPotentiallyFailed
		case ev.Reachable:
			state = sctpAddrAvailable
		}
		// struct sctp_paddr_change: header, sockaddr_storage (128),
		// state, error, assoc id.
		b := header(nil, SCTP_PEER_ADDR_CHANGE, 148)
		var ss [128]byte
		copy(ss[:], appendSockaddr(nil, net.IPAddr{IP: net.IP(ev.Addr.IP.Unmap().AsSlice())}, c.peerPort()))
		b = append(b, ss[:]...)
		b = binary.NativeEndian.AppendUint32(b, state)
		b = binary.NativeEndian.AppendUint32(b, 0)
		return binary.NativeEndian.AppendUint32(b, uint32(c.id))
	case usctp.EventSendFailed:
		if ne&SCTP_EVENT_SEND_FAILURE == 0 {
			return nil
		}
		// struct sctp_send_failed: header, error, sctp_sndrcvinfo (32),
		// assoc id, data.
		flags := uint16(sctpDataUnsent)
		if ev.MaybeDelivered {
			flags = sctpDataSent
		}
		b := header(nil, SCTP_SEND_FAILED, uint32(48+len(ev.Msg)))
		binary.NativeEndian.PutUint16(b[2:], flags)
		b = binary.NativeEndian.AppendUint32(b, 0)
		info := SndRcvInfo{Stream: ev.Stream, PPID: ev.PPID, AssocID: int32(c.id)}
		if ev.Unordered {
			info.Flags = SCTP_UNORDERED
		}
		b = appendSndRcvInfo(b, &info)
		b = binary.NativeEndian.AppendUint32(b, uint32(c.id))
		return append(b, ev.Msg...)
	case usctp.EventPeerError:
		if ne&SCTP_EVENT_PEER_ERROR == 0 {
			return nil
		}
		// struct sctp_remote_error: header, error (network order),
		// padding, assoc id.
		b := header(nil, SCTP_REMOTE_ERROR, 16)
		b = binary.BigEndian.AppendUint16(b, ev.Cause)
		b = append(b, 0, 0)
		return binary.NativeEndian.AppendUint32(b, uint32(c.id))
	case usctp.EventPartialDeliveryAborted:
		if ne&SCTP_EVENT_PARTIAL_DELIVERY == 0 {
			return nil
		}
		// struct sctp_pdapi_event: header, indication, assoc id, stream,
		// sequence.
		b := header(nil, SCTP_PARTIAL_DELIVERY_EVENT, 24)
		b = binary.NativeEndian.AppendUint32(b, sctpPartialDeliveryAborted)
		b = binary.NativeEndian.AppendUint32(b, uint32(c.id))
		b = binary.NativeEndian.AppendUint32(b, uint32(ev.Stream))
		return binary.NativeEndian.AppendUint32(b, 0)
	case usctp.EventSenderDry:
		if ne&SCTP_EVENT_SENDER_DRY == 0 {
			return nil
		}
		b := header(nil, SCTP_SENDER_DRY_EVENT, 12)
		return binary.NativeEndian.AppendUint32(b, uint32(c.id))
	}
	return nil // stream reconfiguration: no notification of the original's
}

// peerPort returns the peer's SCTP port.
func (c *SCTPConn) peerPort() uint16 {
	if r := c.as.RemoteAddrs(); len(r) > 0 {
		return r[0].Port
	}
	return 0
}

// header appends a notification header (struct sctp_tlv).
func header(b []byte, t SCTPNotificationType, length uint32) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(t))
	b = binary.NativeEndian.AppendUint16(b, 0)
	return binary.NativeEndian.AppendUint32(b, length)
}

// assocChange returns a struct sctp_assoc_change: header, state, error,
// outbound and inbound streams, assoc id (20 bytes).
func assocChange(id SCTPAssocID, state SCTPState, cause, out, in uint16) []byte {
	b := header(nil, SCTP_ASSOC_CHANGE, 20)
	b = binary.NativeEndian.AppendUint16(b, uint16(state))
	b = binary.NativeEndian.AppendUint16(b, cause)
	b = binary.NativeEndian.AppendUint16(b, out)
	b = binary.NativeEndian.AppendUint16(b, in)
	return binary.NativeEndian.AppendUint32(b, uint32(id))
}

// shutdownEvent returns a struct sctp_shutdown_event.
func shutdownEvent(id SCTPAssocID) []byte {
	b := header(nil, SCTP_SHUTDOWN_EVENT, 12)
	return binary.NativeEndian.AppendUint32(b, uint32(id))
}

// sndRcvInfoSize is the size of struct sctp_sndrcvinfo.
const sndRcvInfoSize = 32

// appendSndRcvInfo appends info as a struct sctp_sndrcvinfo in host byte
// order.
func appendSndRcvInfo(b []byte, info *SndRcvInfo) []byte {
	b = binary.NativeEndian.AppendUint16(b, info.Stream)
	b = binary.NativeEndian.AppendUint16(b, info.SSN)
	b = binary.NativeEndian.AppendUint16(b, info.Flags)
	b = binary.NativeEndian.AppendUint16(b, 0)
	for _, v := range [...]uint32{info.PPID, info.Context, info.TTL, info.TSN, info.CumTSN, uint32(info.AssocID)} {
		b = binary.NativeEndian.AppendUint32(b, v)
	}
	return b
}

// parseSndRcvInfo reads a struct sctp_sndrcvinfo from b (32 bytes).
func parseSndRcvInfo(b []byte) *SndRcvInfo {
	e := binary.NativeEndian
	return &SndRcvInfo{Stream: e.Uint16(b), SSN: e.Uint16(b[2:]), Flags: e.Uint16(b[4:]),
		PPID: e.Uint32(b[8:]), Context: e.Uint32(b[12:]), TTL: e.Uint32(b[16:]), TSN: e.Uint32(b[20:]),
		CumTSN: e.Uint32(b[24:]), AssocID: int32(e.Uint32(b[28:]))}
}
