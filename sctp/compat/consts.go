package sctp

// The constants of github.com/ishidawataru/sctp, with the values of the
// Linux kernel's <linux/sctp.h> that it passes to the kernel.

// Socket level and flags.
const (
	SOL_SCTP = 132

	SCTP_BINDX_ADD_ADDR = 0x01
	SCTP_BINDX_REM_ADDR = 0x02

	// MSG_NOTIFICATION is the recvmsg flag of a notification.
	MSG_NOTIFICATION = 0x8000
)

// Socket option names (level SOL_SCTP). Getsockopt and Setsockopt do not
// take them here (see the package documentation); they are kept for
// programs that name them.
const (
	SCTP_RTOINFO = iota
	SCTP_ASSOCINFO
	SCTP_INITMSG
	SCTP_NODELAY
	SCTP_AUTOCLOSE
	SCTP_SET_PEER_PRIMARY_ADDR
	SCTP_PRIMARY_ADDR
	SCTP_ADAPTATION_LAYER
	SCTP_DISABLE_FRAGMENTS
	SCTP_PEER_ADDR_PARAMS
	SCTP_DEFAULT_SENT_PARAM
	SCTP_EVENTS
	SCTP_I_WANT_MAPPED_V4_ADDR
	SCTP_MAXSEG
	SCTP_STATUS
	SCTP_GET_PEER_ADDR_INFO
	SCTP_DELAYED_ACK_TIME
	SCTP_DELAYED_ACK  = SCTP_DELAYED_ACK_TIME
	SCTP_DELAYED_SACK = SCTP_DELAYED_ACK_TIME

	SCTP_SOCKOPT_BINDX_ADD = 100
	SCTP_SOCKOPT_BINDX_REM = 101
	SCTP_SOCKOPT_PEELOFF   = 102
	SCTP_GET_PEER_ADDRS    = 108
	SCTP_GET_LOCAL_ADDRS   = 109
	SCTP_SOCKOPT_CONNECTX  = 110
	SCTP_SOCKOPT_CONNECTX3 = 111
)

// Event subscription flags of SCTPConn.SubscribeEvents.
const (
	SCTP_EVENT_DATA_IO = 1 << iota
	SCTP_EVENT_ASSOCIATION
	SCTP_EVENT_ADDRESS
	SCTP_EVENT_SEND_FAILURE
	SCTP_EVENT_PEER_ERROR
	SCTP_EVENT_SHUTDOWN
	SCTP_EVENT_PARTIAL_DELIVERY
	SCTP_EVENT_ADAPTATION_LAYER
	SCTP_EVENT_AUTHENTICATION
	SCTP_EVENT_SENDER_DRY

	SCTP_EVENT_ALL = SCTP_EVENT_DATA_IO | SCTP_EVENT_ASSOCIATION | SCTP_EVENT_ADDRESS | SCTP_EVENT_SEND_FAILURE | SCTP_EVENT_PEER_ERROR | SCTP_EVENT_SHUTDOWN | SCTP_EVENT_PARTIAL_DELIVERY | SCTP_EVENT_ADAPTATION_LAYER | SCTP_EVENT_AUTHENTICATION | SCTP_EVENT_SENDER_DRY
)

// SCTPNotificationType is the type of a notification (its first field,
// sn_type).
type SCTPNotificationType int

// Notification types.
const (
	SCTP_SN_TYPE_BASE = SCTPNotificationType(iota + (1 << 15))
	SCTP_ASSOC_CHANGE
	SCTP_PEER_ADDR_CHANGE
	SCTP_SEND_FAILED
	SCTP_REMOTE_ERROR
	SCTP_SHUTDOWN_EVENT
	SCTP_PARTIAL_DELIVERY_EVENT
	SCTP_ADAPTATION_INDICATION
	SCTP_AUTHENTICATION_INDICATION
	SCTP_SENDER_DRY_EVENT
)

// Control message types.
const (
	SCTP_CMSG_INIT = iota
	SCTP_CMSG_SNDRCV
	SCTP_CMSG_SNDINFO
	SCTP_CMSG_RCVINFO
	SCTP_CMSG_NXTINFO
)

// SndRcvInfo.Flags.
const (
	SCTP_UNORDERED = 1 << iota
	SCTP_ADDR_OVER
	SCTP_ABORT
	SCTP_SACK_IMMEDIATELY
	SCTP_EOF
)

// SCTPState is the state of an SCTP_ASSOC_CHANGE notification
// (sac_state).
type SCTPState uint16

// Association change states.
const (
	SCTP_COMM_UP = SCTPState(iota)
	SCTP_COMM_LOST
	SCTP_RESTART
	SCTP_SHUTDOWN_COMP
	SCTP_CANT_STR_ASSOC
)

// SCTP_MAX_STREAM is the largest stream count.
const (
	SCTP_MAX_STREAM = 0xffff
)

// StatusState is the association state of Status.
type StatusState int32

// Association states (sstat_state).
const (
	SCTP_CLOSED StatusState = iota
	SCTP_BOUND
	SCTP_LISTEN
	SCTP_COOKIE_WAIT
	SCTP_COOKIE_ECHOED
	SCTP_ESTABLISHED
	SCTP_SHUTDOWN_PENDING
	SCTP_SHUTDOWN_SENT
	SCTP_SHUTDOWN_RECEIVED
	SCTP_SHUTDOWN_ACK_SENT
)

// PeerState is the state of a peer address (spinfo_state).
type PeerState int32

// Peer address states.
const (
	SCTP_UNCONFIRMED PeerState = iota
	SCTP_ACTIVE
	SCTP_INACTIVE
)

// The peer address change states (spc_state of SCTP_PEER_ADDR_CHANGE),
// and the send failure flags (ssf_flags), of <linux/sctp.h>.
const (
	sctpAddrAvailable          = 0
	sctpAddrUnreachable        = 1
	sctpAddrPotentiallyFailed  = 6
	sctpDataUnsent             = 0
	sctpDataSent               = 1
	sctpPartialDeliveryAborted = 0
)

// InitMsg is SCTP_INITMSG: the streams asked for and the INIT's
// retransmissions.
type InitMsg struct {
	NumOstreams    uint16
	MaxInstreams   uint16
	MaxAttempts    uint16
	MaxInitTimeout uint16 // milliseconds
}

// SndRcvInfo is struct sctp_sndrcvinfo: how a message is sent, or how it
// was received. PPID is in host byte order, as the user reads it.
type SndRcvInfo struct {
	Stream uint16
	SSN    uint16
	Flags  uint16
	_      uint16
	// PPID is the payload protocol identifier, as a number (it goes on
	// the wire in network byte order).
	PPID    uint32
	Context uint32
	TTL     uint32 // milliseconds; 0: reliable
	TSN     uint32
	CumTSN  uint32
	AssocID int32
}

// SndInfo is struct sctp_sndinfo.
type SndInfo struct {
	SID     uint16
	Flags   uint16
	PPID    uint32
	Context uint32
	AssocID int32
}

// GetAddrsOld is struct sctp_getaddrs_old.
type GetAddrsOld struct {
	AssocID int32
	AddrNum int32
	Addrs   uintptr
}

// NotificationHeader is the header every notification starts with
// (struct sctp_tlv), in host byte order.
type NotificationHeader struct {
	Type   uint16
	Flags  uint16
	Length uint32
}

// NotificationHandler is called by SCTPRead with each notification, when
// one is set (SocketConfig.NotificationHandler): the bytes are the
// notification in the layout of <linux/sctp.h>. An error it returns is
// SCTPRead's.
type NotificationHandler func([]byte) error

// EventSubscribe is struct sctp_event_subscribe.
type EventSubscribe struct {
	DataIO          uint8
	Association     uint8
	Address         uint8
	SendFailure     uint8
	PeerError       uint8
	Shutdown        uint8
	PartialDelivery uint8
	AdaptationLayer uint8
	Authentication  uint8
	SenderDry       uint8
}

// SCTPAssocID is an association identifier.
type SCTPAssocID int32

// SackTimer is struct sctp_sack_info (RFC 6458 section 8.1.19): the
// delayed SACK timer in milliseconds and the packet count.
type SackTimer struct {
	AssocID       SCTPAssocID
	SackDelay     uint32
	SackFrequency uint32
}

// PeerAddrinfo is struct sctp_paddrinfo (RFC 6458 section 8.2.2).
// Address holds the peer address as a struct sockaddr_storage of Linux;
// SCTPGetPrimaryPeerAddr returns it parsed.
type PeerAddrinfo struct {
	AssocID SCTPAssocID
	Address [128]byte
	State   PeerState
	CWND    uint32
	SRTT    uint32 // milliseconds
	RTO     uint32 // milliseconds
	MTU     uint32
}

// Status is struct sctp_status (RFC 6458 section 8.2.1).
type Status struct {
	AssocID            SCTPAssocID
	State              StatusState
	RWND               uint32
	Unackdata          uint16
	Penddata           uint16
	Instreams          uint16
	Ostreams           uint16
	FragmentationPoint uint32
	PrimaryPeerAddr    PeerAddrinfo
}
