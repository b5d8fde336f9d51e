package transfer

// What the receiver tells its caller: the verdict on each DATA chunk and
// the description of each read.

// Verdict is what Engine.HandleData did with a DATA chunk.
type Verdict uint8

// Verdicts of Engine.HandleData.
const (
	// Accepted: the chunk is new and was kept for delivery.
	Accepted Verdict = iota
	// Duplicate: the TSN was already received; it is reported in the next
	// SACK.
	Duplicate
	// Dropped: no room (receive window full, or the TSN lies beyond the
	// TSN map's window); the peer will retransmit it. A SACK is due now.
	Dropped
	// InvalidStream: the stream id is outside the negotiated range. The
	// TSN counts as received (RFC 9260 section 6.5: "it SHOULD acknowledge
	// the reception of the DATA chunk following the normal procedure,
	// immediately send an ERROR chunk with cause set to "Invalid Stream
	// Identifier" (see Section 3.3.10), and discard the DATA chunk."); the
	// association sends the ERROR.
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
	// EOR reports that the read ended the message (end of record); when
	// false, the next Read continues the same message.
	EOR bool
	// MID is the message identifier (I-DATA only). With I-DATA, parts of
	// messages of different streams in partial delivery may alternate
	// between reads: SID, Unordered and MID name the message of each part.
	MID uint32
	// Aborted (the read returns no data) reports that the partial
	// delivery of message (SID, Unordered, SSN or MID, TSN) ended without
	// its end (a FORWARD-TSN or I-FORWARD-TSN skipped it): the parts read so far are all there will be (RFC 6458
	// SCTP_PARTIAL_DELIVERY_ABORTED).
	Aborted bool
}
