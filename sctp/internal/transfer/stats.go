package transfer

// Stats counts what the engine did. All counters only grow.
type Stats struct {
	// Sending.
	MessagesQueued uint64
	DataPackets    uint64 // packets AppendData put DATA into
	DataChunksSent uint64 // new DATA chunks (not retransmissions)
	BytesSent      uint64 // user bytes in new DATA chunks
	BytesAcked     uint64 // bytes of DATA chunks (headers included) newly acknowledged
	Retransmits    uint64 // DATA chunks retransmitted (all causes)
	FastRetransmit uint64 // of which by fast retransmit
	FastRecoveries uint64 // entries into fast recovery
	T3Expiries     uint64
	// RetransmitsMoved: retransmissions sent on another path (6.4.1).
	RetransmitsMoved uint64
	// RepeatFastRetransmits: chunks lost again after retransmission (RACK);
	// SpuriousRetransmits: duplicates reported of chunks sent more than
	// once; RTOUndos: back-offs ended by new acknowledgements.
	RepeatFastRetransmits uint64
	Probes                uint64
	SpuriousRetransmits   uint64
	RTOUndos              uint64
	ZeroWindowProbes      uint64
	CwndLimited           uint64 // AppendData stopped by cwnd
	RwndLimited           uint64 // AppendData stopped by the peer's window
	SACKsReceived         uint64
	SACKsStale            uint64 // ignored: older than the cumulative ack point
	SACKsInvalid          uint64 // protocol violations (unsent TSNs, bad blocks)
	DupTSNsReported       uint64 // duplicate TSNs the peer reported
	Reneged               uint64 // gap-acked chunks the peer reneged on
	RTTSamples            uint64

	// Partial reliability (RFC 3758, RFC 7496), indexed by PRPolicy like
	// Linux's SCTP_PR_ASSOC_STATUS.
	PRAbandoned       [numPolicies]uint64 // messages abandoned
	PRAbandonedBytes  [numPolicies]uint64 // their user bytes
	PRAbandonedUnsent uint64              // of which never given a TSN
	AbandonedChunks   uint64              // DATA chunks abandoned after being sent
	ForwardTSNsOut    uint64

	// Receiving.
	DataPacketsReceived      uint64 // packets that carried new DATA
	DataChunksReceived       uint64
	BytesReceived            uint64 // user bytes accepted
	DupTSNs                  uint64 // duplicate DATA chunks received
	DroppedWindow            uint64 // dropped: receive window full
	DroppedRange             uint64 // dropped: TSN beyond the TSN map's window
	DroppedReneged           uint64 // held chunks dropped to make room for a hole filler
	PartialOverrun           uint64 // partial-delivery fragments accepted over a full window
	InvalidStream            uint64 // DATA for a stream outside the range
	EmptyData                uint64 // DATA without user data
	SACKsSent                uint64
	WindowUpdates            uint64 // SACKs sent because reading opened the window
	MessagesDelivered        uint64
	PartialDeliveries        uint64 // messages delivered in parts before complete
	ForwardTSNsIn            uint64 // FORWARD-TSN and I-FORWARD-TSN chunks received
	ForwardTSNsStale         uint64 // of which at or behind the cumulative TSN
	ForwardTSNsInvalid       uint64 // discarded: stream out of range or TSN beyond the window
	PartialDeliveriesAborted uint64 // partial deliveries ended by a FORWARD-TSN
	ReconfHeld               uint64 // fragments held for a deferred stream reset (RFC 6525)
	// IDataMIDRefused counts I-DATA chunks refused for an ordered MID
	// already delivered or 2^31 or more ahead.
	IDataMIDRefused uint64

	// ECN (RFC 9260 appendix A), sending side: ECNE chunks received and the
	// window reductions they caused.
	ECNEchoes     uint64
	ECNReductions uint64

	// RecvBufferGrowths counts the receive buffer's autotuning steps.
	RecvBufferGrowths uint64
}
