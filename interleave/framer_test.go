package interleave

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// RFC 9260 section 6.5: "The Stream Sequence Number in all the outgoing
// streams MUST start from 0 when the association is established. The
// Stream Sequence Number of an outgoing stream MUST be incremented by 1 for
// each ordered user message sent on that outgoing stream. In particular,
// when the Stream Sequence Number reaches the value 65535, the next Stream
// Sequence Number MUST be set to 0. For unordered user messages, the Stream
// Sequence Number MUST NOT be changed."
func TestDataFramerSSN(t *testing.T) {
	tab := stream.NewTable[struct{}, struct{}](3, 3)
	f := NewDataFramer(tab)
	if f.NewMessage(2, false) != 0 || f.NewMessage(2, false) != 1 || f.NewMessage(1, false) != 0 {
		t.Fatal("SSNs do not start at 0 per stream")
	}
	if f.NewMessage(2, true) != 0 || f.NewMessage(2, false) != 2 {
		t.Fatal("an unordered message changed the SSN")
	}
	tab.Out(0).MID = 65535
	if f.NewMessage(0, false) != 65535 || f.NewMessage(0, false) != 0 {
		t.Fatal("SSN does not wrap from 65535 to 0")
	}
	if f.NewMessage(7, false) != 0 {
		t.Fatal("stream outside the table")
	}
}

func TestDataFramerAppend(t *testing.T) {
	f := NewDataFramer(stream.NewTable[struct{}, struct{}](1, 1))
	b := f.Append(nil, OutFrag{TSN: 9, PPID: 51, MID: 3, SID: 0, Flags: chunk.FlagBeginning, Payload: []byte("abcde")})
	if len(b) != 24 || f.HeaderLen() != 16 {
		t.Fatalf("chunk of %d bytes, want 16+5 padded to 24", len(b))
	}
	it := chunk.Chunks(b)
	c, _ := it.Next()
	d, err := chunk.ParseData(c)
	if err != nil || d.TSN != 9 || d.SSN != 3 || d.PPID != 51 || d.Flags != chunk.FlagBeginning || string(d.Payload) != "abcde" {
		t.Fatalf("parsed %+v %v", d, err)
	}
}
