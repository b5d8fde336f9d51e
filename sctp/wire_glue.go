package sctp

import (
	"encoding/binary"
	"hash/crc32"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/transfer"
)

// This file is the association's only contact with the wire format. Until
// the sctp/chunk codec lands it holds a minimal stop-gap encoder and parser
// for the chunks the control plane uses; then these functions call the
// codec instead and nothing else changes.

const commonHeaderLen = 12

// Error cause codes (RFC 9260 section 3.3.10).
const (
	causeInvalidStream         = 1
	causeMissingMandatoryParam = 2
	causeStaleCookie           = 3
	causeOutOfResource         = 4
	causeUnresolvableAddress   = 5
	causeUnrecognizedChunk     = 6
	causeInvalidMandatoryParam = 7
	causeUnrecognizedParams    = 8
	causeNoUserData            = 9
	causeCookieWhileShutdown   = 10
	causeRestartNewAddrs       = 11
	causeUserInitiatedAbort    = 12
	causeProtocolViolation     = 13
)

// Parameter types (RFC 9260 section 3.3.2.1, RFC 3758, RFC 5061).
const (
	paramHeartbeatInfo   = 1
	paramIPv4            = 5
	paramIPv6            = 6
	paramStateCookie     = 7
	paramUnrecognized    = 8
	paramCookiePreserve  = 9
	paramHostName        = 11
	paramSupportedAddrs  = 12
	paramECN             = 0x8000
	paramForwardTSN      = 0xc000
	paramSupportedExt    = 0x8008
	paramAdaptationLayer = 0xc006
	paramZeroChecksum    = 0x8001
	paramRandom          = 0x8002
	paramChunkList       = 0x8003
	paramHMACAlgo        = 0x8004
	paramPadding         = 0x8005
	paramSetPrimary      = 0xc004
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type parseResult uint8

const (
	parseOK parseResult = iota
	parseBadChecksum
	parseMalformed
)

func pad4(n int) int { return (n + 3) &^ 3 }

// parsePacket checks the common header and CRC32c of b and delimits its
// chunks into p.chunks (aliasing b).
func parsePacket(b []byte, p *inPacket) parseResult {
	if len(b) < commonHeaderLen+4 {
		return parseMalformed
	}
	want := binary.LittleEndian.Uint32(b[8:])
	h := crc32.Update(0, castagnoli, b[:8])
	h = crc32.Update(h, castagnoli, zeros[:])
	h = crc32.Update(h, castagnoli, b[12:])
	if h != want {
		return parseBadChecksum
	}
	p.srcPort = binary.BigEndian.Uint16(b)
	p.dstPort = binary.BigEndian.Uint16(b[2:])
	p.vtag = binary.BigEndian.Uint32(b[4:])
	p.chunks = p.chunks[:0]
	rest := b[commonHeaderLen:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return parseMalformed
		}
		l := int(binary.BigEndian.Uint16(rest[2:]))
		if l < 4 || l > len(rest) {
			return parseMalformed
		}
		p.chunks = append(p.chunks, rxChunk{typ: rest[0], flags: rest[1], raw: rest[:l]})
		if pad4(l) >= len(rest) {
			break
		}
		rest = rest[pad4(l):]
	}
	if len(p.chunks) == 0 {
		return parseMalformed
	}
	return parseOK
}

// forEachChunkType calls fn with the type of each chunk of a packet we
// built.
func forEachChunkType(pkt []byte, fn func(t uint8)) {
	rest := pkt[min(len(pkt), commonHeaderLen):]
	for len(rest) >= 4 {
		fn(rest[0])
		l := pad4(int(binary.BigEndian.Uint16(rest[2:])))
		if l < 4 || l >= len(rest) {
			return
		}
		rest = rest[l:]
	}
}

// walkParams calls fn for each TLV of b; fn returns false to stop. It
// reports false when b is malformed.
func walkParams(b []byte, fn func(typ uint16, val, raw []byte) bool) bool {
	for len(b) > 0 {
		if len(b) < 4 {
			return false
		}
		l := int(binary.BigEndian.Uint16(b[2:]))
		if l < 4 || l > len(b) {
			return false
		}
		if !fn(binary.BigEndian.Uint16(b), b[4:l], b[:l]) {
			return true
		}
		if pad4(l) >= len(b) {
			return true
		}
		b = b[pad4(l):]
	}
	return true
}

// parseInit parses an INIT or INIT ACK chunk into in, applying the action
// bits of unknown parameters (section 3.2.1).
func parseInit(c *rxChunk, in *initInfo) bool {
	v := c.value()
	if len(v) < 16 {
		return false
	}
	in.tag = binary.BigEndian.Uint32(v)
	in.rwnd = binary.BigEndian.Uint32(v[4:])
	in.os = binary.BigEndian.Uint16(v[8:])
	in.mis = binary.BigEndian.Uint16(v[10:])
	in.tsn = binary.BigEndian.Uint32(v[12:])
	isAck := c.typ == ctInitAck
	return walkParams(v[16:], func(typ uint16, val, raw []byte) bool {
		switch typ {
		case paramIPv4:
			if len(val) == 4 && in.naddrs < maxPeerAddrs {
				in.addrs[in.naddrs] = netip.AddrFrom4([4]byte(val))
				in.naddrs++
			}
		case paramIPv6:
			if len(val) == 16 && in.naddrs < maxPeerAddrs {
				in.addrs[in.naddrs] = netip.AddrFrom16([16]byte(val))
				in.naddrs++
			}
		case paramCookiePreserve:
			if len(val) == 4 {
				in.preserve = time.Duration(binary.BigEndian.Uint32(val)) * time.Millisecond
			}
		case paramHostName:
			in.hostName = true
		case paramStateCookie:
			if isAck {
				in.cookie = val
			}
		case paramSupportedAddrs, paramUnrecognized, paramAdaptationLayer, paramPadding,
			paramRandom, paramChunkList, paramHMACAlgo, paramZeroChecksum:
			// Known, not used by this stack.
		case paramECN:
			in.ext |= extECN
		case paramForwardTSN:
			in.ext |= extForwardTSN
		case paramSupportedExt:
			for _, t := range val {
				switch t {
				case ctForwardTSN:
					in.ext |= extForwardTSN
				case ctIData:
					in.ext |= extIData
				case ctReconfig:
					in.ext |= extReconfig
				case ctASCONF:
					in.ext |= extASCONF
				case ctAuth:
					in.ext |= extAuth
				}
			}
		default:
			if typ&0x4000 != 0 && len(in.unrecognized)+len(raw)+8 <= maxPendingCauses {
				// Report: in an INIT ACK as Unrecognized Parameter
				// parameters; after an INIT ACK as the body of an
				// "Unrecognized Parameters" cause. Both wrap the
				// parameter the same way (type 8 TLV).
				in.unrecognized = appendTLV(in.unrecognized, paramUnrecognized, raw)
			}
			return typ&0x8000 != 0 // 00 and 01: stop processing parameters
		}
		return true
	})
}

func appendTLV(b []byte, typ uint16, val []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, typ)
	b = binary.BigEndian.AppendUint16(b, uint16(4+len(val)))
	b = append(b, val...)
	return append(b, zeros[:pad4(len(val))-len(val)]...)
}

func appendHeader(b []byte, src, dst uint16, vtag uint32) []byte {
	b = binary.BigEndian.AppendUint16(b, src)
	b = binary.BigEndian.AppendUint16(b, dst)
	b = binary.BigEndian.AppendUint32(b, vtag)
	return append(b, 0, 0, 0, 0)
}

func finishPacket(b []byte, start int) []byte {
	p := b[start:]
	binary.LittleEndian.PutUint32(p[8:], 0)
	binary.LittleEndian.PutUint32(p[8:], crc32.Checksum(p, castagnoli))
	return b
}

// appendChunk appends a chunk header; the caller appends the value and
// calls endChunk.
func appendChunkHeader(b []byte, typ, flags uint8) []byte {
	return append(b, typ, flags, 0, 0)
}

func endChunk(b []byte, at int) []byte {
	n := len(b) - at
	binary.BigEndian.PutUint16(b[at+2:], uint16(n))
	return append(b, zeros[:pad4(n)-n]...)
}

var zeros [4]byte

func appendInitFixed(b []byte, typ uint8, tag, rwnd uint32, os, mis uint16, tsn uint32) (int, []byte) {
	at := len(b)
	b = appendChunkHeader(b, typ, 0)
	b = binary.BigEndian.AppendUint32(b, tag)
	b = binary.BigEndian.AppendUint32(b, rwnd)
	b = binary.BigEndian.AppendUint16(b, os)
	b = binary.BigEndian.AppendUint16(b, mis)
	b = binary.BigEndian.AppendUint32(b, tsn)
	return at, b
}

// appendInit appends our INIT (section 3.3.2), with a Cookie Preservative
// after a Stale Cookie error.
func (a *assoc) appendInit(b []byte) []byte {
	at, b := appendInitFixed(b, ctInit, a.localTag, a.ep.cfg.RecvWindow, a.localOS, a.localMIS, a.localTSN)
	if a.preserve > 0 {
		var v [4]byte
		binary.BigEndian.PutUint32(v[:], uint32(a.preserve/time.Millisecond))
		b = appendTLV(b, paramCookiePreserve, v[:])
	}
	return endChunk(b, at)
}

// appendInitAck appends an INIT ACK carrying the signed cookie c.
func appendInitAck(b []byte, c *cookie, rwnd uint32, jar *cookieJar, unrecognized []byte) []byte {
	at, b := appendInitFixed(b, ctInitAck, c.localTag, rwnd, c.localOS, c.localMIS, c.localTSN)
	pat := len(b)
	b = append(b, 0, byte(paramStateCookie), 0, 0)
	b = jar.appendCookie(b, c)
	b = endChunk(b, pat) // pads; param length excludes the padding
	binary.BigEndian.PutUint16(b[pat+2:], uint16(4+cookieLen))
	b = append(b, unrecognized...)
	return endChunk(b, at)
}

func appendCookieEcho(b []byte, ck []byte) []byte {
	at := len(b)
	b = appendChunkHeader(b, ctCookieEcho, 0)
	b = append(b, ck...)
	return endChunk(b, at)
}

func appendCookieAck(b []byte) []byte { return append(b, ctCookieAck, 0, 0, 4) }

func appendShutdown(b []byte, cum uint32) []byte {
	b = append(b, ctShutdown, 0, 0, 8)
	return binary.BigEndian.AppendUint32(b, cum)
}

func appendShutdownAck(b []byte) []byte { return append(b, ctShutdownAck, 0, 0, 4) }

func appendShutdownComplete(b []byte, t bool) []byte {
	var f uint8
	if t {
		f = 1
	}
	return append(b, ctShutdownComplete, f, 0, 4)
}

func appendAbort(b []byte, t bool, cause []byte) []byte {
	var f uint8
	if t {
		f = 1
	}
	at := len(b)
	b = appendChunkHeader(b, ctAbort, f)
	b = append(b, cause...)
	return endChunk(b, at)
}

func appendHeartbeat(b []byte, info []byte) []byte {
	at := len(b)
	b = appendChunkHeader(b, ctHeartbeat, 0)
	b = appendTLV(b, paramHeartbeatInfo, info)
	return endChunk(b, at)
}

func appendHeartbeatAck(b []byte, v []byte) []byte {
	at := len(b)
	b = appendChunkHeader(b, ctHeartbeatAck, 0)
	b = append(b, v...)
	return endChunk(b, at)
}

func appendErrorChunk(b []byte, causes []byte) []byte {
	at := len(b)
	b = appendChunkHeader(b, ctError, 0)
	b = append(b, causes...)
	return endChunk(b, at)
}

// appendCause appends one error cause (section 3.3.10), padded.
func appendCause(b []byte, code uint16, info []byte) []byte {
	return appendTLV(b, code, info)
}

func appendStaleCookieError(b []byte, usec uint32) []byte {
	var v [4]byte
	binary.BigEndian.PutUint32(v[:], usec)
	at := len(b)
	b = appendChunkHeader(b, ctError, 0)
	b = appendCause(b, causeStaleCookie, v[:])
	return endChunk(b, at)
}

func appendMissingParamCause(b []byte, param uint16) []byte {
	var v [6]byte
	binary.BigEndian.PutUint32(v[:], 1)
	binary.BigEndian.PutUint16(v[4:], param)
	return appendCause(b, causeMissingMandatoryParam, v[:])
}

func appendNoUserDataCause(b []byte, tsn uint32) []byte {
	var v [4]byte
	binary.BigEndian.PutUint32(v[:], tsn)
	return appendCause(b, causeNoUserData, v[:])
}

// appendRestartNewAddrCause appends a "Restart of an Association with New
// Addresses" cause listing the addresses a does not know.
func appendRestartNewAddrCause(b []byte, addrs []netip.Addr, a *assoc) []byte {
	at := len(b)
	b = append(b, 0, causeRestartNewAddrs, 0, 0)
	for _, ip := range addrs {
		if a.knowsPeerAddr(ip) {
			continue
		}
		if ip.Is4() {
			v := ip.As4()
			b = appendTLV(b, paramIPv4, v[:])
		} else {
			v := ip.As16()
			b = appendTLV(b, paramIPv6, v[:])
		}
	}
	binary.BigEndian.PutUint16(b[at+2:], uint16(len(b)-at))
	return b
}

func invalidStreamInfo(sid uint16) []byte {
	return []byte{byte(sid >> 8), byte(sid), 0, 0}
}

// firstCause returns the code of the first error cause in v, or 0.
func firstCause(v []byte) uint16 {
	if len(v) < 4 {
		return 0
	}
	return binary.BigEndian.Uint16(v)
}

// hasCause reports whether the causes v include code.
func hasCause(v []byte, code uint16) bool {
	found := false
	walkParams(v, func(t uint16, _, _ []byte) bool {
		found = t == code
		return !found
	})
	return found
}

// staleCookieMeasure returns the Measure of Staleness of a "Stale Cookie"
// cause among the causes v.
func staleCookieMeasure(v []byte) (time.Duration, bool) {
	var d time.Duration
	found := false
	walkParams(v, func(t uint16, val, _ []byte) bool {
		if t == causeStaleCookie && len(val) == 4 {
			d = time.Duration(binary.BigEndian.Uint32(val)) * time.Microsecond
			found = true
		}
		return !found
	})
	return d, found
}

func parseShutdown(c *rxChunk) (uint32, bool) {
	v := c.value()
	if len(v) != 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(v), true
}

// validHeartbeat reports whether a HEARTBEAT value holds a Heartbeat Info
// parameter.
func validHeartbeat(v []byte) bool {
	_, ok := heartbeatInfo(v)
	return ok
}

// heartbeatInfo returns the value of the Heartbeat Info parameter in v.
func heartbeatInfo(v []byte) ([]byte, bool) {
	var info []byte
	ok := walkParams(v, func(t uint16, val, _ []byte) bool {
		if t == paramHeartbeatInfo {
			info = val
			return false
		}
		return true
	})
	return info, ok && info != nil
}

func parseData(c *rxChunk, d *transfer.Data) bool {
	return transfer.ParseData(c.raw, d)
}

func parseSack(c *rxChunk, s *transfer.SACK) bool {
	return transfer.ParseSACK(c.raw, s)
}
