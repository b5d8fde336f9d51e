package transfer

import "github.com/usctp/usctp/sctp/chunk"

// Sizes and flags of the DATA and SACK chunks (RFC 9260 section 3.3).
const (
	dataHeaderLen = chunk.DataHeaderLen
	sackHeaderLen = 16

	flagEnd       = chunk.FlagEnd
	flagBegin     = chunk.FlagBeginning
	flagUnordered = chunk.FlagUnordered
	flagImmediate = chunk.FlagImmediate
)

// FlagEnd, FlagBegin, FlagUnordered and FlagImmediate are the DATA chunk
// flags (RFC 9260 section 3.3.1) as they appear in Data.Flags.
const (
	FlagEnd       = flagEnd
	FlagBegin     = flagBegin
	FlagUnordered = flagUnordered
	FlagImmediate = flagImmediate
)

func pad4(n int) int { return (n + 3) &^ 3 }
