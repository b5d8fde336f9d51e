// Package chunk is the SCTP wire format: the common header and CRC32c
// (RFC 9260 sections 3.1 and appendix B, and the zero checksum of RFC 9653),
// every chunk, parameter and error cause of RFC 9260 and of the extensions
// usctp speaks (RFC 3758, 4820, 4895, 5061, 6525, 8260, 9653, NR-SACK), and
// one TLV walker for chunks, parameters and causes.
//
// It imports only the standard library.
//
// # Parsing
//
// Parsers alias their input and never allocate. A packet is split into its
// common header and chunk bytes, the chunks are walked, and each chunk is
// parsed with the function of its type into a read-only view whose byte
// fields point into the packet:
//
//	if _, err := chunk.VerifyChecksum(pkt, zeroOK); err != nil {
//		return err // errors.Is(err, chunk.ErrBadChecksum)
//	}
//	p, err := chunk.ParsePacket(pkt)
//	if err != nil {
//		return err
//	}
//	it := p.Walk()
//	for c, ok := it.Next(); ok; c, ok = it.Next() {
//		switch c.Type {
//		case chunk.TypeData:
//			d, err := chunk.ParseData(c) // d.Payload aliases pkt
//			...
//		case chunk.TypeSack:
//			s, err := chunk.ParseSack(c)
//			for i := range s.Gaps.Len() {
//				g := s.Gaps.At(i) // s.CumTSN.Add(uint32(g.Start)) ...
//			}
//		default:
//			if !c.Type.Known() {
//				a := c.Type.Action() // RFC 9260 section 3.2
//				if a.Report() { ... report c in an ERROR ... }
//				if !a.Skip() { break loop }
//			}
//		}
//	}
//	if err := it.Err(); err != nil { ... } // chunks before the bad one were valid
//
// Every element is bounded by its declared length, checked against the
// bytes that are really there; the walker stops at the first malformed
// element and reports why with an error that matches one of ErrTruncated,
// ErrBadLength, ErrBadPadding, ErrBadValue or ErrWrongType under errors.Is.
// Unknown chunk, parameter and cause types are not errors: they are values
// (Type.Known, Type.Action) the caller handles as RFC 9260 section 3.2 and
// 3.2.1 say.
//
// # Encoding
//
// Encoders append to the caller's buffer: they compute the element's length
// first (Len, SackLen), fail with ErrTooLarge before writing anything if it
// does not fit the 16-bit length field, grow the buffer at most once, and
// write the zero padding in place. With a buffer of enough capacity they do
// not allocate:
//
//	b := chunk.Header{SrcPort: 5000, DstPort: 5000, Tag: peerTag}.Append(buf[:0])
//	d := chunk.Data{Flags: chunk.FlagBeginning | chunk.FlagEnd, TSN: tsn, SID: 1, PPID: 51, Payload: msg}
//	b, err := d.Append(b)
//	b, err = chunk.AppendSack(b, cum, rwnd, gaps, nil)
//	chunk.SetChecksum(b)
//
// A Builder does the same within a packet size limit, checking the room
// before each chunk:
//
//	var pb chunk.Builder
//	pb.Reset(buf, 1452+chunk.HeaderLen+chunk.DataHeaderLen, hdr)
//	pb.AddSack(cum, rwnd, gaps, nil)
//	for pb.AddData(&d) { d = next() } // false: d did not fit, nothing written
//	pkt := pb.Finish(false)            // CRC32c; true for RFC 9653 zero checksum
//
// Chunks made of parameters (INIT, ASCONF, RE-CONFIG) are built either from
// a parameter list in wire form (Init.Params) or piece by piece between
// BeginChunk and EndChunk, which fixes the length and pads.
//
// AppendText gives any chunk as one line of key=value text (the format of
// cmd/sctpdump) and checks it in depth on the way.
//
// TSN is the serial-number type (RFC 1982) for transmission sequence
// numbers; SSN, MID and FSN are plain integers here and typed in package
// stream.
package chunk
