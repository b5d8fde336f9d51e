package assoc

import (
	"crypto/rand"
	"io"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Config holds the protocol parameters of RFC 9260 section 16 and this
// stack's limits. The public API fills it from its options; the zero value
// of every field means the RFC default.
type Config struct {
	RTOInitial                time.Duration            // RTO.Initial, 1 s
	RTOMin                    time.Duration            // RTO.Min, 1 s
	RTOMax                    time.Duration            // RTO.Max, 60 s
	CookieLife                time.Duration            // Valid.Cookie.Life, 60 s
	CookiePreserveMax         time.Duration            // cap on a peer's Cookie Preservative increment, 10 s
	SecretRotation            time.Duration            // how often the cookie secret changes, 1 h
	MaxRetransmits            int                      // Association.Max.Retrans, 10
	PathMaxRetrans            int                      // Path.Max.Retrans, 5
	MaxInitRetransmits        int                      // Max.Init.Retransmits, 8
	InitRTOMax                time.Duration            // bound of the backed-off T1-init and T1-cookie timeouts, RTO.Max
	HeartbeatInterval         time.Duration            // HB.interval, 30 s; negative disables heartbeats
	MaxAssociations           int                      // associations an endpoint holds at most; 0: no limit
	Backlog                   int                      // associations from COOKIE ECHO not yet accepted (Assoc.Accept) at most; 0: no accepting
	MemoryBudget              int                      // bytes the received data of all associations may cost together; 0: transfer.DefaultBudget; negative: none
	SendBudget                int                      // bytes the send buffers of all associations may hold together (transfer.SendBudget); 0 or negative: none
	RecvBudget                int                      // bytes the receive windows of the associations receiving at once advertise together (transfer.RecvBudget); 0 or negative: none
	InitRate                  int                      // out-of-the-blue answers (INIT ACK, ABORT, SHUTDOWN COMPLETE) per second per source /32 or /64, burst twice that; 0: ratelimit.DefaultRate; negative: no limit
	OutStreams                uint16                   // OS we ask for, 10
	InStreams                 uint16                   // MIS we accept, 65535
	RecvBuffer                int                      // receive buffer per association, advertised as a_rwnd; 1 MiB
	MTU                       int                      // largest SCTP packet: the path MTU less the IP and UDP headers; DefaultMTU less maxOverhead
	Interleaving              bool                     // offer I-DATA and I-FORWARD-TSN (RFC 8260); used when the peer lists I-DATA too
	InterleaveFSN             interleave.FSNConvention // FSN of a message's second I-DATA fragment: detected (default), RFC 8260's 1 or Linux's 0
	DisableStreamReconfig     bool                     // do not offer RE-CONFIG (RFC 6525 stream reconfiguration); offered by default
	DenyAssocReset            bool                     // answer the peer's SSN/TSN Reset Requests "Denied"
	DisablePartialReliability bool                     // do not offer PR-SCTP (RFC 3758 Forward-TSN-Supported); offered by default
	DisableECN                bool                     // do not offer ECN (RFC 9260 appendix A ECN Capable parameter); offered by default
	RecvBufferMax             int                      // receive buffer autotuning bound (transfer.Config.RecvBufferMax); 0: fixed RecvBuffer
	SendBufferMax             int                      // send buffer autotuning bound (transfer.Config.SendBufferMax); 0: fixed SendBuffer
	Rand                      io.Reader                // source of tags, nonces and secrets; crypto/rand
	SendBuffer                int                      // send buffer bytes per association (transfer default, 1 MiB)
	UnsentLimit               int                      // bytes of it waiting to be sent at most; 0: no bound but SendBuffer
	StreamUnsentLimit         int                      // bytes of one stream waiting to be sent at most; 0: an even share (transfer.Config.StreamUnsent)
	Scheduler                 sched.Kind               // stream scheduler of new associations, FCFS
	// AUTH (RFC 4895): offered when AuthKeys or AuthChunks is set.
	// AuthKeys are the endpoint-pair shared keys, the first one active
	// (none: the empty key with id 0); AuthChunks the chunk types the
	// peer must authenticate; AuthHMAC the HMAC identifiers offered in
	// order of preference (default HMAC-SHA-256, HMAC-SHA-1; SHA-1 is
	// always listed).
	AuthKeys   []AuthKey
	AuthChunks []chunk.Type
	AuthHMAC   []uint16
	// DynamicAddrs accepts the peer's address changes (RFC 5061 ASCONF:
	// Add IP Address, Delete IP Address, Set Primary Address). It needs
	// AUTH: ASCONF and ASCONF-ACK are added to AuthChunks (so AUTH is
	// offered), and Multihoming is turned on.
	DynamicAddrs bool
	// LocalAddrs are the endpoint's addresses, listed in INIT and INIT
	// ACK when there are two or more (RFC 9260 section 5.1.2); with one
	// or none the source address of the packets stands for the endpoint.
	LocalAddrs []netip.Addr
	// HostAddrs, when not nil and LocalAddrs is empty, makes a wildcard
	// endpoint list the host's addresses in its INIT and INIT ACK, those
	// that suit the peer (hostaddrs.go). It is called when one is built,
	// with the peer address it goes to, and returns the host's addresses
	// and the one the packet will leave from (not listed: the peer
	// records the source anyway).
	HostAddrs func(peer netip.Addr) (host []netip.Addr, src netip.Addr)
	// Families are the address families the endpoint's socket can send
	// and receive (0: both). With HostAddrs, only those are listed, and
	// an endpoint of one family says so in its INIT (Supported Address
	// Types), so that the peer lists only addresses of that family.
	Families AddrFamilies
	// Multihoming uses the peer's other addresses as alternate paths
	// (paths.go): verified with HEARTBEATs, taken by the data when the
	// path in use is potentially failed. Off, the association uses the
	// address of its handshake only, as before.
	Multihoming bool
	// PFThreshold is RFC 7829's PFMR: a path whose error count exceeds it
	// is potentially failed and the data moves to another path; 0, the
	// default, moves at the first T3-rtx expiry or unanswered HEARTBEAT.
	PFThreshold int
	// NoPrimaryReturn keeps the data on the path it moved to when the
	// primary answers again (by default the primary takes it back).
	NoPrimaryReturn bool

	// PMTUDiscovery runs Packetization Layer Path MTU Discovery (RFC
	// 8899, pmtu.go) on every path: packets start at PMTUBase and grow
	// up to MTU as probes confirm the path carries them. Off, every
	// packet is sized for MTU.
	PMTUDiscovery bool
	// PMTUBase is BASE_PLPMTU as an SCTP packet size: RFC 8899's 1200
	// bytes less PMTUOverhead by default.
	PMTUBase int
	// PMTUOverhead is the IP (and UDP) header bytes of a packet, to turn
	// the IP MTU of an ICMP Packet Too Big into a packet size; maxOverhead
	// by default.
	PMTUOverhead int
	// PMTURaise is PMTU_RAISE_TIMER: how long a search that ended below
	// MTU waits before probing for more (RFC 8899 section 5.1.1); 600 s.
	PMTURaise time.Duration

	// Loss recovery and congestion control; zero values take the
	// transfer engine's defaults.
	MaxBurst      int               // Max.Burst, 4
	Recovery      Recovery          // loss recovery, RACK-style
	Congestion    CongestionControl // congestion controller, RFC 9260's
	InitialWindow int               // initial cwnd in packets; 0: RFC 9260's
}

// Recovery and CongestionControl are the transfer engine's choices of loss
// recovery and of congestion controller, named here so that the shell
// configures them through the core.
type (
	Recovery          = transfer.Recovery
	CongestionControl = transfer.CongestionControl
)

func (c *Config) setDefaults() {
	c.LocalAddrs = sanitizeLocalAddrs(c.LocalAddrs)
	if c.DynamicAddrs {
		c.Multihoming = true
		c.AuthChunks = append(c.AuthChunks[:len(c.AuthChunks):len(c.AuthChunks)], chunk.TypeASCONF, chunk.TypeASCONFAck)
	}
	c.sanitizeAuth()
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.RTOInitial, time.Second)
	def(&c.RTOMin, time.Second)
	def(&c.RTOMax, 60*time.Second)
	def(&c.InitRTOMax, c.RTOMax)
	def(&c.CookieLife, 60*time.Second)
	def(&c.CookiePreserveMax, 10*time.Second)
	def(&c.SecretRotation, time.Hour)
	def(&c.HeartbeatInterval, 30*time.Second)
	if c.MaxRetransmits == 0 {
		c.MaxRetransmits = 10
	}
	if c.PathMaxRetrans == 0 {
		c.PathMaxRetrans = 5
	}
	if c.MaxInitRetransmits == 0 {
		c.MaxInitRetransmits = 8
	}
	if c.OutStreams == 0 {
		c.OutStreams = 10
	}
	if c.InStreams == 0 {
		c.InStreams = 65535
	}
	if c.RecvBuffer == 0 {
		c.RecvBuffer = 1 << 20
	}
	if c.MTU == 0 {
		c.MTU = DefaultMTU - maxOverhead
	}
	if c.PMTUOverhead == 0 {
		c.PMTUOverhead = maxOverhead
	}
	if c.PMTUBase == 0 {
		c.PMTUBase = BasePLPMTU - c.PMTUOverhead
	}
	c.PMTUBase = min(max(c.PMTUBase, 256), c.MTU) &^ 3
	if !c.Scheduler.Valid() {
		c.Scheduler = sched.FCFS
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
}

// DefaultMTU is the stack's one default path MTU, IP header included (the
// default of sctp.Config.MTU). The core's Config.MTU is the SCTP packet:
// the shell subtracts the headers of the transport in use; without it the
// core assumes the largest, an IPv6 and a UDP header (1452 bytes, the
// transfer engine's default too).
const DefaultMTU = 1500

// BasePLPMTU is RFC 8899's BASE_PLPMTU for SCTP, IP header included:
// "a default BASE_PLPMTU of 1200 bytes" (section 5.1.2).
const BasePLPMTU = 1200

// maxOverhead is an IPv6 and a UDP header.
const maxOverhead = 40 + 8

// rwnd returns the receive window to advertise in INIT and INIT ACK: the
// receive buffer, capped to the field's 32 bits.
func (c *Config) rwnd() uint32 { return uint32(min(c.RecvBuffer, math.MaxUint32)) }

// sanitizeLocalAddrs returns the usable addresses of local, unmapped and
// without duplicates, at most maxPeerAddrs of them (a copy: the caller's
// slice is not changed).
func sanitizeLocalAddrs(local []netip.Addr) []netip.Addr {
	var out []netip.Addr
	for _, ip := range local {
		ip = ip.Unmap()
		if !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast() || slices.Contains(out, ip) || len(out) == maxPeerAddrs {
			continue
		}
		out = append(out, ip)
	}
	return out
}
