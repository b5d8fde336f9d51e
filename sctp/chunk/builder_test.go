package chunk

import (
	"testing"
)

func TestBuilder(t *testing.T) {
	buf := make([]byte, 0, 1500)
	var pb Builder
	pb.Reset(buf, 1480, Header{SrcPort: 1, DstPort: 2, Tag: 3})
	if !pb.Empty() || pb.Room() != 1480-HeaderLen {
		t.Fatalf("fresh builder: room %d", pb.Room())
	}
	if !pb.AddSack(10, 1000, []GapBlock{{2, 3}}, nil) {
		t.Fatal("SACK does not fit")
	}
	d := Data{Flags: FlagBeginning | FlagEnd, TSN: 11, Payload: make([]byte, 1401)}
	if !pb.AddData(&d) {
		t.Fatal("DATA does not fit")
	}
	room := pb.Room()
	d.Payload = d.Payload[:room-DataHeaderLen+1] // one byte too many
	if pb.AddData(&d) || pb.Room() != room {
		t.Fatal("DATA that does not fit was written")
	}
	d.Payload = d.Payload[:room-DataHeaderLen-3] // pads to exactly room
	if !pb.AddData(&d) || pb.Room() != 0 {
		t.Fatalf("exact fit: room %d", pb.Room())
	}
	if pb.AddChunk(Chunk{Type: TypeCookieAck}) || pb.AddEncoded([]byte{1}) {
		t.Fatal("added to a full packet")
	}
	pkt := pb.Finish(false)
	if len(pkt) != 1480 || &pkt[0] != &buf[:1][0] {
		t.Fatalf("packet of %d bytes, or not in the caller's buffer", len(pkt))
	}
	if _, err := VerifyChecksum(pkt, false); err != nil {
		t.Fatal(err)
	}
	text, err := textPacket(pkt)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(text)
	if n := testing.AllocsPerRun(100, func() {
		pb.Reset(buf, 1480, Header{})
		pb.AddSack(1, 2, benchGap, benchDup)
		d.Payload = d.Payload[:1000]
		pb.AddData(&d)
		pb.Finish(true)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
