package chunk

import (
	"bytes"
	"testing"
)

// seedPackets returns valid packets: every sample alone, and a few
// realistic multi-chunk packets (bundled SACK and DATA, COOKIE-ECHO with
// DATA, I-DATA fragments, a PMTU probe of HEARTBEAT and PAD).
func seedPackets() [][]byte {
	var out [][]byte
	for _, s := range samples() {
		out = append(out, samplePacket(s.chunk))
	}
	ss := map[string][]byte{}
	for _, s := range samples() {
		ss[s.name] = s.chunk
	}
	out = append(out,
		samplePacket(ss["SACK"], ss["DATA"], ss["DATA"]),
		samplePacket(ss["COOKIE-ECHO"], ss["DATA"]),
		samplePacket(ss["I-DATA-first"], ss["I-DATA-middle"], ss["I-FORWARD-TSN"]),
		samplePacket(ss["HEARTBEAT"], ss["PAD"]),
		samplePacket(ss["AUTH"], ss["ASCONF"]),
		samplePacket(ss["unknown-skip"], ss["SHUTDOWN"], ss["unknown-stop"]),
	)
	return out
}

// FuzzPacket checks that parsing never panics, and that parse then encode
// then parse is stable: a packet that parses in depth re-encodes, the
// re-encoding describes the same chunks, and re-encoding it again changes
// nothing.
func FuzzPacket(f *testing.F) {
	for _, p := range seedPackets() {
		f.Add(p)
	}
	for _, p := range kernelPackets(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		VerifyChecksum(pkt, true)
		text, err := textPacket(pkt)
		if err != nil {
			return
		}
		again, err := reencodePacket(pkt)
		if err != nil {
			t.Fatalf("parsed but did not re-encode: %v\n%s", err, text)
		}
		text2, err := textPacket(again)
		if err != nil {
			t.Fatalf("re-encoding does not parse: %v", err)
		}
		if text != text2 {
			t.Fatalf("text changed\nbefore %s\nafter  %s", text, text2)
		}
		third, err := reencodePacket(again)
		if err != nil || !bytes.Equal(third, again) {
			t.Fatalf("re-encoding is not stable: %v\n%x\n%x", err, again, third)
		}
	})
}

// FuzzParams runs the parameter walker and every typed parameter parser
// over arbitrary bytes.
func FuzzParams(f *testing.F) {
	f.Add(initParams())
	f.Add(initAckParams())
	f.Add(asconfParams())
	f.Add(asconfAckParams())
	f.Add(allCauses())
	f.Fuzz(func(t *testing.T, b []byte) {
		it := Params(b)
		for p, ok := it.Next(); ok; p, ok = it.Next() {
			p.Addr()
			p.Uint32()
			p.Uint16s()
			p.Inner()
			p.HostName()
			p.Empty()
			ParseASCONFParam(p)
			ParseReconfigParam(p)
			reencodeParam(nil, p)
		}
		ci := Causes(b)
		for c, ok := ci.Next(); ok; c, ok = ci.Next() {
			c.StreamID()
			c.MissingParams()
			c.Uint32()
			c.HMACID()
			c.Chunk()
			reencodeCause(nil, c)
		}
		if err := ValidateParams(b); err == nil {
			if n := listLen(b); n > len(b) || n < len(b)-3 {
				t.Fatalf("listLen %d of %d", n, len(b))
			}
		}
	})
}
