package assoc

import (
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
	ChunksIn  [256]uint64
	ChunksOut [256]uint64

	// Path values of the primary path (zero for an endpoint snapshot).
	SRTT time.Duration
	RTO  time.Duration
	Cwnd uint32
	// PLPMTU is the primary path's largest SCTP packet (its PLPMTU with
	// path MTU discovery), also after the association ended.
	PLPMTU int

	// The association's queues now (zero for an endpoint snapshot), as
	// Linux's SCTP_STATUS reports them: DATA chunks sent and not yet
	// acknowledged (sstat_unackdata), bytes of messages in the send
	// buffer (queued or unacknowledged), and bytes received and held:
	// waiting for reassembly or ordering, or ready to be read.
	Unacked      int
	SendBuffered int
	RecvBuffered int
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
	MemoryRefused  uint64 // valid COOKIE ECHOs refused: the memory budget is nearly spent
	BacklogDropped uint64 // valid COOKIE ECHOs dropped: Backlog associations not accepted yet
	RateLimited    uint64 // out-of-the-blue packets left unanswered by the INIT rate limit
	Retransmits    uint64 // DATA chunks retransmitted (transfer engine)
	FastRetransmit uint64 // fast retransmissions (transfer engine)
	T3Expiries     uint64 // T3-rtx expirations (transfer engine)
	NoticesIn      uint64 // ICMP errors matched to an association (RFC 9260 appendix C)
	NoticesDropped uint64 // ICMP errors dropped: no association, or a tag that does not match
	// PeerAddrsIgnored counts addresses in a peer's INIT or INIT ACK that
	// were not recorded: beyond the bound of maxPeerAddrs, or addresses
	// the peer cannot own (unspecified, multicast, broadcast, or loopback
	// listed by a peer that is not on a loopback address).
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
	PRAbandoned              [4]uint64
	PRAbandonedBytes         [4]uint64
	PRAbandonedUnsent        uint64 // abandoned messages never sent (no TSN used)
	ForwardTSNsOut           uint64 // FORWARD-TSN and I-FORWARD-TSN chunks sent
	ForwardTSNsIn            uint64 // FORWARD-TSN and I-FORWARD-TSN chunks received
	ForwardTSNsInvalid       uint64 // received ones discarded (stream out of range, beyond the TSN window)
	IDataMIDRefused          uint64 // I-DATA refused (ABORT) for an ordered MID it cannot place (transfer engine)
	PartialDeliveriesAborted uint64 // messages whose partial delivery a FORWARD-TSN ended

	// ECN (RFC 9260 appendix A): packets with DATA received with the CE
	// codepoint, ECNE chunks sent and received, window reductions the
	// ECNEs caused (at most one per window of data per path), and CWR
	// chunks sent and received.
	ECNMarks      uint64
	ECNEchoesOut  uint64
	ECNEchoesIn   uint64
	ECNReductions uint64
	CWRsOut       uint64
	CWRsIn        uint64
	// Path MTU discovery (RFC 8899, pmtu.go): probes sent, acknowledged
	// and lost; PLPMTU increases and decreases; black-hole suspicions
	// (a T3-rtx expiry above BASE_PLPMTU); Packet Too Big reports used as
	// hints, and those ignored (a quote that names no outstanding TSN or
	// probe, a size below BASE_PLPMTU or not below the quoted packet).
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

	// Our requests (AddLocalAddr, RemoveLocalAddr, SetPeerPrimary).
	Sent        uint64 // ASCONF chunks sent, retransmissions included
	Retransmits uint64 // ASCONF retransmission timer expiries
	AcksIn      uint64 // requests answered by the peer's ASCONF-ACK
	StaleAcks   uint64 // ASCONF-ACKs matching no outstanding ASCONF (dropped)
}

func (s *ASCONFCounters) add(o *ASCONFCounters) {
	s.In += o.In
	s.Retransmitted += o.Retransmitted
	s.BadSerial += o.BadSerial
	s.Malformed += o.Malformed
	s.Refused += o.Refused
	s.AddrsAdded += o.AddrsAdded
	s.AddrsDeleted += o.AddrsDeleted
	s.AcksOut += o.AcksOut
	s.Sent += o.Sent
	s.Retransmits += o.Retransmits
	s.AcksIn += o.AcksIn
	s.StaleAcks += o.StaleAcks
}

// AuthCounters counts AUTH chunks (RFC 4895) and what was dropped for want
// of one.
type AuthCounters struct {
	Sent            uint64 // AUTH chunks sent
	Verified        uint64 // AUTH chunks received with a valid HMAC
	BadHMAC         uint64 // AUTH chunks whose HMAC was wrong or of the wrong length (dropped with the chunks after them)
	UnknownKey      uint64 // AUTH chunks naming no shared key (dropped with the chunks after them)
	UnsupportedHMAC uint64 // AUTH chunks with a HMAC identifier we did not offer (ERROR sent, chunks dropped)
	Missing         uint64 // chunks of a type we require authenticated that came without a valid AUTH (dropped)
}

func (s *AuthCounters) add(o *AuthCounters) {
	s.Sent += o.Sent
	s.Verified += o.Verified
	s.BadHMAC += o.BadHMAC
	s.UnknownKey += o.UnknownKey
	s.UnsupportedHMAC += o.UnsupportedHMAC
	s.Missing += o.Missing
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

func (s *ReconfCounters) add(o *ReconfCounters) {
	s.ChunksIn += o.ChunksIn
	s.ChunksOut += o.ChunksOut
	s.Retransmits += o.Retransmits
	s.Pending += o.Pending
	s.Stale += o.Stale
	s.DupRequests += o.DupRequests
	s.BadSeq += o.BadSeq
	s.BadStream += o.BadStream
	s.Malformed += o.Malformed
	s.AnswersDropped += o.AnswersDropped
	s.StreamResetsOut += o.StreamResetsOut
	s.StreamResetsIn += o.StreamResetsIn
	s.StreamsAddedOut += o.StreamsAddedOut
	s.StreamsAddedIn += o.StreamsAddedIn
	s.AssocResetsOut += o.AssocResetsOut
	s.AssocResetsIn += o.AssocResetsIn
	s.AssocResetsPending += o.AssocResetsPending
	s.ResetListTooLong += o.ResetListTooLong
}

// add adds the counters of o to s (for an endpoint total); path values are
// not added.
func (s *Stats) add(o *Stats) {
	s.Counters.add(&o.Counters)
	for i := range s.ChunksIn {
		s.ChunksIn[i] += o.ChunksIn[i]
		s.ChunksOut[i] += o.ChunksOut[i]
	}
}

// add adds the counters of o to s.
func (s *Counters) add(o *Counters) {
	s.PacketsIn += o.PacketsIn
	s.PacketsOut += o.PacketsOut
	s.BytesIn += o.BytesIn
	s.BytesOut += o.BytesOut
	s.Malformed += o.Malformed
	s.BadChecksum += o.BadChecksum
	s.BadVTag += o.BadVTag
	s.OOTB += o.OOTB
	s.CookieBadMAC += o.CookieBadMAC
	s.CookieStale += o.CookieStale
	s.CookieMismatch += o.CookieMismatch
	s.Ignored += o.Ignored
	s.UnknownChunks += o.UnknownChunks
	s.Violations += o.Violations
	s.InitsIn += o.InitsIn
	s.HandshakeRetx += o.HandshakeRetx
	s.ShutdownRetx += o.ShutdownRetx
	s.HeartbeatsOut += o.HeartbeatsOut
	s.HeartbeatAcks += o.HeartbeatAcks
	s.HeartbeatsIn += o.HeartbeatsIn
	s.AbortsOut += o.AbortsOut
	s.AbortsIn += o.AbortsIn
	s.ErrorsOut += o.ErrorsOut
	s.ErrorsIn += o.ErrorsIn
	s.Restarts += o.Restarts
	s.AssocsUp += o.AssocsUp
	s.AssocsDown += o.AssocsDown
	s.AssocsFailed += o.AssocsFailed
	s.AssocsRefused += o.AssocsRefused
	s.MemoryRefused += o.MemoryRefused
	s.BacklogDropped += o.BacklogDropped
	s.RateLimited += o.RateLimited
	s.Retransmits += o.Retransmits
	s.FastRetransmit += o.FastRetransmit
	s.T3Expiries += o.T3Expiries
	s.PeerAddrsIgnored += o.PeerAddrsIgnored
	s.PathsConfirmed += o.PathsConfirmed
	s.PathFailovers += o.PathFailovers
	s.UnknownSource += o.UnknownSource
	s.RestartsRefused += o.RestartsRefused
	s.FastRecoveries += o.FastRecoveries
	s.RepeatFastRetransmits += o.RepeatFastRetransmits
	s.Probes += o.Probes
	s.SpuriousRetransmits += o.SpuriousRetransmits
	s.RTOUndos += o.RTOUndos
	s.NoticesIn += o.NoticesIn
	s.NoticesDropped += o.NoticesDropped
	s.Reconf.add(&o.Reconf)
	s.Auth.add(&o.Auth)
	s.ASCONF.add(&o.ASCONF)
	for p := range s.PRAbandoned {
		s.PRAbandoned[p] += o.PRAbandoned[p]
		s.PRAbandonedBytes[p] += o.PRAbandonedBytes[p]
	}
	s.PRAbandonedUnsent += o.PRAbandonedUnsent
	s.ForwardTSNsOut += o.ForwardTSNsOut
	s.ForwardTSNsIn += o.ForwardTSNsIn
	s.ForwardTSNsInvalid += o.ForwardTSNsInvalid
	s.IDataMIDRefused += o.IDataMIDRefused
	s.PartialDeliveriesAborted += o.PartialDeliveriesAborted
	s.ECNMarks += o.ECNMarks
	s.ECNEchoesOut += o.ECNEchoesOut
	s.ECNEchoesIn += o.ECNEchoesIn
	s.ECNReductions += o.ECNReductions
	s.CWRsOut += o.CWRsOut
	s.CWRsIn += o.CWRsIn
	s.PMTUProbes += o.PMTUProbes
	s.PMTUProbeAcks += o.PMTUProbeAcks
	s.PMTUProbesLost += o.PMTUProbesLost
	s.PMTUIncreases += o.PMTUIncreases
	s.PMTUDecreases += o.PMTUDecreases
	s.PMTUBlackHoles += o.PMTUBlackHoles
	s.PTBUsed += o.PTBUsed
	s.PTBIgnored += o.PTBIgnored
	s.EncapsPortMoves += o.EncapsPortMoves
}

// chunkKinds numbers the chunk types this stack knows, for the compact
// per-association counts; other types count at the endpoint.
var (
	chunkKindOf [256]uint8   // type -> kind+1, 0 for unknown types
	kindType    []chunk.Type // kind -> type
)

func init() {
	for _, t := range []chunk.Type{chunk.TypeData, chunk.TypeInit, chunk.TypeInitAck, chunk.TypeSack,
		chunk.TypeHeartbeat, chunk.TypeHeartbeatAck, chunk.TypeAbort, chunk.TypeShutdown, chunk.TypeShutdownAck,
		chunk.TypeError, chunk.TypeCookieEcho, chunk.TypeCookieAck, chunk.TypeECNE, chunk.TypeCWR,
		chunk.TypeShutdownComplete, chunk.TypeAuth, chunk.TypeNRSack, chunk.TypeIData, chunk.TypeASCONFAck,
		chunk.TypeReconfig, chunk.TypePad, chunk.TypeForwardTSN, chunk.TypeASCONF, chunk.TypeIForwardTSN} {
		kindType = append(kindType, t)
		chunkKindOf[t] = uint8(len(kindType))
	}
}

const numChunkKinds = 24

// chunkCounts counts an association's chunks by known type.
type chunkCounts struct {
	in, out [numChunkKinds]uint64
}

// expand adds the counts to the per-type arrays of s.
func (c *chunkCounts) expand(s *Stats) {
	for k, t := range kindType {
		s.ChunksIn[t] += c.in[k]
		s.ChunksOut[t] += c.out[k]
	}
}
