package chunk

import (
	"net/netip"
	"strconv"
)

// AppendText appends a one-line, human- and grep-readable description of c
// to dst and checks c in depth: the chunk, and every parameter and cause
// inside it, is parsed with its typed parser. It returns the first error
// found; the text then ends with the fields decoded before it.
//
// The text is the chunk name (Type.String) followed by space-separated
// key=value fields. Flags are shown for DATA and I-DATA (flags=UBEI
// letters), ABORT and SHUTDOWN-COMPLETE (t=0|1), NR-SACK (all_nr=0|1) and
// unknown chunks; reserved bits are not. Each parameter and cause inside
// the chunk starts with param=NAME or cause=NAME, followed by its own
// fields. cmd/sctpdump prints this format and tests grep for it.
func AppendText(dst []byte, c Chunk) ([]byte, error) {
	w := textWriter{b: append(dst, c.Type.String()...)}
	err := w.chunk(c)
	return w.b, err
}

type textWriter struct{ b []byte }

func (w *textWriter) key(k string) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, k...)
	w.b = append(w.b, '=')
}

func (w *textWriter) u(k string, v uint64) {
	w.key(k)
	w.b = strconv.AppendUint(w.b, v, 10)
}

func (w *textWriter) x(k string, v uint64) {
	w.key(k)
	w.b = append(w.b, "0x"...)
	w.b = strconv.AppendUint(w.b, v, 16)
}

func (w *textWriter) s(k, v string) {
	w.key(k)
	w.b = append(w.b, v...)
}

// q appends v as a Go string literal with ASCII escapes in which a space
// is written \x20, so that no field value ever holds a space.
func (w *textWriter) q(k string, v []byte) {
	w.key(k)
	var tmp [128]byte
	lit := strconv.AppendQuoteToASCII(tmp[:0], string(v))
	for _, c := range lit {
		if c == ' ' {
			w.b = append(w.b, `\x20`...)
		} else {
			w.b = append(w.b, c)
		}
	}
}

func (w *textWriter) bit(k string, set bool) {
	if set {
		w.u(k, 1)
	} else {
		w.u(k, 0)
	}
}

func (w *textWriter) dataFlags(f uint8) {
	w.key("flags")
	n := len(w.b)
	for _, x := range [...]struct {
		bit uint8
		c   byte
	}{{FlagUnordered, 'U'}, {FlagBeginning, 'B'}, {FlagEnd, 'E'}, {FlagImmediate, 'I'}} {
		if f&x.bit != 0 {
			w.b = append(w.b, x.c)
		}
	}
	if len(w.b) == n {
		w.b = append(w.b, '-')
	}
}

func (w *textWriter) gaps(k string, l GapList) {
	w.key(k)
	if l.Len() == 0 {
		w.b = append(w.b, '-')
	}
	for i := range l.Len() {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		g := l.At(i)
		w.b = strconv.AppendUint(w.b, uint64(g.Start), 10)
		w.b = append(w.b, '-')
		w.b = strconv.AppendUint(w.b, uint64(g.End), 10)
	}
}

func (w *textWriter) tsns(k string, l TSNList) {
	w.key(k)
	if l.Len() == 0 {
		w.b = append(w.b, '-')
	}
	for i := range l.Len() {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendUint(w.b, uint64(l.At(i)), 10)
	}
}

func (w *textWriter) list16(k string, l List16) {
	w.key(k)
	if l.Len() == 0 {
		w.b = append(w.b, '-')
	}
	for i := range l.Len() {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendUint(w.b, uint64(l.At(i)), 10)
	}
}

func (w *textWriter) types(k string, t []byte) {
	w.key(k)
	if len(t) == 0 {
		w.b = append(w.b, '-')
	}
	for i, x := range t {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, Type(x).String()...)
	}
}

func (w *textWriter) addr(k string, a netip.Addr) {
	w.key(k)
	w.b = a.AppendTo(w.b)
}

func (w *textWriter) chunk(c Chunk) error {
	switch c.Type {
	case TypeData:
		d, err := ParseData(c)
		if err != nil {
			return err
		}
		w.u("tsn", uint64(d.TSN))
		w.u("sid", uint64(d.SID))
		w.u("ssn", uint64(d.SSN))
		w.u("ppid", uint64(d.PPID))
		w.dataFlags(d.Flags)
		w.u("len", uint64(len(d.Payload)))
	case TypeIData:
		d, err := ParseIData(c)
		if err != nil {
			return err
		}
		w.u("tsn", uint64(d.TSN))
		w.u("sid", uint64(d.SID))
		w.u("mid", uint64(d.MID))
		w.u("fsn", uint64(d.FSN))
		if d.Beginning() {
			w.u("ppid", uint64(d.PPID))
		}
		w.dataFlags(d.Flags)
		w.u("len", uint64(len(d.Payload)))
	case TypeInit, TypeInitAck:
		m, err := ParseInit(c)
		if err != nil {
			return err
		}
		w.x("init_tag", uint64(m.Tag))
		w.u("a_rwnd", uint64(m.ARwnd))
		w.u("os", uint64(m.OutStreams))
		w.u("mis", uint64(m.InStreams))
		w.u("init_tsn", uint64(m.InitialTSN))
		return w.params(m.Params)
	case TypeSack:
		s, err := ParseSack(c)
		if err != nil {
			return err
		}
		w.u("cum_tsn", uint64(s.CumTSN))
		w.u("a_rwnd", uint64(s.ARwnd))
		w.gaps("gaps", s.Gaps)
		w.tsns("dups", s.Dups)
	case TypeNRSack:
		s, err := ParseNRSack(c)
		if err != nil {
			return err
		}
		w.bit("all_nr", s.Flags&FlagAllNR != 0)
		w.u("cum_tsn", uint64(s.CumTSN))
		w.u("a_rwnd", uint64(s.ARwnd))
		w.gaps("gaps", s.Gaps)
		w.gaps("nr_gaps", s.NRGaps)
		w.tsns("dups", s.Dups)
	case TypeHeartbeat, TypeHeartbeatAck:
		if _, err := ParseHeartbeat(c); err != nil {
			return err
		}
		return w.params(c.Value)
	case TypeAbort, TypeError:
		if c.Type == TypeAbort {
			w.bit("t", c.Flags&FlagT != 0)
		}
		return w.causes(c.Value)
	case TypeShutdown:
		tsn, err := ParseShutdown(c)
		if err != nil {
			return err
		}
		w.u("cum_tsn", uint64(tsn))
	case TypeShutdownAck, TypeCookieAck, TypeShutdownComplete:
		if _, err := ParseEmpty(c); err != nil {
			return err
		}
		if c.Type == TypeShutdownComplete {
			w.bit("t", c.Flags&FlagT != 0)
		}
	case TypeCookieEcho:
		w.u("cookie_len", uint64(len(c.Value)))
	case TypeECNE, TypeCWR:
		tsn, err := parseTSN(c, c.Type)
		if err != nil {
			return err
		}
		w.u("tsn", uint64(tsn))
	case TypeAuth:
		a, err := ParseAuth(c)
		if err != nil {
			return err
		}
		w.u("key_id", uint64(a.KeyID))
		w.u("hmac_id", uint64(a.HMACID))
		w.u("hmac_len", uint64(len(a.HMAC)))
	case TypeForwardTSN:
		f, err := ParseForwardTSN(c)
		if err != nil {
			return err
		}
		w.u("new_cum_tsn", uint64(f.NewCumTSN))
		w.key("streams")
		if f.Streams.Len() == 0 {
			w.b = append(w.b, '-')
		}
		for i := range f.Streams.Len() {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			s := f.Streams.At(i)
			w.b = strconv.AppendUint(w.b, uint64(s.SID), 10)
			w.b = append(w.b, ':')
			w.b = strconv.AppendUint(w.b, uint64(s.SSN), 10)
		}
	case TypeIForwardTSN:
		f, err := ParseIForwardTSN(c)
		if err != nil {
			return err
		}
		w.u("new_cum_tsn", uint64(f.NewCumTSN))
		w.key("streams")
		if f.Streams.Len() == 0 {
			w.b = append(w.b, '-')
		}
		for i := range f.Streams.Len() {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			s := f.Streams.At(i)
			w.b = strconv.AppendUint(w.b, uint64(s.SID), 10)
			w.b = append(w.b, ':')
			w.b = strconv.AppendUint(w.b, uint64(s.MID), 10)
			if s.Unordered {
				w.b = append(w.b, ":u"...)
			}
		}
	case TypeASCONF, TypeASCONFAck:
		a, err := ParseASCONF(c)
		if err != nil {
			return err
		}
		w.u("serial", uint64(a.Serial))
		if !a.Ack {
			ad, _ := a.Address.Addr()
			w.addr("addr", ad)
		}
		return w.params(a.Params)
	case TypeReconfig:
		if _, err := ParseReconfig(c); err != nil {
			return err
		}
		return w.params(c.Value)
	case TypePad:
		w.u("len", uint64(len(c.Value)))
	default:
		w.x("flags", uint64(c.Flags))
		w.u("len", uint64(len(c.Value)))
		w.s("action", c.Type.Action().String())
	}
	return nil
}

func (w *textWriter) params(b []byte) error {
	it := Params(b)
	for p, ok := it.Next(); ok; p, ok = it.Next() {
		if err := w.param(p); err != nil {
			return err
		}
	}
	return it.Err()
}

func (w *textWriter) param(p Param) error {
	w.s("param", p.Type.String())
	switch p.Type {
	case ParamHeartbeatInfo, ParamStateCookie, ParamRandom, ParamPadding:
		w.u("len", uint64(len(p.Value)))
	case ParamIPv4Address, ParamIPv6Address:
		a, err := p.Addr()
		if err != nil {
			return err
		}
		w.addr("addr", a)
	case ParamUnrecognizedParameter:
		q, err := p.Inner()
		if err != nil {
			return err
		}
		w.s("type", q.Type.String())
	case ParamCookiePreservative:
		v, err := p.Uint32()
		if err != nil {
			return err
		}
		w.u("increment_ms", uint64(v))
	case ParamHostNameAddress:
		w.q("name", p.HostName())
	case ParamSupportedAddressTypes, ParamHMACAlgo:
		l, err := p.Uint16s()
		if err != nil {
			return err
		}
		w.list16("ids", l)
	case ParamECNCapable, ParamForwardTSNSupported:
		return p.Empty()
	case ParamZeroChecksum:
		v, err := p.Uint32()
		if err != nil {
			return err
		}
		w.u("edmid", uint64(v))
	case ParamAdaptationLayer:
		v, err := p.Uint32()
		if err != nil {
			return err
		}
		w.x("code", uint64(v))
	case ParamChunkList, ParamSupportedExtensions:
		w.types("types", p.Types())
	case ParamAddIPAddress, ParamDeleteIPAddress, ParamSetPrimaryAddress,
		ParamErrorCauseIndication, ParamSuccessIndication:
		a, err := ParseASCONFParam(p)
		if err != nil {
			return err
		}
		w.u("corr", uint64(a.CorrelationID))
		switch p.Type {
		case ParamErrorCauseIndication:
			return w.causes(a.Causes)
		case ParamSuccessIndication:
		default:
			ad, _ := a.Address.Addr()
			w.addr("addr", ad)
		}
	case ParamOutgoingSSNReset, ParamIncomingSSNReset, ParamSSNTSNReset, ParamReconfigResponse,
		ParamAddOutgoingStreams, ParamAddIncomingStreams:
		r, err := ParseReconfigParam(p)
		if err != nil {
			return err
		}
		switch p.Type {
		case ParamOutgoingSSNReset:
			w.u("req_seq", uint64(r.ReqSeq))
			w.u("resp_seq", uint64(r.RespSeq))
			w.u("last_tsn", uint64(r.LastTSN))
			w.list16("streams", r.Streams)
		case ParamIncomingSSNReset:
			w.u("req_seq", uint64(r.ReqSeq))
			w.list16("streams", r.Streams)
		case ParamSSNTSNReset:
			w.u("req_seq", uint64(r.ReqSeq))
		case ParamReconfigResponse:
			w.u("resp_seq", uint64(r.RespSeq))
			w.s("result", r.Result.String())
			if r.HasTSNs {
				w.u("sender_next_tsn", uint64(r.SenderNextTSN))
				w.u("receiver_next_tsn", uint64(r.ReceiverNextTSN))
			}
		default:
			w.u("req_seq", uint64(r.ReqSeq))
			w.u("new_streams", uint64(r.NewStreams))
		}
	default:
		w.u("len", uint64(len(p.Value)))
		w.s("action", p.Type.Action().String())
	}
	return nil
}

func (w *textWriter) causes(b []byte) error {
	it := Causes(b)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if err := w.cause(c); err != nil {
			return err
		}
	}
	return it.Err()
}

func (w *textWriter) cause(c Cause) error {
	w.s("cause", c.Code.String())
	switch c.Code {
	case CauseInvalidStream:
		sid, err := c.StreamID()
		if err != nil {
			return err
		}
		w.u("sid", uint64(sid))
	case CauseMissingParam:
		l, err := c.MissingParams()
		if err != nil {
			return err
		}
		w.list16("types", l)
	case CauseStaleCookie:
		v, err := c.Uint32()
		if err != nil {
			return err
		}
		w.u("staleness_us", uint64(v))
	case CauseNoUserData:
		v, err := c.Uint32()
		if err != nil {
			return err
		}
		w.u("tsn", uint64(v))
	case CauseUnsupportedHMAC:
		v, err := c.HMACID()
		if err != nil {
			return err
		}
		w.u("hmac_id", uint64(v))
	case CauseUnrecognizedChunk:
		ch, err := c.Chunk()
		if err != nil {
			return err
		}
		w.s("type", ch.Type.String())
	case CauseUserAbort, CauseProtocolViolation:
		w.q("reason", c.Value)
	case CauseOutOfResource, CauseInvalidParam, CauseCookieWhileShutdown:
		if len(c.Value) != 0 {
			return errLen(c.Code.String(), ErrBadLength, 4, c.Len())
		}
	case CauseUnresolvableAddress, CauseUnrecognizedParams, CauseRestartNewAddresses,
		CauseDeleteLastAddress, CauseResourceShortage, CauseDeleteSourceAddress,
		CauseIllegalASCONFAck, CauseNoAuthorization:
		it := c.Params()
		w.key("params")
		n := 0
		for p, ok := it.Next(); ok; p, ok = it.Next() {
			if n > 0 {
				w.b = append(w.b, ',')
			}
			n++
			w.b = append(w.b, p.Type.String()...)
		}
		if n == 0 {
			w.b = append(w.b, '-')
		}
		return it.Err()
	default:
		w.u("len", uint64(len(c.Value)))
	}
	return nil
}
