package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// This file is the association's only contact with the wire format: thin
// adapters over the sctp/chunk codec that parse into the association's views
// and append the chunks it sends.

const commonHeaderLen = chunk.HeaderLen

type parseResult uint8

const (
	parseOK parseResult = iota
	parseBadChecksum
	parseMalformed
)

// parsePacket checks the common header and CRC32c of b and delimits its
// chunks into p.chunks (aliasing b). A packet with a malformed chunk is
// dropped whole. With acceptZero (the endpoint announces RFC 9653's zero
// checksum) a zero checksum field passes.
func parsePacket(b []byte, p *inPacket, acceptZero bool) parseResult {
	if len(b) < commonHeaderLen+4 {
		return parseMalformed
	}
	if _, err := chunk.VerifyChecksum(b, acceptZero); err != nil {
		return parseBadChecksum
	}
	h, _ := chunk.ParseHeader(b) // b is longer than the header
	p.srcPort, p.dstPort, p.vtag = h.SrcPort, h.DstPort, h.Tag
	body := b[commonHeaderLen:]
	p.chunks = p.chunks[:0]
	p.body = body
	var types typeHint
	it := chunk.Chunks(body)
	for it.Offset() < len(body) { // no call to learn that the last chunk was the last
		off := it.Offset()
		c, ok := it.Next()
		if !ok {
			break
		}
		types = types.with(c.Type)
		p.chunks = append(p.chunks, rxChunk{typ: c.Type, flags: c.Flags, off: int32(off), raw: body[off : off+c.Len()]})
	}
	p.types = types
	if it.Err() != nil || len(p.chunks) == 0 {
		return parseMalformed
	}
	return parseOK
}

// chunkOfRx returns the codec's view of c.
func chunkOfRx(c *rxChunk) chunk.Chunk {
	return chunk.Chunk{Type: chunk.Type(c.typ), Flags: c.flags, Value: c.raw[4:]}
}

// parseInit parses an INIT or INIT ACK chunk into in, applying the action
// bits of unknown parameters (section 3.2.1).
func parseInit(c *rxChunk, in *initInfo) bool {
	m, err := chunk.ParseInit(chunkOfRx(c))
	if err != nil {
		return false
	}
	in.tag, in.rwnd = m.Tag, m.ARwnd
	in.os, in.mis = m.OutStreams, m.InStreams
	in.tsn = m.InitialTSN
	it := m.Walk()
	for {
		off := it.Offset()
		p, ok := it.Next()
		if !ok {
			break
		}
		switch p.Type {
		case chunk.ParamIPv4Address, chunk.ParamIPv6Address:
			if ip, err := p.Addr(); err == nil && in.naddrs < maxPeerAddrs {
				in.addrs[in.naddrs] = ip.Unmap()
				in.naddrs++
			} else if err == nil {
				in.ignored++ // beyond the bound
			}
		case chunk.ParamCookiePreservative:
			if v, err := p.Uint32(); err == nil {
				in.preserve = time.Duration(v) * time.Millisecond
			}
		case chunk.ParamHostNameAddress:
			in.hostName = true
		case chunk.ParamStateCookie:
			if m.Ack {
				in.cookie = p.Value
			}
		case chunk.ParamSupportedAddressTypes:
			if !in.typesSeen {
				in.types, in.typesSeen = parseAddrTypes(p.Value), true
			}
		case chunk.ParamUnrecognizedParameter, chunk.ParamAdaptationLayer,
			chunk.ParamPadding:
			// Known, not used by this stack.
		case chunk.ParamZeroChecksum:
			// RFC 9653: the peer accepts zero checksums; the DTLS method
			// is the only one this stack can use.
			if v, err := p.Uint32(); err == nil && v == chunk.EDMIDDTLS {
				in.ext |= extZeroChecksum
			}
		case chunk.ParamRandom:
			if in.auth.random == nil {
				in.auth.random = m.Params[off : off+p.Len()]
			}
		case chunk.ParamChunkList:
			if in.auth.chunks == nil {
				in.auth.chunks = m.Params[off : off+p.Len()]
			}
		case chunk.ParamHMACAlgo:
			if in.auth.hmacs == nil {
				in.auth.hmacs = m.Params[off : off+p.Len()]
			}
		case chunk.ParamECNCapable:
			in.ext |= extECN
		case chunk.ParamForwardTSNSupported:
			in.ext |= extForwardTSN
		case chunk.ParamSupportedExtensions:
			for _, t := range p.Types() {
				switch chunk.Type(t) {
				case chunk.TypeForwardTSN:
					in.ext |= extForwardTSN
				case chunk.TypeIData:
					in.ext |= extIData
				case chunk.TypeIForwardTSN:
					in.ext |= extIForwardTSN
				case chunk.TypeReconfig:
					in.ext |= extReconfig
				case chunk.TypeASCONF:
					in.ext |= extASCONF
				case chunk.TypeAuth:
					in.ext |= extAuth
				}
			}
		default:
			a := p.Type.Action()
			if a.Report() && len(in.unrecognized)+p.Len()+8 <= maxPendingCauses {
				// Reported in an INIT ACK as Unrecognized Parameter
				// parameters, and after an INIT ACK as the body of an
				// "Unrecognized Parameters" cause: both wrap the
				// parameter in a type-8 TLV.
				in.unrecognized, _ = chunk.AppendParam(in.unrecognized, chunk.ParamUnrecognizedParameter,
					m.Params[off:off+p.Len()])
			}
			if !a.Skip() {
				return true // 00 and 01: process no further parameters
			}
		}
	}
	return true
}

func appendHeader(b []byte, src, dst uint16, vtag uint32) []byte {
	return chunk.Header{SrcPort: src, DstPort: dst, Tag: vtag}.Append(b)
}

// finishPacket fills in the CRC32c of the packet that starts at b[start].
func finishPacket(b []byte, start int) []byte {
	chunk.SetChecksum(b[start:])
	return b
}

// appendInit appends our INIT (section 3.3.2), with a Cookie Preservative
// after a Stale Cookie error.
func (a *Assoc) appendInit(b []byte) []byte {
	b, at := chunk.BeginChunk(b, chunk.TypeInit, 0)
	b = binary.BigEndian.AppendUint32(b, a.localTag)
	b = binary.BigEndian.AppendUint32(b, a.ep.cfg.rwnd())
	b = binary.BigEndian.AppendUint16(b, a.localOS)
	b = binary.BigEndian.AppendUint16(b, a.localMIS)
	b = binary.BigEndian.AppendUint32(b, uint32(a.localTSN))
	if a.preserve > 0 {
		b = chunk.AppendUint32Param(b, chunk.ParamCookiePreservative, uint32(a.preserve/time.Millisecond))
	}
	b = appendLocalAddrs(b, a.ep.cfg.LocalAddrs)
	last := -1
	if cfg := &a.ep.cfg; cfg.HostAddrs != nil {
		dst := a.key.peer.Addr()
		if a.initAddrs != nil {
			dst = a.initDest().Addr()
		}
		ips, _ := a.ep.hostAddrsFor(dst, FamilyBoth)
		b = appendAddrParams(b, ips)
		if cfg.Families == FamilyIPv4 || cfg.Families == FamilyIPv6 {
			// Section 3.3.2.1: the peer lists only addresses we can use.
			last = len(b)
			b = appendSupportedAddrTypes(b, cfg.Families)
		}
	}
	if offer := a.ep.cfg.offered(); offer != 0 {
		b = appendECNCapable(b, offer)
		if a.auth != nil {
			b = appendAuthParams(b, a.auth.random[:], &a.ep.cfg)
		}
		b = appendForwardTSNSupported(b, offer)
		b = appendZeroChecksumAcceptable(b, offer)
		last = len(b)
		b = appendSupportedExt(b, offer) // its padding is not counted
	}
	b, _ = chunk.EndChunk(b, at)
	return unpadLastParam(b, at, last)
}

// appendInitAck appends an INIT ACK carrying the signed cookie c.
// local lists the endpoint's addresses (appendLocalAddrs).
// random, when not nil, is the RANDOM of the AUTH parameters (RFC 4895)
// sent with cfg's chunk and HMAC lists.
func appendInitAck(b []byte, c *cookie, rwnd uint32, jar *cookieJar, unrecognized []byte, offer extFlags, local []netip.Addr, random []byte, cfg *Config) []byte {
	b, at := chunk.BeginChunk(b, chunk.TypeInitAck, 0)
	b = binary.BigEndian.AppendUint32(b, c.localTag)
	b = binary.BigEndian.AppendUint32(b, rwnd)
	b = binary.BigEndian.AppendUint16(b, c.localOS)
	b = binary.BigEndian.AppendUint16(b, c.localMIS)
	b = binary.BigEndian.AppendUint32(b, uint32(c.localTSN))
	b = appendLocalAddrs(b, local)
	if offer != 0 {
		// Before the cookie, so the cookie or an Unrecognized Parameter
		// stays last (unpadLastParam).
		b = appendECNCapable(b, offer)
		if random != nil {
			b = appendAuthParams(b, random, cfg)
		}
		b = appendForwardTSNSupported(b, offer)
		b = appendZeroChecksumAcceptable(b, offer)
		b = appendSupportedExt(b, offer)
	}
	b, pat := chunk.BeginParam(b, chunk.ParamStateCookie)
	b = jar.appendCookie(b, c)
	b, _ = chunk.EndParam(b, pat)
	last := pat
	for off := 0; off+4 <= len(unrecognized); {
		last = len(b) + off
		off += (int(binary.BigEndian.Uint16(unrecognized[off+2:])) + 3) &^ 3
	}
	b = append(b, unrecognized...)
	b, _ = chunk.EndChunk(b, at)
	return unpadLastParam(b, at, last)
}

// appendLocalAddrs appends an IPv4 or IPv6 Address parameter for each of
// the endpoint's addresses when it has more than one (RFC 9260 section
// 5.1.2: "If there are only IPv4/IPv6 addresses present in the received
// INIT or INIT ACK chunk, the receiver MUST derive and record all the
// transport addresses from the received chunk AND the source IP address
// that sent the INIT or INIT ACK chunk"; with a single address the source
// address says it all, and the chunk stays as it was).
func appendLocalAddrs(b []byte, local []netip.Addr) []byte {
	if len(local) < 2 {
		return b
	}
	for _, ip := range local {
		b, _ = chunk.AppendAddrParam(b, ip)
	}
	return b
}

// unpadLastParam sets the length of the chunk at b[at:] that ends with the parameter at
// b[last:] so that it leaves out that parameter's padding: "The Chunk Length field does
// not count any chunk padding. However, it does include any padding of variable-length
// parameters other than the last parameter in the chunk." (RFC 9260 section 3.2). The
// padding bytes stay, as the chunk's padding.
func unpadLastParam(b []byte, at, last int) []byte {
	if last < at || last+4 > len(b) {
		return b
	}
	n := last - at + int(binary.BigEndian.Uint16(b[last+2:]))
	if n <= len(b)-at {
		binary.BigEndian.PutUint16(b[at+2:], uint16(n))
	}
	return b
}

func appendCookieEcho(b []byte, ck []byte) []byte {
	b, _ = chunk.AppendCookieEcho(b, ck)
	return b
}

func appendCookieAck(b []byte) []byte { return chunk.AppendEmpty(b, chunk.TypeCookieAck, 0) }

func appendShutdown(b []byte, cum uint32) []byte { return chunk.AppendShutdown(b, chunk.TSN(cum)) }

func appendShutdownAck(b []byte) []byte { return chunk.AppendEmpty(b, chunk.TypeShutdownAck, 0) }

func tFlag(t bool) uint8 {
	if t {
		return chunk.FlagT
	}
	return 0
}

func appendShutdownComplete(b []byte, t bool) []byte {
	return chunk.AppendEmpty(b, chunk.TypeShutdownComplete, tFlag(t))
}

func appendAbort(b []byte, t bool, cause []byte) []byte {
	ab := chunk.Abort{Flags: tFlag(t), Causes: cause}
	b, _ = ab.Append(b)
	return b
}

func appendHeartbeat(b []byte, info []byte) []byte {
	b, _ = chunk.AppendHeartbeat(b, false, info)
	return b
}

// appendHeartbeatAck appends a HEARTBEAT ACK whose value is v, the value of
// the HEARTBEAT it answers, copied unchanged.
func appendHeartbeatAck(b []byte, v []byte) []byte {
	b, _ = chunk.Chunk{Type: chunk.TypeHeartbeatAck, Value: v}.Append(b)
	return b
}

func appendErrorChunk(b []byte, causes []byte) []byte {
	b, _ = chunk.AppendError(b, causes)
	return b
}

// appendCause appends one error cause (section 3.3.10), padded.
func appendCause(b []byte, code chunk.CauseCode, info []byte) []byte {
	b, _ = chunk.AppendCause(b, chunk.CauseCode(code), info)
	return b
}

func appendStaleCookieError(b []byte, usec uint32) []byte {
	b, at := chunk.BeginChunk(b, chunk.TypeError, 0)
	b = chunk.AppendUint32Cause(b, chunk.CauseStaleCookie, usec)
	b, _ = chunk.EndChunk(b, at)
	return b
}

func appendMissingParamCause(b []byte, param chunk.ParamType) []byte {
	pt := [1]chunk.ParamType{chunk.ParamType(param)}
	b, _ = chunk.AppendMissingParamsCause(b, pt[:])
	return b
}

func appendNoUserDataCause(b []byte, tsn uint32) []byte {
	return chunk.AppendUint32Cause(b, chunk.CauseNoUserData, tsn)
}

// firstCause returns the code of the first error cause in v, or 0.
func firstCause(v []byte) chunk.CauseCode {
	it := chunk.Causes(v)
	if c, ok := it.Next(); ok {
		return c.Code
	}
	return 0
}

// hasCause reports whether the causes v include code.
func hasCause(v []byte, code chunk.CauseCode) bool {
	it := chunk.Causes(v)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if c.Code == code {
			return true
		}
	}
	return false
}

// staleCookieMeasure returns the Measure of Staleness of a "Stale Cookie"
// cause among the causes v.
func staleCookieMeasure(v []byte) (time.Duration, bool) {
	it := chunk.Causes(v)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if c.Code == chunk.CauseStaleCookie {
			if us, err := c.Uint32(); err == nil {
				return time.Duration(us) * time.Microsecond, true
			}
		}
	}
	return 0, false
}

func parseShutdown(c *rxChunk) (uint32, bool) {
	t, err := chunk.ParseShutdown(chunkOfRx(c))
	return uint32(t), err == nil
}

// validHeartbeat reports whether a HEARTBEAT value holds a Heartbeat Info
// parameter.
func validHeartbeat(v []byte) bool {
	_, ok := heartbeatInfo(v)
	return ok
}

// heartbeatInfo returns the value of the Heartbeat Info parameter of a
// HEARTBEAT or HEARTBEAT ACK value v.
func heartbeatInfo(v []byte) ([]byte, bool) {
	h, err := chunk.ParseHeartbeat(chunk.Chunk{Type: chunk.TypeHeartbeat, Value: v})
	return h.Info, err == nil
}

// parseData fills the transfer engine's view of a DATA chunk.
func parseData(c *rxChunk, d *transfer.Data) bool {
	x, err := chunk.ParseData(chunkOfRx(c))
	if err != nil {
		return false
	}
	d.TSN, d.SID, d.SSN, d.PPID, d.Flags = transfer.TSN(x.TSN), x.SID, x.SSN, x.PPID, x.Flags
	d.Payload = x.Payload
	return true
}

// parseSack fills the transfer engine's view of a SACK chunk, reusing its
// slices.
func parseSack(c *rxChunk, s *transfer.SACK) bool {
	x, err := chunk.ParseSack(chunkOfRx(c))
	if err != nil {
		return false
	}
	s.CumTSNAck = transfer.TSN(x.CumTSN)
	s.ARwnd = x.ARwnd
	s.Gaps, s.Dups = s.Gaps[:0], s.Dups[:0]
	for i := range x.Gaps.Len() {
		g := x.Gaps.At(i)
		s.Gaps = append(s.Gaps, transfer.GapBlock{Start: g.Start, End: g.End})
	}
	for i := range x.Dups.Len() {
		s.Dups = append(s.Dups, transfer.TSN(x.Dups.At(i)))
	}
	return true
}
