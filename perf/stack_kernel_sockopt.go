package perf

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"unsafe"

	"github.com/usctp/usctp/sctp"
)

// Socket options of Linux's SCTP that github.com/ishidawataru/sctp does not name
// (include/uapi/linux/sctp.h).
const (
	solSCTP                     = 132 // SOL_SCTP
	sctpFragmentInterleave      = 18  // SCTP_FRAGMENT_INTERLEAVE
	sctpStreamScheduler         = 123 // SCTP_STREAM_SCHEDULER
	sctpStreamSchedulerValue    = 124 // SCTP_STREAM_SCHEDULER_VALUE
	sctpInterleavingSupported   = 125 // SCTP_INTERLEAVING_SUPPORTED
	sctpRemoteUDPEncapsPort     = 132 // SCTP_REMOTE_UDP_ENCAPS_PORT
	sctpFutureAssoc             = 0   // SCTP_FUTURE_ASSOC
	sizeofUDPEncaps             = 144 // struct sctp_udpencaps: assoc id, sockaddr_storage (8-aligned), port
	sizeofAssocValue            = 8   // struct sctp_assoc_value: assoc id, value
	sizeofStreamValue           = 8   // struct sctp_stream_value: assoc id, stream id, value
	fragmentInterleaveLevelIDat = 2   // SCTP_FRAGMENT_INTERLEAVE level that I-DATA needs
)

func setsockoptSCTP(fd, opt int, b []byte) error {
	_, _, e := syscall.Syscall6(syscall.SYS_SETSOCKOPT, uintptr(fd), solSCTP, uintptr(opt),
		uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
	if e != 0 {
		return e
	}
	return nil
}

// setAssocValue sets a struct sctp_assoc_value option for the socket's future
// associations.
func setAssocValue(fd, opt int, v uint32) error {
	var b [sizeofAssocValue]byte
	binary.NativeEndian.PutUint32(b[0:], sctpFutureAssoc)
	binary.NativeEndian.PutUint32(b[4:], v)
	return setsockoptSCTP(fd, opt, b[:])
}

// setRemoteEncapsPort makes the socket's associations send SCTP in UDP to the
// peer's port (RFC 6951 section 5.1: the destination port is the peer's
// configured one; the kernel learns a replying peer's port from its packets).
// The address in struct sctp_udpencaps is the IPv4 wildcard: every peer address.
func setRemoteEncapsPort(fd int, port uint16) error {
	var b [sizeofUDPEncaps]byte
	binary.NativeEndian.PutUint32(b[0:], sctpFutureAssoc)
	binary.NativeEndian.PutUint16(b[8:], syscall.AF_INET)
	binary.BigEndian.PutUint16(b[136:], port)
	if err := setsockoptSCTP(fd, sctpRemoteUDPEncapsPort, b[:]); err != nil {
		return fmt.Errorf("kernel: setsockopt(SCTP_REMOTE_UDP_ENCAPS_PORT, %d): %w", port, err)
	}
	return nil
}

// setInterleaving offers I-DATA (RFC 8260) in the socket's future associations;
// Linux wants fragment interleave level 2 first, and net.sctp.intl_enable=1.
func setInterleaving(fd int) error {
	if err := syscall.SetsockoptInt(fd, solSCTP, sctpFragmentInterleave, fragmentInterleaveLevelIDat); err != nil {
		return fmt.Errorf("kernel: setsockopt(SCTP_FRAGMENT_INTERLEAVE, 2): %w", err)
	}
	if err := setAssocValue(fd, sctpInterleavingSupported, 1); err != nil {
		return fmt.Errorf("kernel: setsockopt(SCTP_INTERLEAVING_SUPPORTED): %w (is net.sctp.intl_enable 1?)", err)
	}
	return nil
}

// setStreamScheduler picks the stream scheduler of the socket's future
// associations; sctp.Scheduler's values are Linux's SCTP_SS_* numbers.
func setStreamScheduler(fd int, k sctp.Scheduler) error {
	if err := setAssocValue(fd, sctpStreamScheduler, uint32(k)); err != nil {
		return fmt.Errorf("kernel: setsockopt(SCTP_STREAM_SCHEDULER, %v): %w", k, err)
	}
	return nil
}

// setStreamValue sets the scheduler's value (priority or weight) of one of the
// association's outbound streams; on a one-to-one socket the association id is
// ignored.
func setStreamValue(fd int, sid, v uint16) error {
	var b [sizeofStreamValue]byte
	binary.NativeEndian.PutUint16(b[4:], sid)
	binary.NativeEndian.PutUint16(b[6:], v)
	return setsockoptSCTP(fd, sctpStreamSchedulerValue, b[:])
}
