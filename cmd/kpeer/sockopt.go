//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux SCTP socket options that github.com/ishidawataru/sctp does not offer
// (include/uapi/linux/sctp.h).
const (
	solSCTP                    = 132
	optEvents                  = 11  // SCTP_EVENTS
	optStatus                  = 14  // SCTP_STATUS
	optFragmentInterleave      = 18  // SCTP_FRAGMENT_INTERLEAVE
	optEnableStreamReset       = 118 // SCTP_ENABLE_STREAM_RESET
	optResetStreams            = 119 // SCTP_RESET_STREAMS
	optResetAssoc              = 120 // SCTP_RESET_ASSOC
	optAddStreams              = 121 // SCTP_ADD_STREAMS
	optStreamScheduler         = 123 // SCTP_STREAM_SCHEDULER
	optStreamSchedulerValue    = 124 // SCTP_STREAM_SCHEDULER_VALUE
	optInterleavingSupported   = 125 // SCTP_INTERLEAVING_SUPPORTED
	optRemoteUDPEncapsPort     = 132 // SCTP_REMOTE_UDP_ENCAPS_PORT
	futureAssoc                = 0   // SCTP_FUTURE_ASSOC
	sizeofSCTPUDPEncaps        = 144 // struct sctp_udpencaps: assoc id, sockaddr_storage, port
	sizeofSCTPEventSubscribe   = 14  // struct sctp_event_subscribe (all 14 one-byte flags)
	sctpAssocChange            = 0x8001
	sctpShutdownEvent          = 0x8005
	sctpRemoteError            = 0x8004
	sctpSendFailed             = 0x8003
	sctpPartialDeliveryEvent   = 0x8006
	sctpSenderDryEvent         = 0x8009
	sctpStreamResetEvent       = 0x800a
	sctpAssocResetEvent        = 0x800b
	sctpStreamChangeEvent      = 0x800c
	sctpUnordered              = 1 // SCTP_UNORDERED in sinfo_flags
	msgNotification            = 0x8000
	sctpCmsgSndRcv             = 1 // SCTP_SNDRCV
	sizeofSndRcvInfo           = 32
	sctpEnableResetStreamReq   = 0x01
	sctpEnableResetAssocReq    = 0x02
	sctpEnableChangeAssocReq   = 0x04
	sctpEnableStreamResetAllOn = sctpEnableResetStreamReq | sctpEnableResetAssocReq | sctpEnableChangeAssocReq
)

// assocValue is struct sctp_assoc_value.
type assocValue struct {
	ID    uint32
	Value uint32
}

func setAssocValue(fd, opt int, v uint32) error {
	av := assocValue{ID: futureAssoc, Value: v}
	return setRaw(fd, opt, unsafe.Pointer(&av), unsafe.Sizeof(av))
}

func setRaw(fd, opt int, p unsafe.Pointer, n uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(fd), solSCTP, uintptr(opt), uintptr(p), n, 0)
	if e != 0 {
		return fmt.Errorf("setsockopt(%d): %w", opt, e)
	}
	return nil
}

func getRaw(fd, opt int, b []byte) (int, error) {
	n := uint32(len(b))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), solSCTP, uintptr(opt),
		uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, fmt.Errorf("getsockopt(%d): %w", opt, e)
	}
	return int(n), nil
}

// setInterleaving enables I-DATA (RFC 8260) for future associations; the kernel also needs
// net.sctp.intl_enable=1 and SCTP_FRAGMENT_INTERLEAVE=2 first.
func setInterleaving(fd int) error {
	if err := unix.SetsockoptInt(fd, solSCTP, optFragmentInterleave, 2); err != nil {
		return fmt.Errorf("SCTP_FRAGMENT_INTERLEAVE: %w", err)
	}
	return setAssocValue(fd, optInterleavingSupported, 1)
}

// setStreamValue sets a scheduler parameter (priority or weight) of one outbound stream;
// it needs an association (struct sctp_stream_value).
func setStreamValue(fd int, sid, value uint16) error {
	var b [8]byte
	binary.NativeEndian.PutUint32(b[0:], 0)
	binary.NativeEndian.PutUint16(b[4:], sid)
	binary.NativeEndian.PutUint16(b[6:], value)
	return setRaw(fd, optStreamSchedulerValue, unsafe.Pointer(&b[0]), 8)
}

// setRemoteEncapsPort sets the UDP port (RFC 6951) the socket's future associations send
// to (struct sctp_udpencaps with the wildcard IPv4 address; the port in network order).
func setRemoteEncapsPort(fd int, port uint16) error {
	var b [sizeofSCTPUDPEncaps]byte
	binary.NativeEndian.PutUint32(b[0:], futureAssoc)
	binary.NativeEndian.PutUint16(b[8:], unix.AF_INET) // sue_address: sockaddr_in 0.0.0.0
	binary.BigEndian.PutUint16(b[136:], port)
	return setRaw(fd, optRemoteUDPEncapsPort, unsafe.Pointer(&b[0]), sizeofSCTPUDPEncaps)
}

// subscribeEvents turns on the SCTP_SNDRCV ancillary data (data I/O event) and the
// association, shutdown, send-failure, peer-error, stream-reset and sender-dry events;
// paddr adds the peer address changes (multi-homing).
func subscribeEvents(fd int, paddr bool) error {
	var ev [sizeofSCTPEventSubscribe]byte
	ev[0] = 1 // sctp_data_io_event
	ev[1] = 1 // sctp_association_event
	if paddr {
		ev[2] = 1 // sctp_address_event
	}
	ev[3] = 1  // sctp_send_failure_event
	ev[4] = 1  // sctp_peer_error_event
	ev[5] = 1  // sctp_shutdown_event
	ev[6] = 1  // sctp_partial_delivery_event
	ev[10] = 1 // sctp_stream_reset_event
	ev[11] = 1 // sctp_assoc_reset_event
	ev[12] = 1 // sctp_stream_change_event
	return setRaw(fd, optEvents, unsafe.Pointer(&ev[0]), sizeofSCTPEventSubscribe)
}

// status is the part of struct sctp_status that kpeer reports.
type status struct {
	state, inStreams, outStreams int
	unack, pending               int // DATA chunks unacknowledged, and waiting to be sent
	// The primary path's (sstat_primary, struct sctp_paddrinfo) congestion window in
	// bytes, smoothed RTT in milliseconds and path MTU.
	cwnd, srtt, mtu int
}

func getStatus(fd int) (status, error) {
	var b [256]byte
	if _, err := getRaw(fd, optStatus, b[:]); err != nil {
		return status{}, err
	}
	// sstat_assoc_id s32, sstat_state s32, sstat_rwnd u32, sstat_unackdata u16,
	// sstat_penddata u16, sstat_instrms u16, sstat_outstrms u16, ...
	// sstat_fragmentation_point u32, then sstat_primary at 24 (packed, aligned 4):
	// spinfo_assoc_id s32, spinfo_address (sockaddr_storage, 128 bytes),
	// spinfo_state s32, spinfo_cwnd u32, spinfo_srtt u32, spinfo_rto u32, spinfo_mtu u32.
	return status{
		state:      int(binary.NativeEndian.Uint32(b[4:])),
		unack:      int(binary.NativeEndian.Uint16(b[12:])),
		pending:    int(binary.NativeEndian.Uint16(b[14:])),
		inStreams:  int(binary.NativeEndian.Uint16(b[16:])),
		outStreams: int(binary.NativeEndian.Uint16(b[18:])),
		cwnd:       int(binary.NativeEndian.Uint32(b[24+4+128+4:])),
		srtt:       int(binary.NativeEndian.Uint32(b[24+4+128+8:])),
		mtu:        int(binary.NativeEndian.Uint32(b[24+4+128+16:])),
	}, nil
}
