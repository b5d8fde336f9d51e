package assoc

import (
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// addASCONF adds the counters of o to s.
func addASCONF(s, o *api.ASCONFCounters) {
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

// addAuth adds the counters of o to s.
func addAuth(s, o *api.AuthCounters) {
	s.Sent += o.Sent
	s.Verified += o.Verified
	s.BadHMAC += o.BadHMAC
	s.UnknownKey += o.UnknownKey
	s.UnsupportedHMAC += o.UnsupportedHMAC
	s.Missing += o.Missing
}

// addReconf adds the counters of o to s.
func addReconf(s, o *api.ReconfCounters) {
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

// addStats adds the counters of o to s (for an endpoint total); path
// values are not added.
func addStats(s, o *api.Stats) {
	addCounters(&s.Counters, &o.Counters)
	for i := range s.ChunksIn {
		s.ChunksIn[i] += o.ChunksIn[i]
		s.ChunksOut[i] += o.ChunksOut[i]
	}
}

// addCounters adds the counters of o to s.
func addCounters(s, o *api.Counters) {
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
	addReconf(&s.Reconf, &o.Reconf)
	addAuth(&s.Auth, &o.Auth)
	addASCONF(&s.ASCONF, &o.ASCONF)
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
func (c *chunkCounts) expand(s *api.Stats) {
	for k, t := range kindType {
		s.ChunksIn[t] += c.in[k]
		s.ChunksOut[t] += c.out[k]
	}
}
