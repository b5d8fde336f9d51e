package api

import (
	"strconv"
	"strings"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// Stats is a snapshot of an endpoint's or an association's counters: what a
// user or an operator asks when something goes wrong. Counters only grow;
// the path values (RTT, RTO, cwnd) are current values.
type Stats struct {
	Counters

	// ChunksIn and ChunksOut count chunks by chunk type (the 8-bit type of
	// RFC 9260 section 3.2, so extensions are counted too).
	ChunksIn  ChunkCounts
	ChunksOut ChunkCounts

	// Path values of the primary path (zero for an endpoint snapshot).
	SRTT time.Duration
	RTO  time.Duration
	Cwnd uint32
	// PLPMTU is the primary path's largest SCTP packet (its PLPMTU with
	// path MTU discovery; IP and UDP headers not included), also after
	// the association ended.
	PLPMTU int

	// The association's queues now (zero for an endpoint snapshot), as
	// Linux's SCTP_STATUS reports them: DATA chunks sent and not yet
	// acknowledged (sstat_unackdata), bytes of messages in the send
	// buffer (queued or unacknowledged), and bytes received and held:
	// waiting for reassembly or ordering, or ready to be read.
	Unacked      int
	SendBuffered int
	RecvBuffered int
	// RecvMemory is what the data received and held (RecvBuffered) costs
	// in memory now: fragment records and their buffers, and the record of
	// each inbound stream holding some, as Linux charges an skb's
	// truesize. It is what the association charges against its memory
	// limit (twice its receive buffer) and the endpoint's MemoryBudget,
	// so it stays within about twice the window it advertises, however
	// small the peer's chunks.
	RecvMemory int
	// PeerRwnd is the peer's receive window as this end sees it: the
	// last one it advertised less the data sent since (sstat_rwnd).
	PeerRwnd int

	// EventsDropped counts the association's events dropped
	// (Association.EventsDropped): none for a program that reads Events
	// from before the events until the channel is closed.
	EventsDropped uint64

	// The endpoint's memory budget now (Config.Limits.MemoryBudget; zero for an
	// association snapshot and for an endpoint without a budget):
	// MemoryBudget is its limit in bytes and MemoryInUse what the data its
	// associations hold costs against it (fragment records and buffers,
	// received and not yet read). As MemoryInUse nears MemoryBudget,
	// receive windows shrink, and new associations are refused
	// (MemoryRefused).
	MemoryInUse  int
	MemoryBudget int
}

// Counters are the scalar counters of Stats. An association keeps these
// and a compact count of chunks by type (a few hundred bytes, not the 4 KiB
// of two 256-entry arrays).
type Counters struct {
	PacketsIn  uint64 // SCTP packets received and passed to the state machine
	PacketsOut uint64 // SCTP packets produced for the network
	BytesIn    uint64 // bytes of SCTP packets received
	BytesOut   uint64 // bytes of SCTP packets produced

	// Dropped input, by reason.
	Malformed      uint64 // packet or chunk that failed to parse
	BadChecksum    uint64 // CRC32c mismatch (RFC 9260 section 6.8)
	BadVTag        uint64 // verification tag mismatch (sections 8.5, 8.5.1)
	OOTB           uint64 // out-of-the-blue packets (section 8.4)
	CookieBadMAC   uint64 // COOKIE ECHO whose MAC failed, or whose key expired
	CookieStale    uint64 // COOKIE ECHO past its lifespan (Stale Cookie sent)
	CookieMismatch uint64 // cookie ports or tags not matching the packet
	Ignored        uint64 // chunks the RFC says to discard in the current state
	UnknownChunks  uint64 // chunks of a type this stack does not implement
	Violations     uint64 // protocol violations answered with ABORT

	InitsIn        uint64 // INITs answered statelessly with INIT ACK
	HandshakeRetx  uint64 // INIT and COOKIE ECHO retransmissions (T1 expiries)
	ShutdownRetx   uint64 // SHUTDOWN and SHUTDOWN ACK retransmissions (T2 expiries)
	HeartbeatsOut  uint64 // HEARTBEATs sent
	HeartbeatAcks  uint64 // HEARTBEAT ACKs received that matched a HEARTBEAT
	HeartbeatsIn   uint64 // HEARTBEATs answered
	AbortsOut      uint64 // ABORTs sent
	AbortsIn       uint64 // ABORTs accepted
	ErrorsOut      uint64 // ERROR chunks sent
	ErrorsIn       uint64 // ERROR chunks accepted
	Restarts       uint64 // peer restarts detected (section 5.2.4 action A)
	AssocsUp       uint64 // associations that reached ESTABLISHED
	AssocsDown     uint64 // associations that went to CLOSED
	AssocsFailed   uint64 // associations lost to a timeout or an ABORT
	AssocsRefused  uint64 // valid COOKIE ECHOs refused: MaxAssociations reached
	MemoryRefused  uint64 // valid COOKIE ECHOs refused: MemoryBudget nearly spent
	BacklogDropped uint64 // valid COOKIE ECHOs dropped: Backlog associations not accepted yet
	RateLimited    uint64 // out-of-the-blue packets left unanswered: InitRate
	Retransmits    uint64 // DATA chunks retransmitted (transfer engine)
	FastRetransmit uint64 // fast retransmissions (transfer engine)
	T3Expiries     uint64 // T3-rtx expirations (transfer engine)
	NoticesIn      uint64 // ICMP errors matched to an association (RFC 9260 appendix C)
	NoticesDropped uint64 // ICMP errors dropped: no association, or a tag that does not match
	// UnboundAddrDropped counts packets a multi-homed endpoint (whose
	// socket is bound to the wildcard address) dropped because they were
	// sent to an address of the host that is not one of its own.
	UnboundAddrDropped uint64
	// PeerAddrsIgnored counts addresses in a peer's INIT or INIT ACK that
	// were not recorded: beyond the bound (32), or addresses the peer
	// cannot own (unspecified, multicast, broadcast, or loopback listed
	// by a peer that is not on a loopback address).
	PeerAddrsIgnored uint64
	// Multi-homing: peer addresses confirmed by a HEARTBEAT ACK with
	// their nonce (RFC 9260 section 5.4), and paths that left the active
	// state (potentially failed or inactive).
	PathsConfirmed uint64
	PathFailovers  uint64
	// UnknownSource counts packets from an address that is none of the
	// peer's, taken by their Verification Tag (RFC 9260 section 8.5);
	// their source gets no reply and does not become a path.
	UnknownSource uint64
	// RestartsRefused counts INITs for an existing association refused
	// because they add peer addresses (RFC 9260 sections 5.2.1, 5.2.2).
	RestartsRefused uint64
	// InitsUnanswered counts the INITs of a dial that got no INIT ACK
	// before their T1-init timer expired, the last one included: the
	// signal that a dial waited because the peer did not answer. A
	// server limiting the INITs of one source (usctp's Limits.InitRate,
	// its Stats.RateLimited) drops them unanswered, as does a lossy
	// network; each costs the dial a retransmission timeout (1 s by
	// default, doubling). A COOKIE ECHO that got no COOKIE ACK (a
	// server's backlog full) counts in HandshakeRetx only.
	InitsUnanswered uint64

	// Loss recovery (transfer engine): entries into fast recovery, chunks
	// found lost again after a retransmission, tail loss probes sent,
	// retransmissions the peer reported it had already (spurious), and
	// RTO back-offs ended by the acknowledgement of new data.
	FastRecoveries        uint64
	RepeatFastRetransmits uint64
	Probes                uint64
	SpuriousRetransmits   uint64
	RTOUndos              uint64

	// Partial reliability (RFC 3758, RFC 7496), like Linux's
	// SCTP_PR_ASSOC_STATUS: messages and bytes abandoned by policy
	// (indexed by PRPolicy; PRNone counts nothing).
	PRAbandoned        [4]uint64
	PRAbandonedBytes   [4]uint64
	PRAbandonedUnsent  uint64 // abandoned messages never sent (no TSN used)
	ForwardTSNsOut     uint64 // FORWARD-TSN and I-FORWARD-TSN chunks sent
	ForwardTSNsIn      uint64 // FORWARD-TSN and I-FORWARD-TSN chunks received
	ForwardTSNsInvalid uint64 // received ones discarded (stream out of range, beyond the TSN window)
	// IDataMIDRefused counts I-DATA chunks refused with an ABORT (protocol
	// violation) for an ordered MID the receiver cannot place: already
	// delivered, or 2^31 or more ahead of the next expected one (RFC 8260
	// section 2.1).
	IDataMIDRefused          uint64
	PartialDeliveriesAborted uint64 // messages whose partial delivery a FORWARD-TSN ended

	// ECN (RFC 9260 appendix A, Config.Extensions.DisableECN): packets with DATA
	// received with the CE codepoint, ECNE chunks sent and received,
	// congestion window reductions the received ECNEs caused (at most one
	// per window of data per path), and CWR chunks sent and received.
	ECNMarks      uint64
	ECNEchoesOut  uint64
	ECNEchoesIn   uint64
	ECNReductions uint64
	CWRsOut       uint64
	CWRsIn        uint64
	// Path MTU discovery (RFC 8899): probe packets sent (a probe sent
	// again before its PROBE_TIMER counts once more), probes
	// acknowledged, and PROBE_TIMER expiries;
	// PLPMTU increases and decreases; black-hole suspicions (a
	// retransmission timeout above 1200-byte packets); ICMP Packet Too
	// Big reports used as hints, and those ignored (a quote naming no
	// outstanding TSN or probe, a size below 1200 bytes or not below the
	// quoted packet's).
	PMTUProbes     uint64
	PMTUProbeAcks  uint64
	PMTUProbesLost uint64
	PMTUIncreases  uint64
	PMTUDecreases  uint64
	PMTUBlackHoles uint64
	PTBUsed        uint64
	PTBIgnored     uint64
	// EncapsPortMoves counts peer addresses whose UDP encapsulation port
	// changed (RFC 6951 section 5.4: a packet with the association's
	// tag came from a known peer address on another UDP port, a NAT
	// rebinding; the packets to that address go to the new port). It is
	// counted, not reported as an event: no socket API has one.
	EncapsPortMoves uint64

	Reconf ReconfCounters // stream reconfiguration (RFC 6525)

	Auth AuthCounters // authenticated chunks (RFC 4895)

	ASCONF ASCONFCounters // the peer's address reconfiguration (RFC 5061)
}

// ASCONFCounters count the peer's ASCONF requests (RFC 5061).
type ASCONFCounters struct {
	In            uint64 // ASCONF chunks performed
	Retransmitted uint64 // ASCONF chunks seen again, answered from the cached ASCONF-ACK
	BadSerial     uint64 // ASCONF chunks with an unexpected serial number (dropped)
	Malformed     uint64 // malformed ASCONF chunks or parameters (skipped)
	Refused       uint64 // requests answered with an error cause
	AddrsAdded    uint64 // peer addresses added
	AddrsDeleted  uint64 // peer addresses deleted
	AcksOut       uint64 // ASCONF-ACK chunks sent

	// Our requests (Association.AddLocalAddr, RemoveLocalAddr, SetPeerPrimary).
	Sent        uint64 // ASCONF chunks sent, retransmissions included
	Retransmits uint64 // ASCONF retransmission timer expiries
	AcksIn      uint64 // requests answered by the peer's ASCONF-ACK
	StaleAcks   uint64 // ASCONF-ACKs matching no outstanding ASCONF (dropped)
}

// AuthCounters counts AUTH chunks (RFC 4895) and the chunks dropped for
// want of a valid one.
type AuthCounters struct {
	Sent            uint64 // AUTH chunks sent
	Verified        uint64 // AUTH chunks received with a valid HMAC
	BadHMAC         uint64 // AUTH chunks with a wrong HMAC, or one of the wrong length (dropped with the chunks after them)
	UnknownKey      uint64 // AUTH chunks naming no shared key (dropped with the chunks after them)
	UnsupportedHMAC uint64 // AUTH chunks with an HMAC identifier not offered (ERROR sent, chunks dropped)
	Missing         uint64 // chunks of a type Config.Extensions.AuthChunks lists that came without a valid AUTH (dropped)
}

// ReconfCounters counts the RE-CONFIG exchange (RFC 6525).
type ReconfCounters struct {
	ChunksIn        uint64 // RE-CONFIG chunks processed
	ChunksOut       uint64 // RE-CONFIG chunks sent
	Retransmits     uint64 // our requests sent again (timer expiry)
	Pending         uint64 // "In progress" answers to our requests
	Stale           uint64 // responses matching no outstanding request
	DupRequests     uint64 // the peer's requests seen again (answered as before)
	BadSeq          uint64 // the peer's requests with a wrong sequence number
	BadStream       uint64 // the peer's requests naming a stream out of range
	Malformed       uint64 // malformed or unknown parameters (skipped)
	AnswersDropped  uint64 // responses not queued: too many owed at once
	StreamResetsOut uint64 // our outgoing stream resets performed by the peer
	StreamResetsIn  uint64 // incoming stream resets performed
	StreamsAddedOut uint64 // outbound streams added
	StreamsAddedIn  uint64 // inbound streams added

	AssocResetsOut     uint64 // our SSN/TSN Reset Requests performed by the peer
	AssocResetsIn      uint64 // the peer's SSN/TSN Reset Requests performed
	AssocResetsPending uint64 // the peer's SSN/TSN Reset Requests answered "In progress" (data outstanding)

	ResetListTooLong uint64 // the peer's Incoming SSN Reset Requests answered "Denied": our answering request would not fit in a packet
}

// ChunkCounts counts chunks by chunk type: index it with the 8-bit type
// (ChunksIn[chunk.TypeData]).
type ChunkCounts [256]uint64

// String returns the counts that are not zero, by chunk name, in type
// order: "[DATA:12 SACK:7]", so that a printed Stats stays one short line.
func (c ChunkCounts) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for t, n := range c {
		if n == 0 {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(' ')
		}
		b.WriteString(chunk.Type(t).String())
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(n, 10))
	}
	b.WriteByte(']')
	return b.String()
}
