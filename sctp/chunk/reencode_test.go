package chunk

import (
	"fmt"
)

// reencodeChunk parses c with its typed parser, down to every parameter and
// cause, and encodes it again with the typed encoders, appending to b.
func reencodeChunk(b []byte, c Chunk) ([]byte, error) {
	switch c.Type {
	case TypeData:
		d, err := ParseData(c)
		if err != nil {
			return b, err
		}
		return d.Append(b)
	case TypeIData:
		d, err := ParseIData(c)
		if err != nil {
			return b, err
		}
		return d.Append(b)
	case TypeInit, TypeInitAck:
		m, err := ParseInit(c)
		if err != nil {
			return b, err
		}
		ps, err := reencodeParams(nil, m.Params)
		if err != nil {
			return b, err
		}
		m.Params = ps
		return m.Append(b)
	case TypeSack:
		s, err := ParseSack(c)
		if err != nil {
			return b, err
		}
		var gaps []GapBlock
		for i := range s.Gaps.Len() {
			gaps = append(gaps, s.Gaps.At(i))
		}
		var dups []TSN
		for i := range s.Dups.Len() {
			dups = append(dups, s.Dups.At(i))
		}
		return AppendSack(b, s.CumTSN, s.ARwnd, gaps, dups)
	case TypeNRSack:
		s, err := ParseNRSack(c)
		if err != nil {
			return b, err
		}
		var gaps, nr []GapBlock
		for i := range s.Gaps.Len() {
			gaps = append(gaps, s.Gaps.At(i))
		}
		for i := range s.NRGaps.Len() {
			nr = append(nr, s.NRGaps.At(i))
		}
		var dups []TSN
		for i := range s.Dups.Len() {
			dups = append(dups, s.Dups.At(i))
		}
		return AppendNRSack(b, s.Flags, s.CumTSN, s.ARwnd, gaps, nr, dups)
	case TypeHeartbeat, TypeHeartbeatAck:
		h, err := ParseHeartbeat(c)
		if err != nil {
			return b, err
		}
		ps, err := reencodeParams(nil, h.Params)
		if err != nil {
			return b, err
		}
		h.Params = ps
		return h.Append(b)
	case TypeAbort:
		a, err := ParseAbort(c)
		if err != nil {
			return b, err
		}
		cs, err := reencodeCauses(nil, a.Causes)
		if err != nil {
			return b, err
		}
		a.Causes = cs
		return a.Append(b)
	case TypeError:
		a, err := ParseError(c)
		if err != nil {
			return b, err
		}
		cs, err := reencodeCauses(nil, a.Causes)
		if err != nil {
			return b, err
		}
		return AppendError(b, cs)
	case TypeShutdown:
		t, err := ParseShutdown(c)
		if err != nil {
			return b, err
		}
		return AppendShutdown(b, t), nil
	case TypeECNE:
		t, err := ParseECNE(c)
		if err != nil {
			return b, err
		}
		return AppendECNE(b, t), nil
	case TypeCWR:
		t, err := ParseCWR(c)
		if err != nil {
			return b, err
		}
		return AppendCWR(b, t), nil
	case TypeShutdownAck, TypeCookieAck, TypeShutdownComplete:
		f, err := ParseEmpty(c)
		if err != nil {
			return b, err
		}
		return AppendEmpty(b, c.Type, f), nil
	case TypeCookieEcho:
		ck, err := ParseCookieEcho(c)
		if err != nil {
			return b, err
		}
		return AppendCookieEcho(b, ck)
	case TypeAuth:
		a, err := ParseAuth(c)
		if err != nil {
			return b, err
		}
		return a.Append(b)
	case TypeForwardTSN:
		f, err := ParseForwardTSN(c)
		if err != nil {
			return b, err
		}
		var s []StreamSSN
		for i := range f.Streams.Len() {
			s = append(s, f.Streams.At(i))
		}
		return AppendForwardTSN(b, f.NewCumTSN, s)
	case TypeIForwardTSN:
		f, err := ParseIForwardTSN(c)
		if err != nil {
			return b, err
		}
		var s []StreamMID
		for i := range f.Streams.Len() {
			s = append(s, f.Streams.At(i))
		}
		return AppendIForwardTSN(b, f.NewCumTSN, s)
	case TypeASCONF, TypeASCONFAck:
		a, err := ParseASCONF(c)
		if err != nil {
			return b, err
		}
		if !a.Ack {
			ad, err := a.Address.Addr()
			if err != nil {
				return b, err
			}
			ab, err := AppendAddrParam(nil, ad)
			if err != nil {
				return b, err
			}
			a.Address = Param{Type: a.Address.Type, Value: ab[4:a.Address.Len()]}
		}
		ps, err := reencodeParams(nil, a.Params)
		if err != nil {
			return b, err
		}
		a.Params = ps
		return a.Append(b)
	case TypeReconfig:
		r, err := ParseReconfig(c)
		if err != nil {
			return b, err
		}
		ps, err := reencodeParams(nil, r.Params)
		if err != nil {
			return b, err
		}
		r.Params = ps
		return r.Append(b)
	case TypePad:
		return AppendPad(b, c.Len())
	}
	return c.Append(b)
}

func reencodeParams(b, list []byte) ([]byte, error) {
	it := Params(list)
	var err error
	for p, ok := it.Next(); ok; p, ok = it.Next() {
		if b, err = reencodeParam(b, p); err != nil {
			return b, err
		}
	}
	return b, it.Err()
}

func reencodeParam(b []byte, p Param) ([]byte, error) {
	switch p.Type {
	case ParamIPv4Address, ParamIPv6Address:
		a, err := p.Addr()
		if err != nil {
			return b, err
		}
		return AppendAddrParam(b, a)
	case ParamCookiePreservative, ParamZeroChecksum, ParamAdaptationLayer:
		v, err := p.Uint32()
		if err != nil {
			return b, err
		}
		return AppendUint32Param(b, p.Type, v), nil
	case ParamSupportedAddressTypes, ParamHMACAlgo:
		l, err := p.Uint16s()
		if err != nil {
			return b, err
		}
		var v []uint16
		for i := range l.Len() {
			v = append(v, l.At(i))
		}
		return AppendUint16sParam(b, p.Type, v)
	case ParamECNCapable, ParamForwardTSNSupported:
		if err := p.Empty(); err != nil {
			return b, err
		}
		return AppendEmptyParam(b, p.Type), nil
	case ParamHostNameAddress:
		return AppendHostNameParam(b, string(p.HostName()))
	case ParamUnrecognizedParameter:
		q, err := p.Inner()
		if err != nil {
			return b, err
		}
		b, start := BeginParam(b, p.Type)
		if b, err = q.Append(b); err != nil {
			return b, err
		}
		return EndParam(b, start)
	case ParamAddIPAddress, ParamDeleteIPAddress, ParamSetPrimaryAddress,
		ParamErrorCauseIndication, ParamSuccessIndication:
		a, err := ParseASCONFParam(p)
		if err != nil {
			return b, err
		}
		if a.Type == ParamErrorCauseIndication {
			if a.Causes, err = reencodeCauses(nil, a.Causes); err != nil {
				return b, err
			}
		}
		return a.Append(b)
	case ParamOutgoingSSNReset, ParamIncomingSSNReset, ParamSSNTSNReset, ParamReconfigResponse,
		ParamAddOutgoingStreams, ParamAddIncomingStreams:
		r, err := ParseReconfigParam(p)
		if err != nil {
			return b, err
		}
		return r.Append(b)
	}
	return p.Append(b)
}

func reencodeCauses(b, list []byte) ([]byte, error) {
	it := Causes(list)
	var err error
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if b, err = reencodeCause(b, c); err != nil {
			return b, err
		}
	}
	return b, it.Err()
}

func reencodeCause(b []byte, c Cause) ([]byte, error) {
	switch c.Code {
	case CauseInvalidStream:
		sid, err := c.StreamID()
		if err != nil {
			return b, err
		}
		return AppendInvalidStreamCause(b, sid), nil
	case CauseMissingParam:
		l, err := c.MissingParams()
		if err != nil {
			return b, err
		}
		var ts []ParamType
		for i := range l.Len() {
			ts = append(ts, ParamType(l.At(i)))
		}
		return AppendMissingParamsCause(b, ts)
	case CauseStaleCookie, CauseNoUserData:
		v, err := c.Uint32()
		if err != nil {
			return b, err
		}
		return AppendUint32Cause(b, c.Code, v), nil
	case CauseUnsupportedHMAC:
		v, err := c.HMACID()
		if err != nil {
			return b, err
		}
		return AppendHMACCause(b, v), nil
	}
	return c.Append(b)
}

// reencodePacket deep-reencodes every chunk of a packet (header kept,
// checksum recomputed).
func reencodePacket(pkt []byte) ([]byte, error) {
	p, err := ParsePacket(pkt)
	if err != nil {
		return nil, err
	}
	out := p.Header.Append(nil)
	it := p.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if out, err = reencodeChunk(out, c); err != nil {
			return nil, err
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	SetChecksum(out)
	return out, nil
}

// textPacket returns the AppendText lines of every chunk of a packet, or
// the first error.
func textPacket(pkt []byte) (string, error) {
	p, err := ParsePacket(pkt)
	if err != nil {
		return "", err
	}
	var s []byte
	it := p.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if s, err = AppendText(s, c); err != nil {
			return "", fmt.Errorf("%s: %w", s, err)
		}
		s = append(s, '\n')
	}
	return string(s), it.Err()
}
