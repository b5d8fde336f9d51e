package chunk

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// RFC 9260 section 3.2: "The Chunk Length field does not count any chunk
// padding. However, it does include any padding of variable-length
// parameters other than the last parameter in the chunk." ... "A robust
// implementation is expected to accept the chunk whether or not the final
// padding has been included in the Chunk Length."
//
// An INIT whose last parameter (Supported Extensions with three chunk
// types: 7 bytes) needs one byte of padding is written without it in the
// length, then read back both ways: as written, and with a length that
// counts the padding. Both give the same parameters.
func TestFinalPaddingEitherWay(t *testing.T) {
	params := AppendUint32Param(nil, ParamCookiePreservative, 1000)
	params, err := AppendParam(params, ParamSupportedExtensions, []byte{byte(TypeReconfig), byte(TypeForwardTSN), byte(TypeIData)})
	if err != nil {
		t.Fatal(err)
	}
	m := Init{Tag: 7, ARwnd: 1 << 20, OutStreams: 10, InStreams: 10, InitialTSN: 1, Params: params}
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := int(binary.BigEndian.Uint16(b[2:])); l != len(b)-1 || len(b)%4 != 0 {
		t.Fatalf("written: length %d in %d bytes; want the last parameter's padding left out", l, len(b))
	}
	padded := bytes.Clone(b)
	binary.BigEndian.PutUint16(padded[2:], uint16(len(b)))
	for _, w := range []struct {
		name string
		b    []byte
	}{{"length without the final padding", b}, {"length with the final padding", padded}} {
		it := Chunks(w.b)
		c, ok := it.Next()
		if !ok {
			t.Fatalf("%s: %v", w.name, it.Err())
		}
		got, err := ParseInit(c)
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		var types []ParamType
		pi := got.Walk()
		for p, ok := pi.Next(); ok; p, ok = pi.Next() {
			types = append(types, p.Type)
		}
		ext, ok := got.Find(ParamSupportedExtensions)
		if pi.Err() != nil || len(types) != 2 || !ok || !bytes.Equal(ext.Value, []byte{byte(TypeReconfig), byte(TypeForwardTSN), byte(TypeIData)}) {
			t.Errorf("%s: params %v (%v), extensions %x", w.name, types, pi.Err(), ext.Value)
		}
		if _, ok := it.Next(); ok || it.Err() != nil {
			t.Errorf("%s: more after the chunk, or %v", w.name, it.Err())
		}
	}
}

// AppendData writes the chunk Data.Append writes for the same fields, for
// every padding (payload lengths 0 to 3 mod 4), into a buffer with room
// and into one it must grow, after bytes already there, and the chunk
// parses back to the fields.
func TestAppendDataIsDataAppend(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 1435, 1436, 1437, 1438, MaxLen - DataHeaderLen} {
		payload := make([]byte, n)
		for i := range payload {
			payload[i] = byte(i*13 + 1)
		}
		d := Data{Flags: FlagBeginning | FlagImmediate, TSN: 0xfedcba98, SID: 0x1234, SSN: 0xabcd, PPID: 0x01020304, Payload: payload}
		for _, prefix := range [][]byte{nil, {0xee, 0xee, 0xee}} {
			want, err := d.Append(append([]byte(nil), prefix...))
			if err != nil {
				t.Fatal(err)
			}
			for _, room := range []int{0, len(want) + 8} {
				buf := make([]byte, len(prefix), len(prefix)+room)
				copy(buf, prefix)
				for i := len(buf); i < cap(buf); i++ {
					buf[:cap(buf)][i] = 0x5a // stale bytes where the padding goes
				}
				got := AppendData(buf, d.Flags, d.TSN, d.SID, d.SSN, d.PPID, d.Payload)
				if !bytes.Equal(got, want) {
					t.Fatalf("payload %d, prefix %d, room %d: AppendData differs from Data.Append", n, len(prefix), room)
				}
				it := Chunks(got[len(prefix):])
				c, ok := it.Next()
				if !ok {
					t.Fatalf("payload %d: no chunk: %v", n, it.Err())
				}
				back, err := ParseData(c)
				if err != nil || back.Flags != d.Flags || back.TSN != d.TSN || back.SID != d.SID || back.SSN != d.SSN ||
					back.PPID != d.PPID || !bytes.Equal(back.Payload, payload) {
					t.Fatalf("payload %d: parsed back as %+v, %v", n, back, err)
				}
			}
		}
	}
}
