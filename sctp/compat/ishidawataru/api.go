package sctp

import (
	"os"

	compat "github.com/usctp/usctp/sctp/compat"
)

// The types of the original, each the one of package compat of the same
// name: a value of one is a value of the other.
type (
	// SCTPAddr is an SCTP endpoint address: several IP addresses and one
	// port (compat.SCTPAddr).
	SCTPAddr = compat.SCTPAddr
	// SCTPConn is one SCTP association (compat.SCTPConn).
	SCTPConn = compat.SCTPConn
	// SCTPListener accepts associations (compat.SCTPListener).
	SCTPListener = compat.SCTPListener
	// SocketConfig holds the options of a listen or dial
	// (compat.SocketConfig).
	SocketConfig = compat.SocketConfig
	// SCTPSndRcvInfoWrappedConn carries a SndRcvInfo at the head of every
	// Read and Write (compat.SCTPSndRcvInfoWrappedConn).
	SCTPSndRcvInfoWrappedConn = compat.SCTPSndRcvInfoWrappedConn
	// NotificationHandler receives notifications in the kernel's layout
	// (compat.NotificationHandler).
	NotificationHandler = compat.NotificationHandler

	// SCTPNotificationType is the type of a notification
	// (compat.SCTPNotificationType).
	SCTPNotificationType = compat.SCTPNotificationType
	// SCTPAssocID is an association id (compat.SCTPAssocID).
	SCTPAssocID = compat.SCTPAssocID
	// SCTPState is the state of an SCTP_ASSOC_CHANGE notification
	// (compat.SCTPState).
	SCTPState = compat.SCTPState
	// StatusState is the association state of Status (compat.StatusState).
	StatusState = compat.StatusState
	// PeerState is the state of a peer address (compat.PeerState).
	PeerState = compat.PeerState

	// InitMsg is SCTP_INITMSG (compat.InitMsg).
	InitMsg = compat.InitMsg
	// SndRcvInfo is struct sctp_sndrcvinfo (compat.SndRcvInfo).
	SndRcvInfo = compat.SndRcvInfo
	// SndInfo is struct sctp_sndinfo (compat.SndInfo).
	SndInfo = compat.SndInfo
	// GetAddrsOld is struct sctp_getaddrs_old (compat.GetAddrsOld).
	GetAddrsOld = compat.GetAddrsOld
	// NotificationHeader is the head of every notification
	// (compat.NotificationHeader).
	NotificationHeader = compat.NotificationHeader
	// EventSubscribe is struct sctp_event_subscribe
	// (compat.EventSubscribe).
	EventSubscribe = compat.EventSubscribe
	// SackTimer is struct sctp_sack_info (compat.SackTimer).
	SackTimer = compat.SackTimer
	// PeerAddrinfo is struct sctp_paddrinfo (compat.PeerAddrinfo).
	PeerAddrinfo = compat.PeerAddrinfo
	// Status is struct sctp_status (compat.Status).
	Status = compat.Status
)

// ResolveSCTPAddr parses addrs ("10.0.0.1/10.0.0.2:38412", host names
// resolved) for network "sctp", "sctp4" or "sctp6" (compat.ResolveSCTPAddr).
func ResolveSCTPAddr(network, addrs string) (*SCTPAddr, error) {
	return compat.ResolveSCTPAddr(network, addrs)
}

// ListenSCTP listens for associations on laddr (compat.ListenSCTP).
func ListenSCTP(net string, laddr *SCTPAddr) (*SCTPListener, error) {
	return compat.ListenSCTP(net, laddr)
}

// ListenSCTPExt is ListenSCTP with the streams and INIT retransmissions of
// options (compat.ListenSCTPExt).
func ListenSCTPExt(network string, laddr *SCTPAddr, options InitMsg) (*SCTPListener, error) {
	return compat.ListenSCTPExt(network, laddr, options)
}

// DialSCTP sets up an association with raddr, from laddr when it is not
// nil (compat.DialSCTP).
func DialSCTP(net string, laddr, raddr *SCTPAddr) (*SCTPConn, error) {
	return compat.DialSCTP(net, laddr, raddr)
}

// DialSCTPExt is DialSCTP with the streams and INIT retransmissions of
// options (compat.DialSCTPExt).
func DialSCTPExt(network string, laddr, raddr *SCTPAddr, options InitMsg) (*SCTPConn, error) {
	return compat.DialSCTPExt(network, laddr, raddr, options)
}

// NewSCTPConn returns a conn over a kernel socket descriptor, which usctp
// has none of: every call on it fails with compat.ErrUnsupported
// (compat.NewSCTPConn).
func NewSCTPConn(fd int, handler NotificationHandler) *SCTPConn {
	return compat.NewSCTPConn(fd, handler)
}

// NewSCTPSndRcvInfoWrappedConn wraps conn so that every Read and Write
// carries a SndRcvInfo at its head (compat.NewSCTPSndRcvInfoWrappedConn).
func NewSCTPSndRcvInfoWrappedConn(conn *SCTPConn) *SCTPSndRcvInfoWrappedConn {
	return compat.NewSCTPSndRcvInfoWrappedConn(conn)
}

// SCTPBind is sctp_bindx on a kernel socket descriptor: it fails with
// compat.ErrUnsupported (EINVAL for flags other than
// SCTP_BINDX_ADD_ADDR and SCTP_BINDX_REM_ADDR) (compat.SCTPBind).
func SCTPBind(fd int, addr *SCTPAddr, flags int) error {
	return compat.SCTPBind(fd, addr, flags)
}

// SCTPConnect is sctp_connectx on a kernel socket descriptor: it fails with
// compat.ErrUnsupported (compat.SCTPConnect).
func SCTPConnect(fd int, addr *SCTPAddr) (int, error) {
	return compat.SCTPConnect(fd, addr)
}

// FileListener makes a listener of a kernel socket's file: it fails with
// compat.ErrUnsupported (compat.FileListener).
func FileListener(file *os.File) (*SCTPListener, error) {
	return compat.FileListener(file)
}
