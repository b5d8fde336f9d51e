package chunk

import (
	"bytes"
	"testing"
)

// TestRoundTrip encodes every chunk (and, inside them, every parameter and
// cause), walks and parses it, checks its fields through its text form, and
// re-encodes it with the typed encoders to the same bytes.
func TestRoundTrip(t *testing.T) {
	seen := map[Type]bool{}
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			if len(s.chunk)%4 != 0 {
				t.Fatalf("encoded length %d is not padded", len(s.chunk))
			}
			it := Chunks(s.chunk)
			c, ok := it.Next()
			if !ok {
				t.Fatalf("no chunk: %v", it.Err())
			}
			if _, more := it.Next(); more || it.Err() != nil {
				t.Fatalf("trailing data: %v", it.Err())
			}
			seen[c.Type] = true
			text, err := AppendText(nil, c)
			if err != nil {
				t.Fatalf("AppendText: %v (%s)", err, text)
			}
			if string(text) != s.text {
				t.Errorf("text\n got %s\nwant %s", text, s.text)
			}
			again, err := reencodeChunk(nil, c)
			if err != nil {
				t.Fatalf("reencode: %v", err)
			}
			if !bytes.Equal(again, s.chunk) {
				t.Errorf("reencoded\n got %x\nwant %x", again, s.chunk)
			}
		})
	}
	for ty := range 256 {
		if Type(ty).Known() && !seen[Type(ty)] {
			t.Errorf("no round-trip sample for %v", Type(ty))
		}
	}
}

// TestRoundTripCoversParamsAndCauses checks that the samples hold every
// parameter and cause this package knows.
func TestRoundTripCoversParamsAndCauses(t *testing.T) {
	params := map[ParamType]bool{}
	causes := map[CauseCode]bool{}
	var walkP func([]byte)
	var walkC func([]byte)
	walkP = func(b []byte) {
		it := Params(b)
		for p, ok := it.Next(); ok; p, ok = it.Next() {
			params[p.Type] = true
			if a, err := ParseASCONFParam(p); err == nil && a.Causes != nil {
				walkC(a.Causes)
			}
		}
	}
	walkC = func(b []byte) {
		it := Causes(b)
		for c, ok := it.Next(); ok; c, ok = it.Next() {
			causes[c.Code] = true
		}
	}
	for _, s := range samples() {
		it := Chunks(s.chunk)
		c, _ := it.Next()
		switch c.Type {
		case TypeInit, TypeInitAck:
			m, _ := ParseInit(c)
			walkP(m.Params)
		case TypeHeartbeat, TypeReconfig:
			walkP(c.Value)
		case TypeASCONF, TypeASCONFAck:
			a, _ := ParseASCONF(c)
			walkP(a.Params)
		case TypeError, TypeAbort:
			walkC(c.Value)
		}
	}
	for ty, name := range paramNames {
		if !params[ty] {
			t.Errorf("no sample for parameter %s", name)
		}
	}
	for code, name := range causeNames {
		if !causes[code] {
			t.Errorf("no sample for cause %s", name)
		}
	}
}

// TestPacketRoundTrip puts all samples in packets and checks the whole
// packet round trip, checksum included.
func TestPacketRoundTrip(t *testing.T) {
	for _, s := range samples() {
		pkt := samplePacket(s.chunk, AppendEmpty(nil, TypeCookieAck, 0))
		if _, err := VerifyChecksum(pkt, false); err != nil {
			t.Fatal(err)
		}
		again, err := reencodePacket(pkt)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !bytes.Equal(again, pkt) {
			t.Errorf("%s: packet differs after round trip", s.name)
		}
	}
}
