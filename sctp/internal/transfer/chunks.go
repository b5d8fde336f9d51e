package transfer

// The engine's view of the DATA and SACK chunks it receives.

import "github.com/usctp/usctp/sctp/chunk"

// Data is a received DATA chunk as the codec parsed it (chunk.ParseData).
// Payload aliases the packet buffer: the engine copies what it keeps.
type Data = chunk.Data

// GapBlock is one Gap Ack Block of a SACK: TSNs CumTSNAck+Start through
// CumTSNAck+End were received.
type GapBlock = chunk.GapBlock

// SACK is a received SACK chunk as the engine sees it. Gaps and Dups alias
// caller memory the engine does not keep; SetFrom fills them from a parsed
// chunk.Sack, reusing their backing arrays.
type SACK struct {
	CumTSNAck TSN
	ARwnd     uint32
	Gaps      []GapBlock
	Dups      []TSN
}

// SetFrom fills s from a parsed SACK chunk, reusing s's backing arrays.
func (s *SACK) SetFrom(c *chunk.Sack) {
	s.CumTSNAck, s.ARwnd = c.CumTSN, c.ARwnd
	s.Gaps, s.Dups = s.Gaps[:0], s.Dups[:0]
	for i := range c.Gaps.Len() {
		s.Gaps = append(s.Gaps, c.Gaps.At(i))
	}
	for i := range c.Dups.Len() {
		s.Dups = append(s.Dups, c.Dups.At(i))
	}
}
