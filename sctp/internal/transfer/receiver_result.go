package transfer

// Verdict is what Engine.HandleData did with a DATA chunk.
type Verdict uint8

// Verdicts of Engine.HandleData.
const (
	// Accepted: the chunk is new and was kept for delivery.
	Accepted Verdict = iota
	// Duplicate: the TSN was already received; the next SACK reports it.
	Duplicate
	// Dropped: no room (full receive window, or beyond the TSN map's
	// window); a SACK is due now.
	Dropped
	// InvalidStream: the stream id is outside the negotiated range. The TSN
	// counts as received and the association sends an ERROR "Invalid Stream
	// Identifier" (RFC 9260 section 6.5).
	InvalidStream
)

var verdictNames = [...]string{"accepted", "duplicate", "dropped", "invalid-stream"}

// String returns the verdict's name.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict?"
}

// RecvInfo describes the data returned by Engine.Read.
type RecvInfo struct {
	SID       uint16
	SSN       uint16
	PPID      uint32
	TSN       TSN  // TSN of the message's first fragment
	Unordered bool // the message was sent unordered
	// EOR reports that the read ended the message.
	EOR bool
	// MID is the message identifier (I-DATA only).
	MID uint32
	// Aborted (no data) reports that the partial delivery of this message
	// ended short: an (I-)FORWARD-TSN skipped it (RFC 6458
	// SCTP_PARTIAL_DELIVERY_ABORTED).
	Aborted bool
}
