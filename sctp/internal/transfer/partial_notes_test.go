package transfer

import (
	"bytes"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// FuzzPartialNotes checks the receiver's partial delivery notes against the
// plain rule they stand for: a twin receiver that looks at every stream at
// every check (pdAlways) gets the same chunks, FORWARD-TSNs and reads, and
// the two must start the same partial deliveries, hold the same bytes and
// return the same bytes, message parts and stream ids, step by step. A small
// window keeps the held bytes around the partial delivery point.
//
// Stream resets (RFC 6525: every stream, one stream, an SSN/TSN reset)
// are done the lazy way (interleave.Reassembler.ResetAll) by the first and
// the eager way (every In record reset, then every stream looked at) by the
// twin, whose In records must then match the first's.
//
// The first byte picks the variant: even DATA, odd I-DATA (RFC 8260), whose
// chunks carry a MID and an FSN, and whose FORWARD-TSN is an I-FORWARD-TSN.
func FuzzPartialNotes(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 200, 1, 2, 1, 0, 1, 200, 0, 3, 2, 0, 3, 250, 3, 9, 0, 0, 1, 100, 2})
	f.Add([]byte{0, 0, 0, 0, 2, 255, 0, 1, 1, 0, 2, 255, 0, 2, 2, 0, 2, 255, 0, 3, 3, 0, 3, 255, 1, 4, 0, 1, 2, 255, 1})
	f.Add([]byte{1, 0, 0, 0, 2, 200, 0, 1, 1, 0, 0, 200, 0, 2, 0, 1, 1, 200, 1, 7, 0, 0, 0, 90, 0})
	resets := []byte{0, 0, 0, 1, 0, 3, 10, 0, 0, 1, 1, 2, 200, 0, 1, 2, 0, 3, 20, 8, 0, 0, 0, 0, 0,
		0, 0, 1, 0, 3, 5, 7, 0, 9, 0, 0, 0, 8, 2, 1, 0, 0, 0, 0, 0, 1, 0, 2, 250, 0, 1, 2, 1, 2, 250,
		8, 3, 0, 0, 0, 0, 7, 0, 200, 0, 0, 0, 0, 0, 3, 0, 3, 9, 7, 0, 20, 0, 0, 0}
	f.Add(resets)
	f.Add(append([]byte{1}, resets[1:]...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		idata := b[0]%2 == 1
		b = b[1:]
		var rs [2]*receiver
		for i := range rs {
			e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 12, Buffers: api.Buffers{RecvBuffer: 1500}, Interleaved: idata})
			if err != nil {
				t.Fatal(err)
			}
			rs[i] = &e.recv
		}
		rs[1].pdAlways = true
		payload := make([]byte, 256)
		for i := range payload {
			payload[i] = byte(i)
		}
		var bufs, recs [2][]byte
		for i := range bufs {
			bufs[i] = make([]byte, 300)
		}
		for step := 0; len(b) >= 6; step++ {
			op, x := b[0]%9, b[1:6]
			b = b[6:]
			for i, r := range rs {
				switch {
				case op < 5 && idata: // an I-DATA chunk: as DATA, with a MID and an FSN
					d := IData{TSN: r.tsns.cum + 1 + TSN(x[0]%12), SID: uint16(x[1] % 12), MID: uint32(x[2] % 6),
						FSN: uint32(x[2] / 6 % 4), PPID: 7, Flags: x[3] & (chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered), Payload: payload[:1+int(x[4])]}
					if d.Flags&chunk.FlagBeginning != 0 {
						d.FSN = 0
					}
					r.handleIData(epoch, &d)
					r.endPacket(epoch)
				case op < 5: // a DATA chunk: TSN near the cumulative one, a stream, an SSN, flags
					d := Data{TSN: r.tsns.cum + 1 + TSN(x[0]%12), SID: uint16(x[1] % 12), SSN: uint16(x[2] % 6),
						Flags: x[3] & (chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered), Payload: payload[:1+int(x[4])]}
					r.handleData(epoch, &d)
					r.endPacket(epoch)
				case op == 5 && idata: // an I-FORWARD-TSN with one entry
					r.handleIForwardTSN(epoch, chunkOfBytes(uint32(r.tsns.cum)+uint32(x[0]%4), uint16(x[1]%12), x[3]&1 != 0, uint32(x[2]%6)))
				case op == 5: // a FORWARD-TSN past a few TSNs, skipping an SSN on one stream
					c := forwardChunk(t, r.tsns.cum+TSN(x[0]%4), uint16(x[1]%12), uint16(x[2]%6))
					r.handleForwardTSN(epoch, c)
				case op == 6:
					n, info, err := r.readStream(uint16(x[0]%12), bufs[i][:1+int(x[1])])
					recs[i] = readRecord(recs[i][:0], n, info, err, bufs[i])
				case op == 7:
					n, info, err := r.read(bufs[i][:1+int(x[1])])
					recs[i] = readRecord(recs[i][:0], n, info, err, bufs[i])
				default: // a stream reset
					switch x[0] % 4 {
					case 0, 1:
						r.ResetIncoming(nil)
					case 2:
						r.ResetIncoming([]uint16{uint16(x[1] % 12)})
					case 3:
						// An SSN/TSN reset with fragments waiting above the
						// cumulative TSN would let their TSNs come again:
						// the peer can ask one only with nothing in flight.
						if r.held() == r.reasm.Ready() {
							r.resetTSN(r.tsns.cum + 1)
						}
					}
					r.checkPartial()
				}
			}
			a, z := rs[0], rs[1]
			if a.held() != z.held() || a.stats.PartialDeliveries != z.stats.PartialDeliveries ||
				a.reasm.Ready() != z.reasm.Ready() || a.tsns.cum != z.tsns.cum {
				t.Fatalf("step %d (op %d): with notes held %d ready %d partials %d cum %d; looking at every stream held %d ready %d partials %d cum %d",
					step, op, a.held(), a.reasm.Ready(), a.stats.PartialDeliveries, a.tsns.cum,
					z.held(), z.reasm.Ready(), z.stats.PartialDeliveries, z.tsns.cum)
			}
			for sid := range uint16(12) {
				ia, iz := a.streams.In(sid), z.streams.In(sid)
				if ia.MID != iz.MID || ia.MIDUO != iz.MIDUO || ia.FSN != iz.FSN || ia.FSNUO != iz.FSNUO || ia.PD != iz.PD || ia.PDUO != iz.PDUO {
					t.Fatalf("step %d (op %d): stream %d's record %+v with the lazy reset, %+v with the eager one", step, op, sid, *ia, *iz)
				}
			}
			if (op == 6 || op == 7) && !bytes.Equal(recs[0], recs[1]) {
				t.Fatalf("step %d: read %x with notes, %x looking at every stream", step, recs[0], recs[1])
			}
		}
	})
}

// readRecord appends a read's outcome to rec: the error, or the stream, the
// end and abort marks and the bytes read.
func readRecord(rec []byte, n int, info RecvInfo, err error, p []byte) []byte {
	if err != nil {
		return append(rec, err.Error()...)
	}
	var marks byte
	if info.EOR {
		marks |= 1
	}
	if info.Aborted {
		marks |= 2
	}
	return append(append(rec, byte(info.SID), byte(info.SID>>8), marks), p[:n]...)
}

// forwardChunk builds a FORWARD-TSN chunk to cum skipping stream sid up to ssn.
func forwardChunk(t testing.TB, cum TSN, sid, ssn uint16) chunk.Chunk {
	return chunkOf(t, func(b []byte) []byte {
		b, _ = chunk.AppendForwardTSN(b, cum, []chunk.StreamSSN{{SID: sid, SSN: ssn}})
		return b
	})
}
