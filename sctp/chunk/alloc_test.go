package chunk

import (
	"testing"
)

var (
	sinkTSN  TSN
	sinkInt  int
	benchGap = []GapBlock{{2, 5}, {8, 9}, {12, 20}, {25, 25}}
	benchDup = []TSN{90, 91}
)

func dataPacket(payload []byte) []byte {
	b := Header{SrcPort: 9899, DstPort: 9899, Tag: 0xcafe}.Append(make([]byte, 0, 1500))
	b, _ = (&Data{Flags: FlagBeginning | FlagEnd, TSN: 1000, SID: 3, SSN: 4, PPID: 51, Payload: payload}).Append(b)
	SetChecksum(b)
	return b
}

func sackPacket() []byte {
	b := Header{SrcPort: 9899, DstPort: 9899, Tag: 0xcafe}.Append(make([]byte, 0, 1500))
	b, _ = AppendSack(b, 5000, 1<<20, benchGap, benchDup)
	SetChecksum(b)
	return b
}

// parseDataPacket is the receive path for a DATA packet: checksum, header,
// walk, parse.
func parseDataPacket(pkt []byte) (n int) {
	if _, err := VerifyChecksum(pkt, false); err != nil {
		panic(err)
	}
	p, err := ParsePacket(pkt)
	if err != nil {
		panic(err)
	}
	it := p.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		d, err := ParseData(c)
		if err != nil {
			panic(err)
		}
		n += len(d.Payload)
		sinkTSN = d.TSN
	}
	return n
}

func parseSackPacket(pkt []byte) (n int) {
	p, err := ParsePacket(pkt)
	if err != nil {
		panic(err)
	}
	it := p.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		s, err := ParseSack(c)
		if err != nil {
			panic(err)
		}
		for i := range s.Gaps.Len() {
			g := s.Gaps.At(i)
			n += int(g.End - g.Start)
		}
		for i := range s.Dups.Len() {
			sinkTSN = s.Dups.At(i)
		}
	}
	return n
}

func encodeDataPacket(buf, payload []byte) []byte {
	b := Header{SrcPort: 9899, DstPort: 9899, Tag: 0xcafe}.Append(buf[:0])
	d := Data{Flags: FlagBeginning | FlagEnd, TSN: 1000, SID: 3, SSN: 4, PPID: 51, Payload: payload}
	b, err := d.Append(b)
	if err != nil {
		panic(err)
	}
	SetChecksum(b)
	return b
}

func encodeSackPacket(buf []byte) []byte {
	b := Header{SrcPort: 9899, DstPort: 9899, Tag: 0xcafe}.Append(buf[:0])
	b, err := AppendSack(b, 5000, 1<<20, benchGap, benchDup)
	if err != nil {
		panic(err)
	}
	SetChecksum(b)
	return b
}

// TestNoAllocs enforces zero allocations per parsed and per encoded DATA
// and SACK packet.
func TestNoAllocs(t *testing.T) {
	payload := make([]byte, 1452)
	dpkt, spkt := dataPacket(payload), sackPacket()
	buf := make([]byte, 0, 1500)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"parse DATA", func() { sinkInt = parseDataPacket(dpkt) }},
		{"parse SACK", func() { sinkInt = parseSackPacket(spkt) }},
		{"encode DATA", func() { sinkInt = len(encodeDataPacket(buf, payload)) }},
		{"encode SACK", func() { sinkInt = len(encodeSackPacket(buf)) }},
		{"re-encode parsed SACK", func() {
			p, _ := ParsePacket(spkt)
			it := p.Walk()
			c, _ := it.Next()
			s, _ := ParseSack(c)
			b, _ := s.Append(buf[:0])
			sinkInt = len(b)
		}},
		{"I-DATA round trip", func() {
			d := IData{Flags: FlagBeginning, TSN: 1, SID: 2, MID: 3, PPID: 4, Payload: payload[:1000]}
			b, _ := d.Append(buf[:0])
			it := Chunks(b)
			c, _ := it.Next()
			e, _ := ParseIData(c)
			sinkTSN = e.TSN
		}},
	} {
		if n := testing.AllocsPerRun(100, c.f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, n)
		}
	}
}
