package sctp

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
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
// a nil *Config, gives the defaults named on each field. The protocol's
// settings come in groups (Timers, Buffers, Limits, Paths, Extensions);
// the other fields select the streams, the transport, the MTU and the
// endpoint's own resources.
type Config struct {
	// OutStreams is the number of outbound streams requested (default
	// 10); InStreams the most inbound streams accepted (default 65535).
	// The association uses the minimum of each side's offer. With
	// OutStreams left 0, an association the endpoint accepts asks for
	// as many outbound streams as the peer opened toward it, at least
	// 10: a server that answers on the stream a message came in on has
	// that stream.
	OutStreams, InStreams uint16
	// Scheduler is the outbound stream scheduler (default SchedulerFCFS).
	Scheduler Scheduler

	// Timers are the retransmission timeouts and limits and the
	// heartbeat interval.
	Timers Timers
	// Buffers size each association's send and receive buffers.
	Buffers Buffers
	// Limits bound what the endpoint's associations cost together.
	Limits Limits
	// Paths set multi-homing and failover, loss recovery and congestion
	// control.
	Paths Paths
	// Extensions choose the protocol extensions offered: interleaving,
	// stream reconfiguration, partial reliability, ECN, dynamic
	// addresses and AUTH.
	Extensions Extensions

	// Transport is UDP (default) or IP. Ignored when PacketConn or Conn
	// is set.
	Transport Transport
	// UDPPort is the local UDP encapsulation port. 0 means the default of
	// the endpoint's role, as with TCP: 9899 (IANA's port) for Listen, a
	// free port the system picks for Dial and NewEndpoint, so that any
	// number of dialing endpoints and a listener coexist on a host; the
	// peer answers the port an association's packets come from (RFC 6951
	// section 5.4). Endpoint.Addr tells which.
	UDPPort uint16
	// EphemeralUDPPort makes Listen bind its UDP encapsulation port to a
	// free port the system picks, as dialing endpoints do by default
	// (UDPPort must then be 0).
	EphemeralUDPPort bool
	// RemoteUDPPort is the peer's UDP encapsulation port for Dial
	// (default 9899); a dial address "HOST:PORT/udp:N" names another for
	// its association. An accepted association answers the port its peer
	// sent from (RFC 6951 section 5.4).
	RemoteUDPPort uint16
	// ExclusiveUDPPort binds the endpoint's UDP encapsulation address and
	// port for this process alone. By default, on Linux, a process that
	// may load BPF programs (CAP_BPF or CAP_SYS_ADMIN, with bpffs mounted
	// at /sys/fs/bpf) shares a fixed address and port (a listener's 9899)
	// with the other processes of the host that may: each gets the
	// packets of the SCTP ports it serves, as the kernel's SCTP serves
	// every process (docs/transports.md). Without that privilege, or with
	// ExclusiveUDPPort, the process binds them alone, and another process
	// that binds them fails with an error that says why and what to do.
	// The endpoints of a process bound to one address and port share one
	// socket, whose setting is that of the first to open it.
	ExclusiveUDPPort bool
	// PacketConn, when set, carries SCTP packets as datagrams over the
	// user's connection (for example DTLS for WebRTC). The endpoint
	// closes it when it closes.
	PacketConn net.PacketConn
	// Conn, when set, carries SCTP packets over a connected datagram
	// connection; the endpoint then has one peer. A goroutine of the
	// endpoint reads it ahead (one Read per packet) and the endpoint
	// processes what arrived since its last read together; its read
	// deadline is never set. It is closed with the endpoint.
	Conn net.Conn
	// MTU is the path MTU in bytes, IP header included: with path MTU
	// discovery the upper bound of every path's PLPMTU, else the size of
	// every packet (576 to 65535). 0, the default, takes the MTU of the
	// local interface, capped at 65535: for Dial, of the route to the
	// peer; for an endpoint bound to addresses, the largest of their
	// interfaces'; bound to all addresses, the largest of the host's
	// interfaces that are up, each path then learning its route's smaller
	// MTU by path MTU discovery (without it: 1500). Over a PacketConn or
	// Conn: 1500. The memory of an endpoint does not grow with it.
	MTU int
	// DisablePMTUDiscovery turns off Packetization Layer Path MTU
	// Discovery (RFC 8899), which is on by default: every path starts at
	// 1200-byte packets (BASE_PLPMTU) and grows up to MTU as padded
	// HEARTBEAT probes confirm the path carries them, falls back when
	// full-size packets stop getting through, and takes ICMP Packet Too
	// Big reports as hints; packets go with the Don't Fragment bit.
	// Association.Paths shows each path's PLPMTU, EventPathMTU reports
	// changes. Off, every packet is sized for MTU and the kernel's PMTU
	// defaults apply. Endpoints that share a socket send with the Don't
	// Fragment setting of the first one.
	DisablePMTUDiscovery bool

	// LocalAddrs are the local IP addresses of an endpoint that Dial or
	// NewEndpoint (with the zero address) creates, and of Listen with an
	// empty host: one binds the socket to it; two or more make the
	// endpoint multi-homed: it listens on all of them, lists them in its
	// INIT and INIT ACK, sends each packet from one of them, and turns
	// Paths.Multihoming on. ListenAddrs and an address list in Listen's
	// string override it.
	LocalAddrs []netip.Addr
	// LocalPort is the SCTP port Dial uses (default: random from 49152).
	LocalPort uint16

	// BusyPoll is how long a read of the endpoint's UDP or raw IP socket
	// that finds it empty keeps polling it before it sleeps (default
	// DefaultBusyPoll; negative: never), as Linux's SO_BUSY_POLL does in
	// the kernel. It is adaptive: a read polls only when the previous wait
	// for data ended within BusyPoll and the previous read brought less
	// than 16 KiB, so idle associations, sparse traffic and bulk streams
	// (whose batches amortize a wake-up) never spin. Linux only, and never
	// when GOMAXPROCS is 1.
	BusyPoll time.Duration
	// Pcap, when set, is a file every packet sent and received is
	// written to (pcap, decodable by Wireshark, tshark and sctpdump).
	Pcap string
	// CloseTimeout bounds the graceful shutdown Close performs before it
	// aborts (default 5 s).
	CloseTimeout time.Duration
	// EventQueue is the capacity of each association's Events channel
	// (default DefaultEventQueue). Events that find it full wait behind
	// it, within bounds (see Association.Events).
	EventQueue int
	// SenderDryEvents turns EventSenderDry on (RFC 6458's
	// SCTP_SENDER_DRY_EVENT, also off by default): one event each time
	// everything written has been acknowledged, after a write. A bulk
	// sender's queue drains many times a second, so it is off by default.
	SenderDryEvents bool
	// AbortOnExit aborts the endpoint's associations when the process
	// ends, however it ends (os.Exit from a signal handler, a crash,
	// SIGKILL), as the kernel does for its sockets: each peer gets an
	// ABORT with a "User-Initiated Abort" cause, reason "process
	// exited", within milliseconds, instead of finding out from
	// unanswered heartbeats tens of seconds later. The first endpoint
	// that sets it starts a watchdog process, the program's own binary
	// re-executed, that holds a copy of the endpoint's socket and every
	// association's ABORT and sends them when the process is gone (see
	// docs/transports.md). Linux only, on the UDP and raw IP sockets the
	// endpoint opens (not over PacketConn or Conn, nor a raw IP endpoint
	// of both families); elsewhere it has no effect.
	AbortOnExit bool
}

// The groups of Config. Each zero field takes the default named on it.
type (
	Timers     = api.Timers     // retransmission timeouts and limits, heartbeat interval
	Buffers    = api.Buffers    // an association's send and receive buffers
	Limits     = api.Limits     // what an endpoint's associations cost together
	Paths      = api.Paths      // multi-homing, loss recovery, congestion control
	Extensions = api.Extensions // the protocol extensions offered
)

// Recovery selects how an association finds lost DATA chunks
// (Paths.Recovery).
type Recovery = api.Recovery

// The loss recoveries.
const (
	RecoveryRACK    = api.RecoveryRACK    // by time, RACK-TLP (RFC 8985) on SACKs; the default
	RecoveryRFC9260 = api.RecoveryRFC9260 // RFC 9260's three miss indications, then T3-rtx
)

// CongestionControl selects the congestion controller of an association's
// paths (Paths.CongestionControl).
type CongestionControl = api.CongestionControl

// The congestion controllers.
const (
	CongestionRFC9260 = api.CongestionRFC9260 // RFC 9260 section 7.2's; the default
	CongestionCubic   = api.CongestionCubic   // CUBIC (RFC 9438)
)

// Scheduler names an outbound stream scheduler (RFC 8260 section 3;
// Config.Scheduler, Association.SetScheduler). Its values are Linux's
// SCTP_SS_* numbers where Linux has the scheduler.
type Scheduler = api.Scheduler

// The stream schedulers. The value of a stream (Stream.SetSchedulerValue)
// is its priority under SchedulerPriority, lower first, and its weight
// under SchedulerWFQ.
const (
	SchedulerFCFS             = api.SchedulerFCFS             // messages in the order written; the default
	SchedulerPriority         = api.SchedulerPriority         // lowest priority value first, in turn among equals
	SchedulerRoundRobin       = api.SchedulerRoundRobin       // streams in turn, a message (a chunk with I-DATA) each
	SchedulerFairCapacity     = api.SchedulerFairCapacity     // equal shares of the bytes sent
	SchedulerWFQ              = api.SchedulerWFQ              // shares of the bytes sent in proportion to the weights
	SchedulerRoundRobinPacket = api.SchedulerRoundRobinPacket // streams in turn, a packet each
)

// ParseScheduler returns the scheduler named name: "fcfs", "prio", "rr",
// "fc", "wfq", "rrp", or its number.
func ParseScheduler(name string) (Scheduler, error) { return api.ParseScheduler(name) }

// FSNConvention is how the second I-DATA fragment of a message is
// numbered (Extensions.InterleaveFSN): RFC 8260 numbers it 1, Linux 0.
type FSNConvention = api.FSNConvention

// The FSN conventions.
const (
	FSNAuto  = api.FSNAuto  // RFC 8260's until the peer shows Linux's, both read; the default
	FSNRFC   = api.FSNRFC   // RFC 8260's
	FSNLinux = api.FSNLinux // Linux's, which Linux 6.1 to 6.12 needs to reassemble our first messages
)

// Defaults of the Limits fields that bound what peers may cost an
// endpoint.
const (
	DefaultMaxAssociations = api.DefaultMaxAssociations
	DefaultMemoryBudget    = api.DefaultMemoryBudget // bytes
	DefaultInitRate        = api.DefaultInitRate     // per source and second
	// DefaultSendBudget is Limits.SendBudget's default (or
	// Buffers.SendBuffer when larger), in bytes.
	DefaultSendBudget = api.DefaultSendBudget
)

// DefaultBusyPoll is Config.BusyPoll's default: a round trip over
// loopback or a LAN plus the peer's processing.
const DefaultBusyPoll = 50 * time.Microsecond

// maxPacket is the size of the shell's own read buffers (the UDP GRO
// path reads into the socket's larger buffers); a larger Config.MTU
// enlarges them, and there are fewer (socketReader.init).
const maxPacket = 9216

// maxMTU is the largest Config.MTU: an IPv4 packet's 65535 bytes.
const maxMTU = 65535

// withDefaults returns the configuration c (nil: the zero one) with its
// zero fields set to their defaults: the groups' by their WithDefaults
// methods, the shell's own here. Config.MTU's default depends on the
// socket and is set by the caller (localMTU, peerMTU), else 1500.
func (c *Config) withDefaults() Config {
	var d Config
	if c != nil {
		d = *c
	}
	d.Timers = d.Timers.WithDefaults()
	d.Buffers = d.Buffers.WithDefaults()
	d.Limits = d.Limits.WithDefaults(d.Buffers)
	d.Paths = d.Paths.WithDefaults()
	if d.RemoteUDPPort == 0 {
		d.RemoteUDPPort = netio.DefaultUDPPort
	}
	if d.MTU == 0 {
		d.MTU = assoc.DefaultMTU
	}
	if d.CloseTimeout == 0 {
		d.CloseTimeout = 5 * time.Second
	}
	if d.BusyPoll == 0 {
		d.BusyPoll = DefaultBusyPoll
	}
	if d.EventQueue == 0 {
		d.EventQueue = DefaultEventQueue
	}
	return d
}

// validate returns an error naming the first field of c outside its
// range.
func (c *Config) validate() error {
	if c.MTU < 576 || c.MTU > maxMTU {
		return fmt.Errorf("sctp: MTU %d outside 576..%d", c.MTU, maxMTU)
	}
	if c.EventQueue < 0 {
		return fmt.Errorf("sctp: EventQueue %d negative", c.EventQueue)
	}
	if c.EphemeralUDPPort && c.UDPPort != 0 {
		return fmt.Errorf("sctp: UDPPort %d with EphemeralUDPPort", c.UDPPort)
	}
	for _, err := range []error{api.ValidateScheduler(c.Scheduler), c.Timers.Validate(), c.Buffers.Validate(),
		c.Limits.Validate(), c.Paths.Validate(), c.Extensions.Validate()} {
		if err != nil {
			return err
		}
	}
	return nil
}

// coreConfig returns the sans-I/O core's configuration for a transport
// whose IP (and UDP) headers take overhead bytes of each packet.
func (c *Config) coreConfig(overhead int) assoc.Config {
	return assoc.Config{
		Timers:        c.Timers,
		Buffers:       c.Buffers,
		Limits:        c.Limits,
		Paths:         c.Paths,
		Extensions:    c.Extensions,
		OutStreams:    c.OutStreams,
		FollowPeerOS:  c.OutStreams == 0,
		InStreams:     c.InStreams,
		Scheduler:     c.Scheduler,
		MTU:           c.MTU - overhead,
		PMTUDiscovery: !c.DisablePMTUDiscovery,
		PMTUOverhead:  overhead,
		PMTUBase:      assoc.BasePLPMTU - overhead,
		InitReserve:   initReserve(c.Limits.InitRate),
	}
}

// initReserve returns the reserve of answers without an association
// (assoc.Config.InitReserve) of an endpoint that answers rate a second
// per source: ten seconds' worth, so that with the default rate one host
// can open a thousand associations at once.
func initReserve(rate int) int { return 10 * max(rate, 0) }
