package netio

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"time"

	"github.com/usctp/usctp/interleave"
)

// Packet is one SCTP packet on its way in or out of a Conn. Buf is storage
// the caller owns: ReadBatch fills Buf[:N] with the whole SCTP packet and
// sets Addr to the sender; WriteBatch sends Buf[:N] to Addr. The transport
// never keeps Buf after the call returns.
type Packet struct {
	// Buf is the packet storage: its length is the capacity for reads.
	Buf []byte
	// N is the number of valid bytes in Buf.
	N int
	// Addr is the remote end: IP address and, for UDP encapsulation, the
	// peer's UDP port. Raw IP conns use port 0. IPv4 addresses are always
	// in their 4-byte form (never IPv4-mapped IPv6).
	Addr netip.AddrPort
	// Notice is NoticeNone for a received packet. Otherwise the entry is
	// what the network said about a packet this end sent to Addr (only
	// from a conn opened with Notices): Buf[:N] then holds as much of
	// that packet as the error quoted, from its SCTP common header on,
	// at most maxNoticeQuote bytes and possibly none.
	Notice NoticeKind
	// ECN is the IP header's ECN field (RFC 3168). On read, what arrived,
	// from conns that report it (see EnableECN), else 0. On write, what to
	// send, for conns that set it per packet (the simulated network); the
	// UDP and raw IP conns set ECT(0) for the whole socket instead.
	ECN uint8
	// MTU is the MTU reported with NoticeTooBig or NoticeLocalTooBig, 0
	// if none was.
	MTU int
	// Local is, on ReadBatch, the local IP address a received packet was
	// sent to, for a UDP or raw IP conn bound to the wildcard address
	// (the zero Addr otherwise). On WriteBatch it is the source address
	// to send from, so a multi-homed endpoint sends each path's packets
	// from that path's address (Linux, batched engine, wildcard-bound
	// conns; ignored elsewhere). The zero Addr lets the kernel choose.
	Local netip.Addr
	// Errno is, with a notice, the error the kernel reported with it (the
	// errno of an ICMP error as the kernel maps it: ENETUNREACH for a
	// network unreachable, EHOSTUNREACH for a host unreachable, EACCES for
	// an administrative prohibition, ...), 0 when it gave none.
	Errno syscall.Errno
	// Holes, on WriteBatch to a conn whose Gathers reports true, lists
	// ranges of Buf[:N] whose bytes are not in Buf: the packet to send is
	// Buf[:N] with each hole's Data in its place, and the conn sends it
	// from there by gather I/O, without copying. Ascending, not
	// overlapping. Nil otherwise; ReadBatch never sets it.
	Holes []Hole
	// Lend is, on ReadBatchView, the receive buffer a received packet's
	// Buf lies in when its bytes may outlive the next read and the
	// datagram read into it fills enough of it that referencing it costs
	// memory in proportion (see lendMinRead): the reader passes it on
	// (assoc.Endpoint.ReceiveBuf) so that fragments reference it instead
	// of copying. Nil otherwise.
	Lend *interleave.RecvBuf
}

// Hole is a range of a Packet's Buf whose bytes are elsewhere: the
// packet's len(Data) bytes from offset At are Data's.
type Hole struct {
	At   int
	Data []byte
}

// Data returns the valid bytes of p, Buf[:N].
func (p *Packet) Data() []byte { return p.Buf[:p.N] }

// CopyData copies the first bytes of the packet, its holes filled, to
// dst and returns how many: min(len(dst), N).
func (p *Packet) CopyData(dst []byte) int {
	n := copy(dst, p.Buf[:p.N])
	for _, h := range p.Holes {
		if h.At >= n {
			break
		}
		copy(dst[h.At:n], h.Data)
	}
	return n
}

// Gatherer is implemented by conns that may take packets with Holes.
type Gatherer interface {
	// Gathers reports whether WriteBatch and WriteFragmentable send the
	// Holes of their packets; false means they must be filled first.
	Gathers() bool
}

// Conn is a packet connection carrying whole SCTP packets, the lower
// boundary of the association shell.
//
// ReadBatch and WriteBatch may be called concurrently with each other and
// with Close and SetReadDeadline; two concurrent ReadBatch calls (or two
// WriteBatch calls) are serialized.
type Conn interface {
	// ReadBatch blocks until at least one packet has arrived, then fills
	// pkts[:n] and returns n. It returns an error wrapping
	// os.ErrDeadlineExceeded after the read deadline and net.ErrClosed
	// after Close. Packets too large for their Buf are dropped, never
	// truncated; to do that ReadBatch may swap the Buf fields among pkts.
	ReadBatch(pkts []Packet) (int, error)
	// WriteBatch sends pkts in order and returns how many were sent; it
	// returns an error only with n < len(pkts). An error wrapping
	// ErrPacketTooBig concerns pkts[n] alone.
	WriteBatch(pkts []Packet) (int, error)
	// SetReadDeadline sets the deadline for ReadBatch; the zero time
	// means none. A deadline in the past unblocks a pending ReadBatch.
	SetReadDeadline(t time.Time) error
	// LocalAddr returns the local address: for UDP encapsulation, the
	// local UDP port; for raw IP, port 0.
	LocalAddr() netip.AddrPort
	// Overhead returns the bytes the transport adds below the SCTP
	// common header for a packet to remote: the IP header, plus the UDP
	// header for encapsulation (RFC 6951 section 5.6: the path MTU of an
	// encapsulated path is decreased by the size of the UDP header). The
	// largest SCTP packet for a path of MTU m is m - Overhead(remote).
	Overhead(remote netip.Addr) int
	// Close closes the connection and unblocks ReadBatch and WriteBatch.
	Close() error
}

// Header sizes used by Overhead.
const (
	IPv4HeaderLen = 20 // IPv4 header without options
	IPv6HeaderLen = 40 // IPv6 fixed header without extension headers
	UDPHeaderLen  = 8  // UDP header
)

// DefaultUDPPort is the IANA-registered port for SCTP over UDP,
// sctp-tunneling (RFC 6951 section 5.1).
const DefaultUDPPort = 9899

// ipHeaderLen returns the IP header length for packets to a.
func ipHeaderLen(a netip.Addr) int {
	if a.Unmap().Is4() {
		return IPv4HeaderLen
	}
	return IPv6HeaderLen
}

// ErrNeedRaw is wrapped, together with os.ErrPermission, by the error of
// ListenIP when the process lacks CAP_NET_RAW.
var ErrNeedRaw = errors.New("raw IP sockets for SCTP need CAP_NET_RAW (run as root, or grant it with setcap cap_net_raw+ep)")

// ErrPacketTooBig is wrapped by the error of WriteBatch when pkts[n] is
// larger than the local link allows and the socket may not fragment it
// (DontFragment). The packet is not sent; the caller may drop it, lower
// its path MTU estimate, and go on with pkts[n+1:].
var ErrPacketTooBig = errors.New("sctp: packet exceeds the local MTU and may not be fragmented")

// TooBigError is the error of WriteBatch for a packet larger than the
// local MTU (it wraps ErrPacketTooBig and the system call's error). MTU
// is the route's MTU the kernel reported with its refusal (a conn opened
// with Notices reads it from the local report on the socket's error
// queue), 0 when unknown.
type TooBigError struct {
	Size int // the packet's size
	MTU  int
	Err  error
}

// Error describes the refusal.
func (e *TooBigError) Error() string {
	return fmt.Sprintf("%v (%d bytes, MTU %d): %v", ErrPacketTooBig, e.Size, e.MTU, e.Err)
}

// Unwrap returns ErrPacketTooBig and the system call's error.
func (e *TooBigError) Unwrap() []error { return []error{ErrPacketTooBig, e.Err} }

// FragmentWriter is implemented by conns that send with the Don't
// Fragment bit (DontFragment) and can send some packets without it.
type FragmentWriter interface {
	// WriteFragmentable is WriteBatch for packets the IP layer may
	// fragment: larger than the path MTU the sender discovered, yet
	// unable to be cut smaller (SCTP chunks cut before the path MTU
	// shrank).
	WriteFragmentable(pkts []Packet) (int, error)
}

// errBadLength is returned by WriteBatch for a Packet whose N is
// negative or larger than its Buf.
var errBadLength = errors.New("netio: packet length N outside its Buf")

// validLength reports whether p.N fits p.Buf and p's holes fit p.N.
func validLength(p *Packet) bool {
	if p.N < 0 || p.N > len(p.Buf) {
		return false
	}
	at := 0
	for _, h := range p.Holes {
		if h.At < at || h.At+len(h.Data) > p.N {
			return false
		}
		at = h.At + len(h.Data)
	}
	return true
}

// errEmptyBatch is returned by ReadBatch for an empty pkts slice.
var errEmptyBatch = errors.New("netio: ReadBatch with no packets")

// RawSendBytes bounds, on Linux, the sendmmsg calls made without telling
// the Go scheduler (RawSyscall6). recvmmsg with MSG_DONTWAIT never blocks,
// and neither does sendmmsg on the non-blocking socket. Entering the
// scheduler's syscall state costs more than it gives for any send of one
// write area (the sctp package's WriteBatch, up to three GSO sends of 44
// packets or three 64 KiB packets; its tests hold it to this bound): a
// short send wakes the sysmon thread when the process was idle, once per
// request/response transaction, and a long one outlasts sysmon's first
// tick, so sysmon takes the P away and the sender pays for the hand-off
// and for the threads it wakes, send after send, where the P had nothing
// else to run. Larger sends, which only other callers make, keep Syscall6
// so that their P can be handed off.
const RawSendBytes = 256 << 10
