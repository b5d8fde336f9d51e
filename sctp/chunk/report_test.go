package chunk

import (
	"bytes"
	"testing"
)

// TestReportUnknown builds the reports RFC 9260 sections 3.2 and 3.2.1 ask
// for and parses them back.
func TestReportUnknown(t *testing.T) {
	unk := Chunk{Type: 0x7f, Flags: 3, Value: []byte{1, 2, 3, 4, 5}}
	b, err := AppendUnrecognizedChunkCause(nil, unk)
	if err != nil {
		t.Fatal(err)
	}
	it := Causes(b)
	c, ok := it.Next()
	if !ok || c.Code != CauseUnrecognizedChunk || c.Len() != 4+unk.Len() {
		t.Fatalf("cause %+v: %v", c, it.Err())
	}
	got, err := c.Chunk()
	if err != nil || got.Type != unk.Type || got.Flags != unk.Flags || !bytes.Equal(got.Value, unk.Value) {
		t.Fatalf("chunk %+v: %v", got, err)
	}

	p1 := Param{Type: 0x4321, Value: []byte{9}}
	p2 := Param{Type: 0xc123, Value: []byte{1, 2, 3, 4}}
	b, err = AppendUnrecognizedParamsCause(nil, p1, p2)
	if err != nil {
		t.Fatal(err)
	}
	it = Causes(b)
	c, _ = it.Next()
	pi := c.Params()
	q1, _ := pi.Next()
	q2, _ := pi.Next()
	if q1.Type != p1.Type || q2.Type != p2.Type || !bytes.Equal(q2.Value, p2.Value) || pi.Err() != nil {
		t.Fatalf("params %+v %+v: %v", q1, q2, pi.Err())
	}

	b, err = AppendUnrecognizedParam(nil, p1)
	if err != nil {
		t.Fatal(err)
	}
	pit := Params(b)
	outer, _ := pit.Next()
	inner, err := outer.Inner()
	if outer.Type != ParamUnrecognizedParameter || err != nil || inner.Type != p1.Type || !bytes.Equal(inner.Value, p1.Value) {
		t.Fatalf("unrecognized parameter %+v / %+v: %v", outer, inner, err)
	}
}
