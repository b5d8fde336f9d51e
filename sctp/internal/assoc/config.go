package assoc

import (
	"crypto/rand"
	"io"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Config is the configuration of an endpoint and its associations: the
// groups of the public configuration, which the shell passes with their
// defaults applied, and the core's own settings. NewEndpoint applies the
// defaults of Timers and Paths and of the core's fields; it reads Buffers
// and Limits as given, a zero or negative limit meaning none (a zero
// Backlog: no accept queue) and a zero buffer api.DefaultBuffer.
type Config struct {
	api.Timers
	api.Buffers
	api.Limits
	api.Paths
	api.Extensions

	OutStreams uint16 // OS we ask for, 10
	// FollowPeerOS makes the OS of our INIT ACK at least the OS of the
	// peer's INIT (up to its MIS, as ever): set when the user left
	// OutStreams to its default, so that a server answering on the
	// stream a message came in on has that stream.
	FollowPeerOS bool
	InStreams    uint16        // MIS we accept, 65535
	Scheduler    api.Scheduler // stream scheduler of new associations, FCFS

	// MTU is the largest SCTP packet: the path MTU less the IP and UDP
	// headers (default DefaultMTU less maxOverhead).
	MTU int
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

	CookieLife        time.Duration // Valid.Cookie.Life, 60 s
	CookiePreserveMax time.Duration // cap on a peer's Cookie Preservative increment, 10 s
	SecretRotation    time.Duration // how often the cookie secret changes, 1 h
	Rand              io.Reader     // source of tags, nonces and secrets; crypto/rand

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
	// InitReserve is how many answers without an association a source
	// may get beyond its burst of twice InitRate while the endpoint is
	// not under pressure (ratelimit.Config.Reserve: a pool of that many,
	// shared by all sources, refilled at InitRate per second and by the
	// COOKIE ECHOs that confirm its answers). The shell sets ten seconds
	// of InitRate; zero: no reserve.
	InitReserve int
}

func (c *Config) setDefaults() {
	c.LocalAddrs = sanitizeLocalAddrs(c.LocalAddrs)
	if c.DynamicAddrs {
		c.Multihoming = true
		c.AuthChunks = append(c.AuthChunks[:len(c.AuthChunks):len(c.AuthChunks)], chunk.TypeASCONF, chunk.TypeASCONFAck)
	}
	c.sanitizeAuth()
	c.Timers = c.Timers.WithDefaults()
	c.Paths = c.Paths.WithDefaults()
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.CookieLife, 60*time.Second)
	def(&c.CookiePreserveMax, 10*time.Second)
	def(&c.SecretRotation, time.Hour)
	if c.OutStreams == 0 {
		c.OutStreams = 10
	}
	if c.InStreams == 0 {
		c.InStreams = 65535
	}
	if c.RecvBuffer == 0 {
		c.RecvBuffer = api.DefaultBuffer
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
		c.Scheduler = api.SchedulerFCFS
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
// receive buffer, capped below 2 GiB, as a peer (usctp among them) takes
// an a_rwnd with the top bit set for a negative window.
func (c *Config) rwnd() uint32 { return uint32(min(c.RecvBuffer, math.MaxInt32)) }

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
