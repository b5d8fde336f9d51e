package chunk_test

import (
	"bytes"
	"math/bits"
	"net/netip"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/usctp/usctp/sctp/chunk"
)

// These tests cross-check the codec against an independent decoder and
// encoder, github.com/google/gopacket's SCTP layers: gopacket decodes what
// chunk encodes and agrees on every field it knows, and chunk verifies the
// checksum of what gopacket serializes.
//
// gopacket v1.1.19 slices HEARTBEAT, ERROR and ABORT parameters by their
// padded length within the chunk's unpadded length, so it fails on a chunk
// whose last parameter is not a multiple of 4 long (RFC 9260 section 3.2
// leaves that padding out of the chunk length, and Linux does too). The
// cross-check therefore uses 4-byte multiples for those.

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func packet(chunks ...[]byte) []byte {
	b := chunk.Header{SrcPort: 5000, DstPort: 5001, Tag: 0x01020304}.Append(nil)
	for _, c := range chunks {
		b = append(b, c...)
	}
	chunk.SetChecksum(b)
	return b
}

func decode(t testing.TB, pkt []byte) gopacket.Packet {
	t.Helper()
	p := gopacket.NewPacket(pkt, layers.LayerTypeSCTP, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatalf("gopacket: %v", el.Error())
	}
	s := p.Layer(layers.LayerTypeSCTP).(*layers.SCTP)
	if s.SrcPort != 5000 || s.DstPort != 5001 || s.VerificationTag != 0x01020304 {
		t.Errorf("header: %+v", s)
	}
	// gopacket reads the checksum field big-endian; chunk reads it as the
	// little-endian CRC32c value.
	h, _ := chunk.ParseHeader(pkt)
	if bits.ReverseBytes32(s.Checksum) != h.Checksum {
		t.Errorf("checksum %#x vs %#x", s.Checksum, h.Checksum)
	}
	return p
}

func TestGopacketDecodesData(t *testing.T) {
	payload := bytes.Repeat([]byte("usctp"), 290) // 1450 bytes, padded
	d := chunk.Data{Flags: chunk.FlagUnordered | chunk.FlagBeginning, TSN: 0xfffffff0, SID: 513, SSN: 7, PPID: 51, Payload: payload}
	p := decode(t, packet(must(d.Append(nil))))
	g := p.Layer(layers.LayerTypeSCTPData).(*layers.SCTPData)
	if g.TSN != uint32(d.TSN) || g.StreamId != d.SID || g.StreamSequence != d.SSN ||
		uint32(g.PayloadProtocol) != d.PPID || !g.Unordered || !g.BeginFragment || g.EndFragment ||
		int(g.Length) != d.Len() {
		t.Errorf("DATA fields: %+v", g)
	}
	if !bytes.Equal(g.Payload, payload) {
		t.Errorf("payload differs (%d bytes vs %d)", len(g.Payload), len(payload))
	}
}

func TestGopacketDecodesControlChunks(t *testing.T) {
	var params []byte
	params = must(chunk.AppendAddrParam(params, netip.MustParseAddr("192.0.2.7")))
	params = chunk.AppendEmptyParam(params, chunk.ParamForwardTSNSupported)
	params = must(chunk.AppendParam(params, chunk.ParamSupportedExtensions, []byte{130, 192, 64}))
	init := chunk.Init{Tag: 0xabcdef01, ARwnd: 106496, OutStreams: 10, InStreams: 2048, InitialTSN: 99, Params: params}
	initAck := init
	initAck.Ack = true
	initAck.Params = must(chunk.AppendParam(nil, chunk.ParamStateCookie, make([]byte, 36)))
	gaps := []chunk.GapBlock{{Start: 2, End: 3}, {Start: 10, End: 12}}
	dups := []chunk.TSN{5, 6, 7}
	causes := chunk.AppendInvalidStreamCause(nil, 9)
	causes = must(chunk.AppendCause(causes, chunk.CauseUserAbort, []byte("closing!")))

	pkt := packet(
		must(init.Append(nil)),
		must(initAck.Append(nil)),
		must(chunk.AppendSack(nil, 1000, 65535, gaps, dups)),
		must(chunk.AppendHeartbeat(nil, false, make([]byte, 12))),
		must(chunk.AppendHeartbeat(nil, true, bytes.Repeat([]byte{7}, 12))),
		must(chunk.AppendError(nil, causes)),
		chunk.AppendShutdown(nil, 1234),
		chunk.AppendEmpty(nil, chunk.TypeShutdownAck, 0),
		must(chunk.AppendCookieEcho(nil, make([]byte, 33))),
		chunk.AppendEmpty(nil, chunk.TypeCookieAck, 0),
		chunk.AppendEmpty(nil, chunk.TypeShutdownComplete, chunk.FlagT),
		must((&chunk.Abort{Flags: chunk.FlagT, Causes: causes}).Append(nil)),
	)
	p := decode(t, pkt)

	// The same chunk sequence on both sides.
	it := chunk.Chunks(pkt[chunk.HeaderLen:])
	var ours []chunk.Type
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		ours = append(ours, c.Type)
	}
	var theirs []chunk.Type
	for _, l := range p.Layers()[1:] {
		switch l := l.(type) {
		case *layers.SCTPInit:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPSack:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPHeartbeat:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPError:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPShutdown:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPShutdownAck:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPCookieEcho:
			theirs = append(theirs, chunk.Type(l.Type))
		case *layers.SCTPEmptyLayer:
			theirs = append(theirs, chunk.Type(l.Type))
		default:
			t.Errorf("unexpected layer %v", l.LayerType())
		}
	}
	if len(ours) != len(theirs) {
		t.Fatalf("chunks: ours %v, gopacket %v", ours, theirs)
	}
	for i := range ours {
		if ours[i] != theirs[i] {
			t.Errorf("chunk %d: ours %v, gopacket %v", i, ours[i], theirs[i])
		}
	}

	gi := p.Layer(layers.LayerTypeSCTPInit).(*layers.SCTPInit)
	if gi.InitiateTag != init.Tag || gi.AdvertisedReceiverWindowCredit != init.ARwnd ||
		gi.OutboundStreams != init.OutStreams || gi.InboundStreams != init.InStreams ||
		gi.InitialTSN != uint32(init.InitialTSN) || len(gi.Parameters) != 3 {
		t.Errorf("INIT: %+v", gi)
	} else {
		if gi.Parameters[0].Type != uint16(chunk.ParamIPv4Address) || !bytes.Equal(gi.Parameters[0].Value, []byte{192, 0, 2, 7}) ||
			gi.Parameters[1].Type != uint16(chunk.ParamForwardTSNSupported) ||
			gi.Parameters[2].Type != uint16(chunk.ParamSupportedExtensions) || !bytes.Equal(gi.Parameters[2].Value, []byte{130, 192, 64}) {
			t.Errorf("INIT parameters: %+v", gi.Parameters)
		}
	}
	ga := p.Layer(layers.LayerTypeSCTPInitAck).(*layers.SCTPInit)
	if len(ga.Parameters) != 1 || ga.Parameters[0].Type != uint16(chunk.ParamStateCookie) || len(ga.Parameters[0].Value) != 36 {
		t.Errorf("INIT-ACK: %+v", ga)
	}
	gs := p.Layer(layers.LayerTypeSCTPSack).(*layers.SCTPSack)
	if gs.CumulativeTSNAck != 1000 || gs.AdvertisedReceiverWindowCredit != 65535 ||
		gs.NumGapACKs != 2 || gs.NumDuplicateTSNs != 3 {
		t.Errorf("SACK: %+v", gs)
	}
	// gopacket reads NumGapACKs 16-bit words (one half of each block).
	for i, w := range gs.GapACKs {
		g := gaps[i/2]
		want := g.Start
		if i%2 == 1 {
			want = g.End
		}
		if w != want {
			t.Errorf("SACK gap word %d: %d, want %d", i, w, want)
		}
	}
	hb := p.Layer(layers.LayerTypeSCTPHeartbeat).(*layers.SCTPHeartbeat)
	if len(hb.Parameters) != 1 || hb.Parameters[0].Type != uint16(chunk.ParamHeartbeatInfo) || len(hb.Parameters[0].Value) != 12 {
		t.Errorf("HEARTBEAT: %+v", hb)
	}
	hba := p.Layer(layers.LayerTypeSCTPHeartbeatAck).(*layers.SCTPHeartbeat)
	if len(hba.Parameters) != 1 || !bytes.Equal(hba.Parameters[0].Value, bytes.Repeat([]byte{7}, 12)) {
		t.Errorf("HEARTBEAT-ACK: %+v", hba)
	}
	ge := p.Layer(layers.LayerTypeSCTPError).(*layers.SCTPError)
	if len(ge.Parameters) != 2 || ge.Parameters[0].Type != uint16(chunk.CauseInvalidStream) ||
		ge.Parameters[1].Type != uint16(chunk.CauseUserAbort) || string(ge.Parameters[1].Value) != "closing!" {
		t.Errorf("ERROR: %+v", ge.Parameters)
	}
	gab := p.Layer(layers.LayerTypeSCTPAbort).(*layers.SCTPError)
	if gab.Flags != chunk.FlagT || len(gab.Parameters) != 2 {
		t.Errorf("ABORT: %+v", gab)
	}
	if g := p.Layer(layers.LayerTypeSCTPShutdown).(*layers.SCTPShutdown); g.CumulativeTSNAck != 1234 {
		t.Errorf("SHUTDOWN: %+v", g)
	}
	if g := p.Layer(layers.LayerTypeSCTPCookieEcho).(*layers.SCTPCookieEcho); len(g.Cookie) != 33 {
		t.Errorf("COOKIE-ECHO cookie of %d bytes", len(g.Cookie))
	}
	if g := p.Layer(layers.LayerTypeSCTPShutdownComplete).(*layers.SCTPEmptyLayer); g.Flags != chunk.FlagT {
		t.Errorf("SHUTDOWN-COMPLETE flags %#x", g.Flags)
	}
}

// TestGopacketEncodes parses what gopacket serializes, checksum included.
func TestGopacketEncodes(t *testing.T) {
	buf := gopacket.NewSerializeBuffer()
	payload := gopacket.Payload([]byte("hello, kernel"))
	err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{ComputeChecksums: true},
		&layers.SCTP{SrcPort: 9, DstPort: 10, VerificationTag: 77},
		&layers.SCTPData{SCTPChunk: layers.SCTPChunk{Type: layers.SCTPChunkTypeData},
			BeginFragment: true, EndFragment: true, TSN: 42, StreamId: 3, StreamSequence: 4, PayloadProtocol: 51},
		payload)
	if err != nil {
		t.Fatal(err)
	}
	pkt := buf.Bytes()
	if _, err := chunk.VerifyChecksum(pkt, false); err != nil {
		t.Fatalf("checksum of gopacket's packet: %v", err)
	}
	p, err := chunk.ParsePacket(pkt)
	if err != nil || p.SrcPort != 9 || p.DstPort != 10 || p.Tag != 77 {
		t.Fatalf("header %+v: %v", p.Header, err)
	}
	it := p.Walk()
	c, ok := it.Next()
	if !ok {
		t.Fatal(it.Err())
	}
	d, err := chunk.ParseData(c)
	if err != nil || d.TSN != 42 || d.SID != 3 || d.SSN != 4 || d.PPID != 51 || !d.Beginning() || !d.End() ||
		string(d.Payload) != "hello, kernel" {
		t.Fatalf("DATA %+v: %v", d, err)
	}
}
