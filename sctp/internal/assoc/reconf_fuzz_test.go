package assoc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// FuzzReconfig feeds arbitrary RE-CONFIG chunk values to an established
// association that negotiated stream reconfiguration, with or without a
// request of its own outstanding (a stream reset, an addition, or an
// SSN/TSN Reset Request sent or waiting for its DATA to be acknowledged)
// and data in flight both ways. The first
// byte picks the setup; when its top bit is set, every 4-byte word at a
// request or response sequence number position is rebased on the
// sequence numbers in use, so the fuzzer reaches past the sequence check.
// Nothing may panic, every packet produced must parse (readPackets checks),
// and the stream counts stay within 65535.
func FuzzReconfig(f *testing.F) {
	peerTSN := uint32(1000)
	seed := func(ps ...chunk.ReconfigParam) []byte {
		return reconfChunk(ps...)[4:]
	}
	for _, v := range [][]byte{
		seed(outReset(peerTSN, 0, peerTSN-1, 1, 2)),
		seed(outReset(peerTSN, 0, peerTSN+3, 1)),
		seed(inReset(peerTSN, 0, 3)),
		seed(inReset(peerTSN, make([]uint16, 600)...)), // longer than our answer can carry: "Denied"
		seed(outReset(peerTSN, 0, peerTSN-1), inReset(peerTSN+1)),
		seed(addStreams(chunk.ParamAddOutgoingStreams, peerTSN, 10)),
		seed(addStreams(chunk.ParamAddIncomingStreams, peerTSN, 65000)),
		seed(response(0, chunk.ReconfigSuccessPerformed)),
		seed(response(0, chunk.ReconfigPending), response(1, chunk.ReconfigDenied)),
		seed(chunk.ReconfigParam{Type: chunk.ParamSSNTSNReset, ReqSeq: peerTSN}),
		seed(tsnReset(peerTSN), outReset(peerTSN+1, 0, peerTSN-1)),
		seed(tsnResponse(0, chunk.ReconfigSuccessPerformed, peerTSN+5, 1<<31)),
		seed(tsnResponse(0, chunk.ReconfigSuccessPerformed, peerTSN-9, 7)),
		seed(tsnResponse(0, chunk.ReconfigPending, 0, 0), tsnReset(peerTSN)),
	} {
		for _, mode := range []byte{0, 1, 2, 3, 4, 5, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85} {
			f.Add(mode, v)
		}
	}
	f.Fuzz(func(t *testing.T, mode byte, val []byte) {
		tc := connectReconf(t)
		a := tc.a
		switch mode & 7 {
		case 1:
			a.ResetStreams(tc.now, api.DirBoth, []uint16{0, 1})
		case 2:
			a.AddStreams(tc.now, 3, 3)
		case 3:
			a.send(tc.now, 1, 0, false, make([]byte, 3000))
			a.ResetStreams(tc.now, api.DirOutgoing, nil)
		case 4: // an SSN/TSN Reset Request of ours out (section 5.1.4)
			a.ResetAssoc(tc.now)
		case 5: // one waiting for our DATA to be acknowledged
			a.send(tc.now, 1, 0, false, make([]byte, 3000))
			a.ResetAssoc(tc.now)
		}
		tc.readPackets()
		if mode&0x80 != 0 {
			rebase(val, a)
		}
		tc.writeChunks(chunkOf(chunk.TypeReconfig, 0, val))
		tc.writeChunks(dataChunk(3, tc.peerTSN, 1, 0, 0, []byte("x")), dataChunk(3, tc.peerTSN+2, 1, 0, 0, []byte("y")))
		tc.writeChunks(chunkOf(chunk.TypeReconfig, 0, val))
		tc.writeChunks(dataChunk(3, tc.peerTSN+1, 1, 1, 0, []byte("z")))
		tc.readPackets()
		for range 3 {
			tc.now = tc.now.Add(time.Minute)
			tc.ep.Expire(tc.now)
			tc.readPackets()
		}
		b := make([]byte, 4096)
		for range 8 {
			if _, _, err := a.read(b); err != nil {
				break
			}
		}
		rc := a.reconfState()
		if len(rc.answers) > maxReconfAnswers || len(a.rc.queue) > maxReconfQueue {
			t.Fatalf("unbounded state: %d answers, %d queued", len(rc.answers), len(rc.queue))
		}
		if e := a.data.eng; e != nil && !a.closed {
			out, in := e.StreamCounts()
			if out != int(a.outStreams) && rc.out == nil {
				t.Fatalf("outbound table %d, association %d", out, a.outStreams)
			}
			if in != int(a.inStreams) {
				t.Fatalf("inbound table %d, association %d", in, a.inStreams)
			}
		}
	})
}

// rebase rewrites the sequence numbers of the RE-CONFIG parameters in val
// (walked leniently) relative to the association's: request numbers from
// the peer's expected one, response numbers from our outstanding request.
func rebase(val []byte, a *Assoc) {
	rc := a.reconfState()
	for off := 0; off+8 <= len(val); {
		typ := binary.BigEndian.Uint16(val[off:])
		n := int(binary.BigEndian.Uint16(val[off+2:]))
		switch chunk.ParamType(typ) {
		case chunk.ParamReconfigResponse:
			base := uint32(rc.nextSeq) - 2
			binary.BigEndian.PutUint32(val[off+4:], base+binary.BigEndian.Uint32(val[off+4:])%4)
		case chunk.ParamOutgoingSSNReset, chunk.ParamIncomingSSNReset, chunk.ParamSSNTSNReset,
			chunk.ParamAddOutgoingStreams, chunk.ParamAddIncomingStreams:
			binary.BigEndian.PutUint32(val[off+4:], uint32(rc.peerSeq)+binary.BigEndian.Uint32(val[off+4:])%4)
		}
		if n < 4 {
			return
		}
		off += (n + 3) &^ 3
	}
}
