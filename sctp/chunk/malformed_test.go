package chunk

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// raw builds a chunk with the given type, flags and value, the length field
// set to 4+len(value) (or to length when it is not 0), and zero padding.
func raw(t Type, flags uint8, length int, value ...byte) []byte {
	if length == 0 {
		length = 4 + len(value)
	}
	b := []byte{byte(t), flags, 0, 0}
	binary.BigEndian.PutUint16(b[2:], uint16(length))
	b = append(b, value...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// rawParam builds a parameter or cause the same way.
func rawParam(t uint16, length int, value ...byte) []byte {
	if length == 0 {
		length = 4 + len(value)
	}
	b := binary.BigEndian.AppendUint16(nil, t)
	b = binary.BigEndian.AppendUint16(b, uint16(length))
	b = append(b, value...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

var initFixed = cat(u32(1), u32(1500), []byte{0, 1, 0, 1}, u32(1))

// TestMalformed is a table of malformed chunks and the error each gets
// when the packet holding it is parsed in depth (walk, typed parse of each
// chunk, each parameter and each cause).
func TestMalformed(t *testing.T) {
	cases := []struct {
		name   string
		chunks []byte
		want   error
	}{
		{"chunk header cut", []byte{0, 0, 0}, ErrTruncated},
		{"chunk length below 4", raw(TypeCookieAck, 0, 2), ErrBadLength},
		{"chunk length past the end", raw(TypeCookieEcho, 0, 100, 1, 2, 3, 4), ErrTruncated},
		{"partial padding", cat(raw(TypeCookieEcho, 0, 0, 1), []byte{})[:6], ErrBadPadding},
		{"DATA too short", raw(TypeData, 3, 0, make([]byte, 11)...), ErrBadLength},
		{"I-DATA too short", raw(TypeIData, 3, 0, make([]byte, 15)...), ErrBadLength},
		{"SACK too short", raw(TypeSack, 0, 0, make([]byte, 8)...), ErrBadLength},
		{"SACK gap count past the length", raw(TypeSack, 0, 0, cat(u32(1), u32(2), []byte{0, 2, 0, 0}, u32(0x00010002))...), ErrBadLength},
		{"SACK huge counts", raw(TypeSack, 0, 0, cat(u32(1), u32(2), []byte{0xff, 0xff, 0xff, 0xff})...), ErrBadLength},
		{"SACK bytes after the lists", raw(TypeSack, 0, 0, cat(u32(1), u32(2), []byte{0, 0, 0, 0}, u32(3))...), ErrBadLength},
		{"NR-SACK counts mismatch", raw(TypeNRSack, 0, 0, cat(u32(1), u32(2), []byte{0, 1, 0, 1, 0, 0, 0, 0}, u32(3))...), ErrBadLength},
		{"INIT too short", raw(TypeInit, 0, 0, initFixed[:15]...), ErrBadLength},
		{"INIT parameter length below 4", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamECNCapable), 3))...), ErrBadLength},
		{"INIT parameter past the chunk", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamStateCookie), 40, 1, 2, 3, 4))...), ErrTruncated},
		{"INIT IPv4 address of 3 bytes", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamIPv4Address), 0, 1, 2, 3))...), ErrBadLength},
		{"INIT IPv6 address of 4 bytes", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamIPv6Address), 0, 1, 2, 3, 4))...), ErrBadLength},
		{"INIT odd address types", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamSupportedAddressTypes), 0, 0, 5, 0))...), ErrBadLength},
		{"INIT ECN capable with value", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamECNCapable), 0, 1))...), ErrBadLength},
		{"INIT cookie preservative short", raw(TypeInit, 0, 0, cat(initFixed, rawParam(uint16(ParamCookiePreservative), 0, 1, 2))...), ErrBadLength},
		{"INIT-ACK unrecognized parameter with junk", raw(TypeInitAck, 0, 0, cat(initFixed, rawParam(uint16(ParamUnrecognizedParameter), 0, cat(rawParam(0x9999, 0), []byte{7})...))...), ErrBadLength},
		{"HEARTBEAT without info", raw(TypeHeartbeat, 0, 0), ErrBadValue},
		{"HEARTBEAT info past the chunk", raw(TypeHeartbeat, 0, 0, rawParam(uint16(ParamHeartbeatInfo), 12, 1, 2, 3, 4)...), ErrTruncated},
		{"SHUTDOWN short", raw(TypeShutdown, 0, 0, 1, 2), ErrBadLength},
		{"SHUTDOWN-ACK with value", raw(TypeShutdownAck, 0, 0, 1, 2, 3, 4), ErrBadLength},
		{"COOKIE-ACK with value", raw(TypeCookieAck, 0, 0, 1), ErrBadLength},
		{"ECNE long", raw(TypeECNE, 0, 0, make([]byte, 8)...), ErrBadLength},
		{"CWR empty", raw(TypeCWR, 0, 0), ErrBadLength},
		{"AUTH short", raw(TypeAuth, 0, 0, 1, 2), ErrBadLength},
		{"FORWARD-TSN partial entry", raw(TypeForwardTSN, 0, 0, 0, 0, 0, 1, 0, 1), ErrBadLength},
		{"I-FORWARD-TSN partial entry", raw(TypeIForwardTSN, 0, 0, cat(u32(1), u32(2))...), ErrBadLength},
		{"ABORT malformed cause", raw(TypeAbort, 0, 0, rawParam(uint16(CauseInvalidStream), 2)...), ErrBadLength},
		{"ERROR invalid stream short", raw(TypeError, 0, 0, rawParam(uint16(CauseInvalidStream), 0, 0, 1)...), ErrBadLength},
		{"ERROR missing params count", raw(TypeError, 0, 0, rawParam(uint16(CauseMissingParam), 0, cat(u32(3), []byte{0, 7})...)...), ErrBadLength},
		{"ERROR missing params huge count", raw(TypeError, 0, 0, rawParam(uint16(CauseMissingParam), 0, cat(u32(0xffffffff), []byte{0, 7})...)...), ErrBadLength},
		{"ERROR out of resource with value", raw(TypeError, 0, 0, rawParam(uint16(CauseOutOfResource), 0, 1)...), ErrBadLength},
		{"ERROR unrecognized chunk short", raw(TypeError, 0, 0, rawParam(uint16(CauseUnrecognizedChunk), 0, 1, 2)...), ErrBadLength},
		{"ERROR HMAC cause short", raw(TypeError, 0, 0, rawParam(uint16(CauseUnsupportedHMAC), 0, 1)...), ErrBadLength},
		{"RE-CONFIG empty", raw(TypeReconfig, 0, 0), ErrBadValue},
		{"RE-CONFIG three parameters", raw(TypeReconfig, 0, 0, cat(rawParam(uint16(ParamSSNTSNReset), 0, u32(1)...),
			rawParam(uint16(ParamSSNTSNReset), 0, u32(2)...), rawParam(uint16(ParamSSNTSNReset), 0, u32(3)...))...), ErrBadValue},
		{"RE-CONFIG response of 16", raw(TypeReconfig, 0, 0, rawParam(uint16(ParamReconfigResponse), 0, make([]byte, 12)...)...), ErrBadLength},
		{"RE-CONFIG outgoing reset short", raw(TypeReconfig, 0, 0, rawParam(uint16(ParamOutgoingSSNReset), 0, make([]byte, 8)...)...), ErrBadLength},
		{"RE-CONFIG outgoing reset odd streams", raw(TypeReconfig, 0, 0, rawParam(uint16(ParamOutgoingSSNReset), 0, make([]byte, 13)...)...), ErrBadLength},
		{"RE-CONFIG add streams short", raw(TypeReconfig, 0, 0, rawParam(uint16(ParamAddOutgoingStreams), 0, make([]byte, 6)...)...), ErrBadLength},
		{"ASCONF without address", raw(TypeASCONF, 0, 0, u32(1)...), ErrBadLength},
		{"ASCONF address not an address", raw(TypeASCONF, 0, 0, cat(u32(1), rawParam(uint16(ParamStateCookie), 0, 1, 2, 3, 4))...), ErrWrongType},
		{"ASCONF add-ip without address", raw(TypeASCONF, 0, 0, cat(u32(1), rawParam(5, 0, 1, 2, 3, 4), rawParam(uint16(ParamAddIPAddress), 0, u32(1)...))...), ErrBadLength},
		{"ASCONF-ACK success with junk", raw(TypeASCONFAck, 0, 0, cat(u32(1), rawParam(uint16(ParamSuccessIndication), 0, make([]byte, 8)...))...), ErrBadLength},
		{"ASCONF-ACK error indication bad cause", raw(TypeASCONFAck, 0, 0, cat(u32(1), rawParam(uint16(ParamErrorCauseIndication), 0, cat(u32(1), rawParam(1, 1))...))...), ErrBadLength},
		{"good chunk then bad", cat(raw(TypeCookieAck, 0, 0), raw(TypeShutdown, 0, 0)), ErrBadLength},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkt := cat(Header{Tag: 1}.Append(nil), c.chunks)
			_, err := textPacket(pkt)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Elem == "" {
				t.Errorf("error %v carries no context", err)
			}
		})
	}
}

func TestMalformedPacketLevel(t *testing.T) {
	if _, err := ParsePacket(make([]byte, 11)); !errors.Is(err, ErrTruncated) {
		t.Errorf("short packet: %v", err)
	}
	if _, err := VerifyChecksum(make([]byte, 5), false); !errors.Is(err, ErrTruncated) {
		t.Errorf("short packet checksum: %v", err)
	}
	pkt := samplePacket(AppendEmpty(nil, TypeCookieAck, 0))
	pkt[8]++
	if _, err := VerifyChecksum(pkt, true); !errors.Is(err, ErrBadChecksum) {
		t.Errorf("bad checksum: %v", err)
	}
	c := Chunk{Type: TypeSack, Value: make([]byte, 12)}
	if _, err := ParseData(c); !errors.Is(err, ErrWrongType) {
		t.Errorf("wrong type: %v", err)
	}
	if _, err := (&Data{Payload: make([]byte, MaxLen)}).Append(nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if _, err := AppendPad(nil, 3); !errors.Is(err, ErrBadValue) {
		t.Errorf("pad 3: %v", err)
	}
	b, start := BeginChunk(nil, TypeCookieEcho, 0)
	b = append(b, make([]byte, MaxLen)...)
	if b, err := EndChunk(b, start); !errors.Is(err, ErrTooLarge) || len(b) != 0 {
		t.Errorf("EndChunk too large: %v, len %d", err, len(b))
	}
}

// TestAbortWithMalformedCauses checks that an ABORT parses even when its
// causes do not: the association must still act on it.
func TestAbortWithMalformedCauses(t *testing.T) {
	c := Chunk{Type: TypeAbort, Flags: FlagT, Value: rawParam(1, 2)}
	a, err := ParseAbort(c)
	if err != nil || !a.T() {
		t.Fatalf("ParseAbort: %v", err)
	}
	it := a.Walk()
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	if !errors.Is(it.Err(), ErrBadLength) {
		t.Fatalf("walk: %v", it.Err())
	}
}

// TestUnknownChunksAreValues checks that unknown chunks of every action
// are yielded with their action bits, and that the chunks after them are
// still there.
func TestUnknownChunksAreValues(t *testing.T) {
	pkt := cat(raw(0x3e, 0, 0, 1), raw(0x7e, 0, 0), raw(0xbe, 0, 0, 1, 2, 3, 4, 5), raw(0xfe, 0, 0), AppendShutdown(nil, 9))
	it := Chunks(pkt)
	var acts []Action
	var last Chunk
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if !c.Type.Known() {
			acts = append(acts, c.Type.Action())
		}
		last = c
	}
	if it.Err() != nil || len(acts) != 4 || last.Type != TypeShutdown {
		t.Fatalf("acts %v last %v err %v", acts, last.Type, it.Err())
	}
	for i, a := range []Action{ActionStop, ActionStopReport, ActionSkip, ActionSkipReport} {
		if acts[i] != a {
			t.Errorf("chunk %d: action %v, want %v", i, acts[i], a)
		}
	}
	if ParamType(0x4001).Action() != ActionStopReport || ParamType(0xC0FE).Action() != ActionSkipReport {
		t.Error("parameter action bits")
	}
}

// TestTruncation parses every prefix of every sample packet: none panics,
// and a prefix parses without error only when it ends on a chunk boundary.
func TestTruncation(t *testing.T) {
	for _, s := range samples() {
		pkt := samplePacket(s.chunk, AppendShutdown(nil, 5))
		ok := map[int]bool{HeaderLen: true, HeaderLen + len(s.chunk): true, len(pkt): true}
		// The last chunk may lack its padding.
		ok[HeaderLen+int(binary.BigEndian.Uint16(s.chunk[2:]))] = true
		for k := range len(pkt) {
			cut := append([]byte(nil), pkt[:k]...)
			_, err := textPacket(cut)
			if (err == nil) != ok[k] {
				t.Errorf("%s: prefix %d of %d: err %v", s.name, k, len(pkt), err)
			}
		}
		// Cut inside the first chunk's padding, with it last.
		if l := int(binary.BigEndian.Uint16(s.chunk[2:])); l%4 != 0 {
			cut := append([]byte(nil), pkt[:HeaderLen+l]...)
			if _, err := textPacket(cut); err != nil {
				t.Errorf("%s: last chunk without padding: %v", s.name, err)
			}
			if l%4 < 3 {
				cut = append([]byte(nil), pkt[:HeaderLen+l+1]...)
				if _, err := textPacket(cut); !errors.Is(err, ErrBadPadding) {
					t.Errorf("%s: partial padding: %v", s.name, err)
				}
			}
		}
	}
}

// TestTextLinear checks that a cause full of spaces (the worst case of the
// text quoting) is printed in linear time.
func TestTextLinear(t *testing.T) {
	spaces := make([]byte, MaxLen-8)
	for i := range spaces {
		spaces[i] = ' '
	}
	c := Chunk{Type: TypeAbort, Value: must(AppendCause(nil, CauseProtocolViolation, spaces))}
	start := time.Now()
	text, err := AppendText(nil, c)
	if err != nil || len(text) < 4*len(spaces) {
		t.Fatalf("%v, %d bytes", err, len(text))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}
