package api

import (
	"fmt"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// Defaults of the configuration groups that other packages name.
const (
	// DefaultBuffer is the default send and receive buffer of an
	// association (Buffers.SendBuffer, Buffers.RecvBuffer): 1 MiB.
	DefaultBuffer = 1 << 20
	// DefaultMaxBurst is Max.Burst's default (Paths.MaxBurst).
	DefaultMaxBurst = 4
	// DefaultMaxAssociations is Limits.MaxAssociations' default.
	DefaultMaxAssociations = 4096
	// DefaultMemoryBudget is Limits.MemoryBudget's default: 256 MiB.
	DefaultMemoryBudget = 256 << 20
	// DefaultSendBudget is Limits.SendBudget's default (or
	// Buffers.SendBuffer when larger): 1 MiB, one association's default
	// send buffer.
	DefaultSendBudget = 1 << 20
	// DefaultInitRate is Limits.InitRate's default: answers per second
	// per source.
	DefaultInitRate = 100
)

// The other defaults, named on the fields they fill.
const (
	defaultRTOInitial         = time.Second
	defaultRTOMin             = time.Second
	defaultRTOMax             = 60 * time.Second
	defaultHeartbeatInterval  = 30 * time.Second
	defaultMaxRetransmits     = 10
	defaultPathMaxRetransmits = 5
	defaultMaxInitRetransmits = 8
	defaultUnsentLimit        = DefaultBuffer
	defaultBufferMax          = 16 << 20
	defaultBacklog            = 1024
	maxInitialWindow          = 100
)

// Timers are an association's retransmission timeouts and limits and its
// heartbeat interval: the protocol parameters of RFC 9260 section 16. A
// zero field takes the default it names; none may be negative but
// HeartbeatInterval.
type Timers struct {
	// RTOInitial, RTOMin and RTOMax bound the retransmission timeout
	// (defaults 1 s, 1 s and 60 s; RTOInitial and RTOMin at most RTOMax).
	RTOInitial, RTOMin, RTOMax time.Duration
	// InitRTOMax bounds the timeout of INIT and COOKIE ECHO, which starts
	// at RTOInitial and doubles on each retransmission (default RTOMax),
	// as Linux's SCTP_INITMSG sinit_max_init_timeo.
	InitRTOMax time.Duration
	// HeartbeatInterval is HB.interval, the time between HEARTBEATs on
	// an idle path (default 30 s); negative disables heartbeats.
	HeartbeatInterval time.Duration
	// MaxRetransmits is Association.Max.Retrans (default 10): the
	// association is aborted, its peer unreachable, when more
	// retransmissions and HEARTBEATs in a row than this go unanswered.
	MaxRetransmits int
	// PathMaxRetransmits is Path.Max.Retrans (default 5): a path whose
	// unanswered retransmissions and HEARTBEATs in a row exceed it is
	// inactive.
	PathMaxRetransmits int
	// MaxInitRetransmits is Max.Init.Retransmits (default 8): how many
	// times an INIT or COOKIE ECHO is sent again before Dial gives up.
	MaxInitRetransmits int
}

// WithDefaults returns t with each zero field set to its default.
func (t Timers) WithDefaults() Timers {
	def(&t.RTOInitial, defaultRTOInitial)
	def(&t.RTOMin, defaultRTOMin)
	def(&t.RTOMax, defaultRTOMax)
	def(&t.InitRTOMax, t.RTOMax)
	def(&t.HeartbeatInterval, defaultHeartbeatInterval)
	def(&t.MaxRetransmits, defaultMaxRetransmits)
	def(&t.PathMaxRetransmits, defaultPathMaxRetransmits)
	def(&t.MaxInitRetransmits, defaultMaxInitRetransmits)
	return t
}

// Validate returns an error naming the first field of t outside its
// range, the defaults applied.
func (t Timers) Validate() error {
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"RTOInitial", t.RTOInitial}, {"RTOMin", t.RTOMin}, {"RTOMax", t.RTOMax}, {"InitRTOMax", t.InitRTOMax}} {
		if f.v < 0 {
			return fmt.Errorf("sctp: Timers.%s %v negative", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxRetransmits", t.MaxRetransmits}, {"PathMaxRetransmits", t.PathMaxRetransmits}, {"MaxInitRetransmits", t.MaxInitRetransmits}} {
		if f.v < 0 {
			return fmt.Errorf("sctp: Timers.%s %d negative", f.name, f.v)
		}
	}
	d := t.WithDefaults()
	if d.RTOMin > d.RTOMax || d.RTOInitial > d.RTOMax {
		return fmt.Errorf("sctp: Timers.RTOMin %v or RTOInitial %v above RTOMax %v", d.RTOMin, d.RTOInitial, d.RTOMax)
	}
	return nil
}

// Buffers size an association's send and receive buffers. A zero field
// takes the default it names.
type Buffers struct {
	// SendBuffer bounds the bytes queued or unacknowledged per
	// association (default 1 MiB): a write beyond it blocks, or fails with
	// ErrWouldBlock. A single larger message is accepted when the buffer
	// is empty.
	SendBuffer int
	// RecvBuffer is the receive window advertised per association
	// (default 1 MiB).
	RecvBuffer int
	// SendBufferMax and RecvBufferMax bound buffer autotuning (default
	// 16 MiB each; negative: the buffers stay at SendBuffer and
	// RecvBuffer). The send buffer grows to twice the congestion window,
	// the receive buffer to twice what the application reads in a round
	// trip, as Linux TCP's does; Limits.MemoryBudget still bounds every
	// receive window.
	SendBufferMax, RecvBufferMax int
	// UnsentLimit bounds the bytes of the send buffer that wait to be
	// sent (default 1 MiB, the default SendBuffer; negative: no bound but
	// SendBuffer), as Linux's TCP_NOTSENT_LOWAT does, so that what is
	// written behind a bulk transfer waits behind no more than that. A
	// writer it blocks is woken once half of it is sent: a smaller bound
	// keeps queued data in the CPU's caches, but wakes a bulk writer more
	// often, and each wake-up costs more than the cache misses it saves
	// (docs/PERFORMANCE.md measures it). While several streams have data waiting, each is bounded by
	// StreamUnsentLimit instead, and their total by a small multiple of
	// UnsentLimit. A write beyond it blocks as on a full send buffer; one
	// message is always accepted when none waits.
	UnsentLimit int
	// StreamUnsentLimit bounds the bytes of one stream that wait to be
	// sent (default 0: the part of the send buffer the flight leaves,
	// shared among the streams with data or a writer waiting in
	// proportion to their WFQ weights, under SchedulerPriority 8 times
	// less per level below the best, else evenly). A write on a stream at
	// its bound blocks, or fails with ErrWouldBlock; one message is always
	// accepted on a stream with none waiting.
	StreamUnsentLimit int
}

// WithDefaults returns b with each zero field set to its default.
func (b Buffers) WithDefaults() Buffers {
	def(&b.SendBuffer, DefaultBuffer)
	def(&b.RecvBuffer, DefaultBuffer)
	def(&b.SendBufferMax, defaultBufferMax)
	def(&b.RecvBufferMax, defaultBufferMax)
	def(&b.UnsentLimit, defaultUnsentLimit)
	return b
}

// Validate returns an error naming the first field of b outside its
// range.
func (b Buffers) Validate() error {
	switch {
	case b.SendBuffer < 0:
		return fmt.Errorf("sctp: Buffers.SendBuffer %d negative", b.SendBuffer)
	case b.RecvBuffer < 0:
		return fmt.Errorf("sctp: Buffers.RecvBuffer %d negative", b.RecvBuffer)
	}
	return nil
}

// Limits bound what all the associations of an endpoint may cost it
// together, against load and hostile peers. A zero field takes the
// default it names.
type Limits struct {
	// MaxAssociations bounds the associations of an endpoint (default
	// DefaultMaxAssociations; negative: no limit). A COOKIE ECHO that
	// would create one more is answered with an ABORT "Out of Resource"
	// (Stats.AssocsRefused), and Dial fails.
	MaxAssociations int
	// Backlog bounds the associations that arrived and that Accept has
	// not returned yet (default 1024: a thousand handshakes completed
	// at once, before the accept loop runs, all wait; a full backlog of
	// peers sending data holds at most half the default MemoryBudget). A
	// COOKIE ECHO beyond it is dropped without an answer
	// (Stats.BacklogDropped), so the peer sends it again and is served
	// once Accept made room. Until Accept returns it, an association
	// advertises a receive window of 64 KiB at most.
	Backlog int
	// MemoryBudget bounds the memory in bytes that the received data of
	// all the endpoint's associations costs together (default
	// DefaultMemoryBudget; negative: none, each association is bounded by
	// its receive buffer only). As it fills, windows shrink; with less
	// than an eighth left, new associations are refused with an ABORT
	// "Out of Resource" (Stats.MemoryRefused).
	MemoryBudget int
	// SendBudget bounds the bytes that the send buffers of all the
	// endpoint's associations hold together, queued or unacknowledged
	// (default the larger of DefaultSendBudget and Buffers.SendBuffer;
	// negative: no bound but each association's SendBuffer). A write on
	// an association that holds bytes waits while the total is at the
	// bound, unless the association holds less than its fair share (the
	// bound divided among the associations holding bytes); one message is
	// always accepted on an association that holds none.
	SendBudget int
	// RecvBudget, when positive, bounds the receive windows that the
	// endpoint's associations advertise together while several of them
	// receive (default 0: no bound but each receive buffer). An
	// association that received 16 KiB or more in the last 50 to 100 ms
	// counts as receiving; each advertises at most the bound divided
	// among them (at least 16 KiB, or an eighth of a smaller bound).
	RecvBudget int
	// InitRate bounds the packets the endpoint answers without an
	// association (INIT ACK, ABORT to an out-of-the-blue packet,
	// SHUTDOWN COMPLETE), against reflection toward forged source
	// addresses and the cost of a flood: answers per second per source
	// (an IPv4 address or an IPv6 /64), with bursts of twice that
	// (default DefaultInitRate; negative: no limit); all sources together
	// get at most 20,000 a second. The packets not answered are dropped
	// (Stats.RateLimited); a usctp dialer counts its INITs dropped so in
	// Stats.InitsUnanswered.
	//
	// The limit is by pressure: past its burst, a source may draw on a
	// reserve of ten seconds of InitRate (1,000 answers by default)
	// shared by all sources, and an answer whose COOKIE ECHO comes back
	// (it reached a host that owns its address) is given back to the
	// source and the reserve. So one host can open 1,200 associations at
	// once, and again as soon as their handshakes completed, while
	// answers to forged addresses, never confirmed, spend the reserve:
	// the endpoint is then under pressure, and every source is held to
	// its burst and InitRate a second until the reserve refills at
	// InitRate a second. One forged source gets at most its burst, the
	// reserve and InitRate a second; many, their bursts and rates and the
	// reserve once.
	InitRate int
}

// WithDefaults returns l with each zero field set to its default for
// associations with buffers b (SendBudget's default is at least
// b.SendBuffer).
func (l Limits) WithDefaults(b Buffers) Limits {
	def(&l.MaxAssociations, DefaultMaxAssociations)
	def(&l.Backlog, defaultBacklog)
	def(&l.MemoryBudget, DefaultMemoryBudget)
	def(&l.SendBudget, max(DefaultSendBudget, b.SendBuffer))
	def(&l.InitRate, DefaultInitRate)
	return l
}

// Validate returns an error naming the first field of l outside its
// range.
func (l Limits) Validate() error {
	if l.Backlog < 0 {
		return fmt.Errorf("sctp: Limits.Backlog %d negative", l.Backlog)
	}
	return nil
}

// Paths set how an association uses its paths: multi-homing and
// failover, and each path's loss recovery and congestion control. A zero
// field takes the default it names.
type Paths struct {
	// Multihoming uses the peer's other addresses (those of its INIT or
	// INIT ACK) as alternate paths: each is confirmed with a HEARTBEAT
	// before data goes there, and the data moves to another path when
	// the one in use is potentially failed (RFC 7829). Off, the
	// association uses the address of its handshake only. On an endpoint
	// bound to the wildcard address without LocalAddrs it also lists the
	// host's addresses that suit each peer in INIT and INIT ACK (none to
	// a peer on loopback).
	Multihoming bool
	// PFThreshold is RFC 7829's PFMR with Multihoming: a path whose error
	// count exceeds it is potentially failed and the data moves to
	// another active path (default 0: at the first T3-rtx expiry or
	// unanswered HEARTBEAT).
	PFThreshold int
	// NoPrimaryReturn keeps the data on the path it moved to when the
	// primary answers again; by default the primary takes it back.
	NoPrimaryReturn bool
	// MaxBurst is Max.Burst (default 4): the packets one send opportunity
	// may add to the flight (RFC 9260 section 6.1 rule D).
	MaxBurst int
	// Recovery is how lost DATA chunks are found (default RecoveryRACK).
	Recovery Recovery
	// CongestionControl is each path's congestion controller (default
	// CongestionRFC9260).
	CongestionControl CongestionControl
	// InitialWindow, when positive, is the initial congestion window in
	// full-sized packets (at most 100; RFC 6928 uses 10) instead of RFC
	// 9260's min(4 * MTU, max(2 * MTU, 4404)) bytes.
	InitialWindow int
}

// WithDefaults returns p with each zero field set to its default.
func (p Paths) WithDefaults() Paths {
	def(&p.MaxBurst, DefaultMaxBurst)
	return p
}

// Validate returns an error naming the first field of p outside its
// range.
func (p Paths) Validate() error {
	switch {
	case p.PFThreshold < 0:
		return fmt.Errorf("sctp: Paths.PFThreshold %d negative", p.PFThreshold)
	case p.MaxBurst < 0:
		return fmt.Errorf("sctp: Paths.MaxBurst %d negative", p.MaxBurst)
	case p.Recovery > RecoveryRFC9260:
		return fmt.Errorf("sctp: Paths.Recovery %d unknown", p.Recovery)
	case p.CongestionControl > CongestionCubic:
		return fmt.Errorf("sctp: Paths.CongestionControl %d unknown", p.CongestionControl)
	case p.InitialWindow < 0 || p.InitialWindow > maxInitialWindow:
		return fmt.Errorf("sctp: Paths.InitialWindow %d outside 0..%d", p.InitialWindow, maxInitialWindow)
	}
	return nil
}

// Extensions choose the protocol extensions an endpoint offers and how it
// answers the peer's requests. The zero value is the default of each
// field.
type Extensions struct {
	// Interleaving offers user-message interleaving (I-DATA and
	// I-FORWARD-TSN, RFC 8260), used when the peer offers it too: the
	// stream scheduler may then switch streams after every chunk, so
	// small messages do not wait behind large ones.
	Interleaving bool
	// InterleaveFSN is how the second I-DATA fragment of a message is
	// numbered (default FSNAuto).
	InterleaveFSN FSNConvention
	// DisableStreamReconfig stops offering stream reconfiguration (RFC
	// 6525: resetting stream numbering and adding streams), which is
	// offered by default: WebRTC data channels close with stream resets
	// (RFC 8831), and a peer's requests only touch stream numbering and
	// bounded stream tables.
	DisableStreamReconfig bool
	// DenyAssocReset answers a peer's SSN/TSN Reset Request (RFC 6525
	// section 5.2.4: a reset of both directions' TSNs and every stream's
	// numbering) "Denied", as Linux does unless SCTP_ENABLE_RESET_ASSOC_REQ
	// is set; by default it is performed. It does not limit
	// Association.ResetAssociation.
	DenyAssocReset bool
	// DisablePartialReliability stops offering partial reliability
	// (PR-SCTP, RFC 3758), which is offered by default, as Linux and
	// WebRTC data channels (RFC 8831) do. Without it on both sides,
	// SendInfo.PR policies only drop messages not yet sent.
	DisablePartialReliability bool
	// DisableECN stops offering Explicit Congestion Notification (RFC 9260
	// appendix A), which is offered by default, as Linux does. With ECN
	// the UDP and raw IP transports send every packet with ECT(0) and read
	// the ECN field of what arrives; an association whose peer offered ECN
	// too answers CE marks with ECNE and halves its window, once per
	// window of data, for the peer's ECNEs.
	DisableECN bool
	// ZeroChecksumDTLS offers the zero checksum of RFC 9653 with the
	// error detection method of SCTP over DTLS: set it only when every
	// packet travels inside DTLS (Config.Conn or Config.PacketConn over a
	// DTLS connection, as WebRTC data channels do), whose integrity check
	// then stands in for the CRC32c. The INIT and INIT ACK announce the
	// Zero Checksum Acceptable parameter, packets whose checksum field is
	// zero are accepted, and an association whose peer announced the same
	// method sends its packets with a zero checksum but for those that
	// carry an INIT or a COOKIE ECHO and those sent outside an
	// association, which keep the CRC32c (RFC 9653 section 5).
	ZeroChecksumDTLS bool
	// DynamicAddrs accepts the peer's address changes (RFC 5061 ASCONF):
	// an added address is used once a HEARTBEAT confirmed it, a deleted
	// one is dropped with its data moved, and the peer may choose our
	// primary path; each shows as an EventPeerAddrChange. ASCONF must come
	// authenticated: DynamicAddrs turns on AUTH (ASCONF and ASCONF-ACK
	// join AuthChunks) and Paths.Multihoming.
	DynamicAddrs bool
	// AuthKeys, AuthChunks and AuthHMAC configure authenticated chunks
	// (RFC 4895, AUTH), offered when AuthKeys or AuthChunks is set and
	// used when the peer offers it too. AuthKeys are the endpoint-pair
	// shared keys, the first one active (none: the empty key with
	// identifier 0, as the RFC says); they are copied and never printed.
	// AuthChunks are the chunk types the peer must authenticate (INIT,
	// INIT ACK, SHUTDOWN COMPLETE and AUTH are left out). AuthHMAC are the
	// HMAC identifiers offered in order of preference (default
	// AuthHMACSHA256 then AuthHMACSHA1; SHA-1 is always listed, as the
	// RFC requires).
	AuthKeys   []AuthKey
	AuthChunks []chunk.Type
	AuthHMAC   []uint16
}

// Validate returns an error naming the first field of e outside its
// range.
func (e Extensions) Validate() error {
	if e.InterleaveFSN > FSNLinux {
		return fmt.Errorf("sctp: Extensions.InterleaveFSN %d unknown", e.InterleaveFSN)
	}
	return nil
}

// def sets *v to d if it is zero.
func def[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
