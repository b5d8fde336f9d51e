package sctp

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/ratelimit"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Transport selects how SCTP packets reach the network.
type Transport uint8

const (
	// UDP is UDP encapsulation (RFC 6951), the default: unprivileged,
	// local port Config.UDPPort (9899 for Listen, ephemeral for Dial) and
	// peer port Config.RemoteUDPPort (9899).
	UDP Transport = iota
	// IP is plain SCTP in IP protocol 132 over a raw socket; it needs
	// CAP_NET_RAW.
	IP
)

// String returns "udp" or "ip".
func (t Transport) String() string {
	if t == IP {
		return "ip"
	}
	return "udp"
}

// Config configures an Endpoint and its associations. The zero value, or
// a nil *Config, gives the defaults named on each field.
type Config struct {
	// OutStreams is the number of outbound streams requested (default
	// 10); InStreams the most inbound streams accepted (default 65535).
	// The association uses the minimum of each side's offer.
	OutStreams, InStreams uint16

	// RTOInitial, RTOMin and RTOMax bound the retransmission timeout
	// (RFC 9260 section 16: 1 s, 1 s, 60 s).
	RTOInitial, RTOMin, RTOMax time.Duration
	// HeartbeatInterval is HB.interval (30 s); negative disables heartbeats.
	HeartbeatInterval time.Duration
	// MaxRetransmits is Association.Max.Retrans (10).
	MaxRetransmits int
	// PathMaxRetransmits is Path.Max.Retrans (5).
	PathMaxRetransmits int
	// Multihoming uses the peer's other addresses (those of its INIT or
	// INIT ACK) as alternate paths: each is verified with a HEARTBEAT
	// before data goes there, and the data moves to another path when
	// the one in use is potentially failed (RFC 7829). Off by default: the
	// association uses the address of its handshake only. On an endpoint
	// bound to the wildcard address (no address given, and no LocalAddrs)
	// it also lists the host's addresses in INIT and INIT ACK, those that
	// suit each peer (none to a peer on loopback), so that the peer has a
	// path to each (README "Multi-homing").
	Multihoming bool
	// PFThreshold is RFC 7829's PFMR with Multihoming: a path whose error
	// count exceeds it is potentially failed and the data moves to another
	// active path. 0, the default, moves at the first T3-rtx expiry or
	// unanswered HEARTBEAT (failover in about one RTO).
	PFThreshold int
	// NoPrimaryReturn keeps the data on the path it moved to when the
	// primary answers again; by default the primary takes it back.
	NoPrimaryReturn bool
	// LocalAddrs are the local IP addresses of an endpoint that Dial or
	// NewEndpoint (with the zero address) creates, and of Listen with an
	// empty host: one binds the socket to it; two or more make the
	// endpoint multi-homed (multihome.go): it listens on all of them,
	// lists them in its INIT and INIT ACK, sends each packet from one of
	// them, and turns Multihoming on. ListenAddrs and an address list in
	// Listen's string override it.
	LocalAddrs []netip.Addr
	// MaxBurst is Max.Burst (4): the packets one send opportunity may add
	// to the flight (RFC 9260 section 6.1 rule D).
	MaxBurst int

	// Recovery is how lost DATA chunks are found: RecoveryRACK (default)
	// or RecoveryRFC9260.
	Recovery Recovery
	// CongestionControl is the congestion controller of each path:
	// CongestionRFC9260 (default) or CongestionCubic.
	CongestionControl CongestionControl
	// InitialWindow, when positive, is the initial congestion window in
	// full-sized packets (RFC 6928 uses 10; at most 100) instead of RFC
	// 9260's min(4 * MTU, max(2 * MTU, 4404)) bytes.
	InitialWindow int
	// MaxInitRetransmits is Max.Init.Retransmits (8): how many times an
	// INIT or COOKIE ECHO is sent again before Dial gives up.
	MaxInitRetransmits int
	// InitRTOMax bounds the INIT and COOKIE ECHO retransmission timeout,
	// which starts at RTOInitial and doubles on each retransmission
	// (default RTOMax), as Linux's SCTP_INITMSG sinit_max_init_timeo. With
	// the defaults a Dial that gets no answer fails after 1+2+4+...+32+60+60+60
	// = 243 s (see the package documentation).
	InitRTOMax time.Duration

	// SendBuffer bounds the bytes queued or unacknowledged per
	// association (default 1 MiB): WriteMsg blocks (or fails with
	// ErrWouldBlock) beyond it. A single larger message is accepted
	// when the buffer is empty.
	SendBuffer int
	// UnsentLimit bounds the part of the send buffer that waits to be
	// sent (default 256 KiB; negative: no bound but SendBuffer) while one
	// stream has data waiting; with several, each stream's own limit
	// applies instead (StreamUnsentLimit), and with 64 or more, a first
	// message on a stream with none waiting also waits while the streams
	// together hold 4 x UnsentLimit. WriteMsg
	// blocks beyond it as on a full send buffer, one message is always
	// accepted when none waits. The data a writer queues ahead of the
	// congestion window then stays small enough to be in the CPU's caches
	// when it is packed, as with Linux's TCP_NOTSENT_LOWAT.
	UnsentLimit int
	// StreamUnsentLimit bounds the bytes of one stream that wait to be
	// sent (default 0: the send buffer the flight leaves, shared among
	// the streams with data waiting or a writer waiting in proportion to
	// their WFQ weights, under Priority 8 times less per level below the
	// best, else evenly; UnsentLimit bounds it while there is one such
	// stream).
	// A write on a stream blocks (or fails with ErrWouldBlock) while the
	// stream's own waiting bytes are at the bound, one message is always
	// accepted on a stream with none waiting. Greedy writers, one per
	// stream, are then admitted at the rate the scheduler serves their
	// streams, so WFQ weights and priorities shape them; with one stream
	// the rule is the send buffer's.
	StreamUnsentLimit int
	// SendBudget bounds the bytes that the send buffers of all the
	// endpoint's associations hold together, queued or unacknowledged
	// (default the larger of DefaultSendBudget and SendBuffer; negative:
	// no bound but each association's SendBuffer), as Linux's TCP small queues bound what
	// each socket has below it: with many busy associations the data
	// written and not yet acknowledged stays about what one association
	// holds, so it is still in the CPU's caches when it is packed and the
	// peers' queues stay short. A write on an association that holds
	// bytes waits while the endpoint's total is at the bound, unless the
	// association holds less than its fair share (the bound divided among
	// the associations holding bytes); one message is always accepted on
	// an association that holds none. A lone busy association may use the
	// whole bound. A server whose associations each need a large window
	// (long fat paths) raises it to the sum of their bandwidth-delay
	// products.
	SendBudget int
	// RecvBudget, when positive, bounds the receive windows that the
	// endpoint's associations advertise together while several of them
	// receive data (default 0: no bound but each association's receive
	// buffer), the receiving counterpart of SendBudget: with many peers
	// sending at once, the data in flight to the endpoint's socket stays
	// within it, so the socket's queue does not overflow. An association
	// that received 16 KiB or more in the last 50 to 100 ms counts as
	// receiving; each of them advertises at most the bound divided among
	// them (at least 16 KiB, or an eighth of a smaller bound). A lone
	// receiving association is not bound by it. Over loopback 64 peers
	// sending to one endpoint with an 8 MB socket lost a fifth of their
	// DATA to its full socket without it and none with 6 MiB, for the
	// same throughput on a quiet host (more on a loaded one) but about a
	// fifth more CPU per byte, hence off by default; a listener's larger
	// socket buffer did better (README, Scale). A server whose peers
	// send at once over long fat paths sets it to at least the sum of
	// their bandwidth-delay products.
	RecvBudget int
	// RecvBuffer is the receive window advertised per association
	// (default 1 MiB).
	RecvBuffer int
	// RecvBufferMax and SendBufferMax bound buffer autotuning (default
	// 16 MiB each; negative: the buffers stay at RecvBuffer and
	// SendBuffer). An association's receive buffer grows from RecvBuffer
	// when the application reads more in one round trip than it did
	// before (to twice that, as Linux TCP's receive buffer autotuning
	// does), and its send buffer from SendBuffer to twice its congestion
	// window, so that a long fat path is filled without hand-set
	// buffers. The endpoint's MemoryBudget still bounds every receive
	// window.
	RecvBufferMax int
	SendBufferMax int

	// Scheduler is the outbound stream scheduler (default sched.FCFS).
	Scheduler sched.Kind
	// Interleaving offers user-message interleaving (I-DATA and
	// I-FORWARD-TSN, RFC 8260); an association uses it when the peer
	// offers it too. The stream scheduler may then switch streams after
	// every chunk, so small messages do not wait behind large ones.
	Interleaving bool
	// InterleaveFSN is how the second I-DATA fragment of a message is
	// numbered: interleave.FSNAuto (default) sends RFC 8260's numbering
	// (FSN 1) until the peer shows Linux's (FSN 0) and reads both;
	// interleave.FSNLinux fixes Linux's, which Linux (6.1 to 6.12) needs
	// to reassemble our first multi-fragment messages; interleave.FSNRFC
	// fixes RFC 8260's.
	InterleaveFSN interleave.FSNConvention
	// DisableStreamReconfig stops offering stream reconfiguration (RFC
	// 6525: resetting stream numbering and adding streams, see
	// Association.ResetStreams and AddStreams), which is offered by
	// default: WebRTC data channels close with stream resets (RFC 8831),
	// and a peer's requests only touch stream numbering and bounded
	// stream tables.
	DisableStreamReconfig bool
	// AuthKeys, AuthChunks and AuthHMAC configure authenticated chunks
	// (RFC 4895, AUTH), offered when AuthKeys or AuthChunks is set and
	// used when the peer offers it too (Linux: net.sctp.auth_enable=1).
	// AuthKeys are the endpoint-pair shared keys with their identifiers,
	// the first one active (none: the empty key with identifier 0, as
	// the RFC says); AuthChunks the chunk types the peer must
	// authenticate (INIT, INIT ACK, SHUTDOWN COMPLETE and AUTH are left
	// out); AuthHMAC the HMAC identifiers offered in order of preference,
	// AuthHMACSHA1 and AuthHMACSHA256 (default SHA-256 then SHA-1; SHA-1
	// is always listed, the RFC requires it). Keys are copied and never
	// printed. Association.AddKey, SetActiveKey and DeleteKey change an
	// association's keys.
	AuthKeys   []AuthKey
	AuthChunks []chunk.Type
	AuthHMAC   []uint16
	// DynamicAddrs accepts the peer's address changes (RFC 5061 ASCONF,
	// Linux: net.sctp.addip_enable=1): an added address is used once a
	// HEARTBEAT confirmed it, a deleted one is dropped with its data
	// moved, and the peer may choose our primary path; each shows as an
	// EventPeerAddrChange (Event.Change). ASCONF must come authenticated:
	// it turns on AUTH (ASCONF and ASCONF-ACK join AuthChunks) and
	// Multihoming. Association.AddLocalAddr, RemoveLocalAddr and
	// SetPeerPrimary send this end's changes.
	DynamicAddrs bool
	// DenyAssocReset answers a peer's SSN/TSN Reset Request (RFC 6525
	// section 5.2.4: a reset of both directions' TSNs and every stream's
	// numbering) "Denied", as Linux does unless SCTP_ENABLE_RESET_ASSOC_REQ
	// is set; by default it is performed, like the other requests. It
	// does not limit Association.ResetAssociation.
	DenyAssocReset bool
	// DisablePartialReliability stops offering partial reliability
	// (PR-SCTP, RFC 3758: the Forward-TSN-Supported parameter), which is
	// offered by default, as Linux does (net.sctp.prsctp_enable=1) and
	// WebRTC data channels need (RFC 8831). Without it on both sides,
	// SendInfo.PR policies only drop messages not yet sent.
	DisablePartialReliability bool
	// DisableECN stops offering Explicit Congestion Notification (RFC 9260
	// appendix A: the ECN Capable parameter, ECNE and CWR chunks), which
	// is offered by default, as Linux does (net.sctp.ecn_enable=1). With
	// ECN the UDP and raw IP transports send every packet with ECT(0)
	// and read the ECN field of what arrives (as Linux's SCTP socket
	// does, the field is set for the whole socket); an association whose
	// peer offered ECN too answers CE marks with ECNE and halves its
	// window, once per window of data, for the peer's ECNEs.
	DisableECN bool

	// Transport is UDP (default) or IP. Ignored when PacketConn or Conn
	// is set.
	Transport Transport
	// UDPPort is the local UDP encapsulation port. 0 means the default of
	// the endpoint's role, as with TCP: 9899 (IANA's port) for Listen, a
	// free port the system picks for Dial and NewEndpoint, so that any
	// number of dialing endpoints (and a listener on 9899) coexist in one
	// process or host; the peer answers the port an association's
	// packets come from (RFC 6951 section 5.4). Endpoint.Addr tells
	// which.
	UDPPort uint16
	// EphemeralUDPPort makes Listen bind its UDP encapsulation port to a
	// free port the system picks, as dialing endpoints do by default
	// (UDPPort must then be 0).
	EphemeralUDPPort bool
	// RemoteUDPPort is the peer's UDP encapsulation port (default 9899)
	// for Dial. An accepted association answers the port its peer sent
	// from (RFC 6951 section 5.4).
	RemoteUDPPort uint16
	// PacketConn, when set, carries SCTP packets as datagrams over the
	// user's connection (for example DTLS for WebRTC). The endpoint
	// closes it when it closes.
	PacketConn net.PacketConn
	// Conn, when set, carries SCTP packets over a connected datagram
	// connection; the endpoint then has one peer. It is closed with the
	// endpoint.
	Conn net.Conn

	// BusyPoll is how long a read of the endpoint's UDP or raw IP socket
	// that finds it empty keeps polling it before it sleeps (default
	// DefaultBusyPoll; negative: never), as Linux's SO_BUSY_POLL does in
	// the kernel: waking a sleeping reader takes tens of microseconds,
	// more than a request and its answer take over a fast network. It is
	// adaptive: a read polls only when the previous wait for data ended
	// within BusyPoll, so idle associations and sparse traffic never spin;
	// request/response traffic spends some CPU for about twice the
	// transactions per second. Linux only, and never when GOMAXPROCS is 1.
	BusyPoll time.Duration

	// MTU is the path MTU in bytes, IP header included: with path MTU
	// discovery the upper bound of every path's PLPMTU, else the size of
	// every packet. At most 65535 (loopback's 65536 is one more than an
	// IPv4 packet holds). 0 (the default) takes the MTU of the local
	// interface, capped at 65535: for Dial, of the route to the peer;
	// for an endpoint bound to addresses, the largest of their
	// interfaces'; bound to all addresses, the largest of the host's
	// interfaces that are up (usually loopback's), each path then
	// learning its own route's smaller MTU from the kernel's refusal of
	// its first larger probe; without path MTU discovery an endpoint
	// bound to all addresses takes 1500. On a PacketConn or Conn given
	// here: 1500. The memory of an endpoint does not grow with it.
	MTU int
	// DisablePMTUDiscovery turns off Packetization Layer Path MTU
	// Discovery (RFC 8899). With it on (the default) every path starts
	// at 1200-byte packets (BASE_PLPMTU) and grows to MTU as padded
	// HEARTBEAT probes confirm the path carries them, falls back when
	// full-size packets stop getting through (black holes) and uses
	// ICMP Packet Too Big reports as hints; packets go with the Don't
	// Fragment bit. Association.Paths shows each path's PLPMTU and
	// search state, EventPathMTU reports changes. Off, every packet is
	// sized for MTU and the kernel's PMTU defaults apply. Endpoints that
	// share a socket (same address and UDP port, or raw IP address) send
	// with the Don't Fragment setting of the first one.
	DisablePMTUDiscovery bool
	// LocalPort is the SCTP port Dial uses (default: random from 49152).
	LocalPort uint16
	// MaxAssociations bounds the associations of an endpoint (default
	// DefaultMaxAssociations, 4096; negative: no limit). A COOKIE ECHO
	// that would create one more is answered with an ABORT "Out of
	// Resource" (counted in Stats.AssocsRefused), and Dial fails.
	MaxAssociations int
	// Backlog bounds the associations that arrived and that Accept has
	// not returned yet (default 128). A COOKIE ECHO beyond it is dropped
	// without an answer (counted in Stats.BacklogDropped): the peer
	// retransmits it and is served once Accept made room. Until Accept
	// returns it, an association has a receive buffer of 64 KiB at most;
	// then RecvBuffer (the larger window is advertised at once).
	Backlog int
	// MemoryBudget is the memory in bytes that the received data of all
	// the endpoint's associations may cost together (default
	// DefaultMemoryBudget, 256 MiB; negative: no budget, each association
	// is bounded by its receive buffer only). As it fills, windows
	// shrink; with less than an eighth left, new associations are refused
	// with an ABORT "Out of Resource" (Stats.MemoryRefused).
	MemoryBudget int
	// InitRate bounds the packets the endpoint answers without an
	// association (INIT ACK to an INIT, ABORT to an out-of-the-blue
	// packet, SHUTDOWN COMPLETE to a SHUTDOWN ACK), against reflection:
	// answers per second per source (an IPv4 address or an IPv6 /64),
	// with bursts of twice that (default DefaultInitRate, 100; negative:
	// no limit); all sources together get at most 20,000 a second. The
	// packets it does not answer are dropped and counted
	// (Stats.RateLimited).
	InitRate int
	// Pcap, when set, is a file every packet sent and received is
	// written to (pcap, decodable by Wireshark, tshark and sctpdump).
	Pcap string
	// CloseTimeout bounds the graceful shutdown Close performs before it
	// aborts (default 5 s).
	CloseTimeout time.Duration
	// EventQueue is the capacity of each association's Events channel
	// (default DefaultEventQueue, 64). Events that find it full wait
	// behind it; none is lost by a program that keeps reading (see
	// Association.Events).
	EventQueue int
}

// Defaults of the Config fields that bound what peers may cost an
// endpoint (issue 23).
const (
	DefaultMaxAssociations = 4096
	DefaultMemoryBudget    = transfer.DefaultBudget // 256 MiB
	DefaultInitRate        = ratelimit.DefaultRate  // per source and second
)

func (c *Config) withDefaults() Config {
	var d Config
	if c != nil {
		d = *c
	}
	if d.RemoteUDPPort == 0 {
		d.RemoteUDPPort = netio.DefaultUDPPort
	}
	if d.MTU == 0 {
		d.MTU = assoc.DefaultMTU
	}
	if d.Backlog == 0 {
		d.Backlog = 128
	}
	if d.MaxAssociations == 0 {
		d.MaxAssociations = DefaultMaxAssociations
	}
	if d.CloseTimeout == 0 {
		d.CloseTimeout = 5 * time.Second
	}
	if d.UnsentLimit == 0 {
		d.UnsentLimit = defaultUnsentLimit
	}
	if d.SendBudget == 0 {
		// One association keeps the send buffer it is given.
		d.SendBudget = max(DefaultSendBudget, d.SendBuffer)
	}
	if d.RecvBufferMax == 0 {
		d.RecvBufferMax = defaultBufferMax
	}
	if d.SendBufferMax == 0 {
		d.SendBufferMax = defaultBufferMax
	}
	if d.BusyPoll == 0 {
		d.BusyPoll = DefaultBusyPoll
	}
	if d.EventQueue == 0 {
		d.EventQueue = DefaultEventQueue
	}
	return d
}

func (c *Config) validate() error {
	if c.MTU < 576 || c.MTU > maxMTU {
		return fmt.Errorf("sctp: MTU %d outside 576..%d", c.MTU, maxMTU)
	}
	if c.Recovery > RecoveryRFC9260 || c.CongestionControl > CongestionCubic {
		return fmt.Errorf("sctp: unknown Recovery %d or CongestionControl %d", c.Recovery, c.CongestionControl)
	}
	if c.InitialWindow < 0 || c.InitialWindow > 100 || c.MaxBurst < 0 || c.PathMaxRetransmits < 0 || c.PFThreshold < 0 {
		return fmt.Errorf("sctp: InitialWindow %d outside 0..100, or negative MaxBurst, PathMaxRetransmits or PFThreshold", c.InitialWindow)
	}
	if c.MaxInitRetransmits < 0 || c.InitRTOMax < 0 {
		return fmt.Errorf("sctp: negative MaxInitRetransmits or InitRTOMax")
	}
	if c.Backlog < 0 || c.SendBuffer < 0 || c.RecvBuffer < 0 || c.EventQueue < 0 {
		return fmt.Errorf("sctp: negative Backlog, EventQueue or buffer size")
	}
	if c.EphemeralUDPPort && c.UDPPort != 0 {
		return fmt.Errorf("sctp: UDPPort %d with EphemeralUDPPort", c.UDPPort)
	}
	if !c.Scheduler.Valid() {
		return fmt.Errorf("sctp: scheduler: %w", sched.ErrKind)
	}
	return nil
}

// Recovery selects how an association finds lost DATA chunks.
type Recovery uint8

const (
	// RecoveryRACK finds lost chunks by time while acknowledgements
	// arrive, in the spirit of RACK-TLP (RFC 8985) adapted to SACK chunks:
	// a lost retransmission is found and sent again without waiting for
	// the retransmission timer, a lost tail costs a probe after two round
	// trips, the timer's back-off ends as soon as new data is acknowledged,
	// and a timer expiry retransmits only what was outstanding for an RTO.
	RecoveryRACK Recovery = iota
	// RecoveryRFC9260 follows RFC 9260 sections 6.3.3 and 7.2.4 to the
	// letter: a chunk is fast-retransmitted once, after three miss
	// indications; anything else waits for T3-rtx.
	RecoveryRFC9260
)

// CongestionControl selects the congestion controller of an association's
// paths.
type CongestionControl uint8

const (
	// CongestionRFC9260 is RFC 9260 section 7.2's: slow start, one MTU
	// per round trip in congestion avoidance, halving on loss.
	CongestionRFC9260 CongestionControl = iota
	// CongestionCubic is CUBIC (RFC 9438), which fills paths with a large
	// bandwidth-delay product much sooner.
	CongestionCubic
)

// DefaultBusyPoll is Config.BusyPoll's default: a round trip over
// loopback or a LAN plus the peer's processing, and a small fraction of a
// CPU at any packet rate where it does not pay off (no poll follows a
// wait longer than it).
const DefaultBusyPoll = 50 * time.Microsecond

// defaultUnsentLimit is Config.UnsentLimit's default: 256 KiB, about 180
// full packets, several SACKs' worth of refill at any rate this stack
// reaches, and less than the CPU caches.
const defaultUnsentLimit = 256 << 10

// DefaultSendBudget is Config.SendBudget's default (or SendBuffer when
// larger): 1 MiB, one association's default send buffer, so one
// association is bound by its own buffer as before, and 8 or 64 busy ones
// hold together what one would. Over loopback with 8 associations it gave
// the best throughput and CPU per byte of 256 KiB to 2 MiB and none
// (README, Scale).
const DefaultSendBudget = 1 << 20

// defaultBufferMax is the default bound of buffer autotuning
// (Config.RecvBufferMax, SendBufferMax).
const defaultBufferMax = 16 << 20

// maxPacket is the size of the shell's own read buffers (the UDP GRO
// path reads into the socket's larger buffers); a larger Config.MTU
// enlarges them, and there are fewer (reader.go).
const maxPacket = 9216

// maxMTU is the largest Config.MTU: an IPv4 packet's 65535 bytes.
const maxMTU = 65535

// core returns the sans-I/O core's configuration.
func (c *Config) core(overhead int) assoc.Config {
	cc := assoc.Config{
		RTOInitial:                c.RTOInitial,
		RTOMin:                    c.RTOMin,
		RTOMax:                    c.RTOMax,
		HeartbeatInterval:         c.HeartbeatInterval,
		MaxRetransmits:            c.MaxRetransmits,
		PathMaxRetrans:            c.PathMaxRetransmits,
		Multihoming:               c.Multihoming,
		PFThreshold:               c.PFThreshold,
		NoPrimaryReturn:           c.NoPrimaryReturn,
		MaxBurst:                  c.MaxBurst,
		Recovery:                  assoc.Recovery(c.Recovery),
		Congestion:                assoc.CongestionControl(c.CongestionControl),
		InitialWindow:             c.InitialWindow,
		MaxInitRetransmits:        c.MaxInitRetransmits,
		InitRTOMax:                c.InitRTOMax,
		OutStreams:                c.OutStreams,
		InStreams:                 c.InStreams,
		RecvBuffer:                c.RecvBuffer,
		SendBuffer:                c.SendBuffer,
		UnsentLimit:               max(c.UnsentLimit, 0),
		StreamUnsentLimit:         max(c.StreamUnsentLimit, 0),
		SendBudget:                max(c.SendBudget, 0),
		RecvBudget:                max(c.RecvBudget, 0),
		MaxAssociations:           max(c.MaxAssociations, 0),
		Backlog:                   c.Backlog,
		MemoryBudget:              c.MemoryBudget,
		InitRate:                  c.InitRate,
		MTU:                       c.MTU - overhead,
		PMTUDiscovery:             !c.DisablePMTUDiscovery,
		PMTUOverhead:              overhead,
		PMTUBase:                  assoc.BasePLPMTU - overhead,
		Interleaving:              c.Interleaving,
		InterleaveFSN:             c.InterleaveFSN,
		DisableStreamReconfig:     c.DisableStreamReconfig,
		DenyAssocReset:            c.DenyAssocReset,
		DisablePartialReliability: c.DisablePartialReliability,
		DisableECN:                c.DisableECN,
		RecvBufferMax:             max(c.RecvBufferMax, 0),
		SendBufferMax:             max(c.SendBufferMax, 0),
	}
	cc.Scheduler = c.Scheduler
	for _, k := range c.AuthKeys {
		cc.AuthKeys = append(cc.AuthKeys, assoc.AuthKey{ID: k.ID, Key: k.Key})
	}
	cc.AuthChunks = c.AuthChunks
	cc.AuthHMAC = c.AuthHMAC
	cc.DynamicAddrs = c.DynamicAddrs
	return cc
}
