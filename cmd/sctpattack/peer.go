package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// peer is a hand-made SCTP endpoint over UDP encapsulation (RFC 6951): it
// builds every packet itself with sctp/chunk, so it can send what a real
// stack never would. It is not safe for concurrent use.
type peer struct {
	conn     *net.UDPConn
	srcPort  uint16 // our SCTP port
	dstPort  uint16 // the target's SCTP port
	myTag    uint32 // verification tag the target puts in its packets
	peerTag  uint32 // verification tag we put in ours (0 before the handshake)
	tsn      chunk.TSN
	peerTSN  chunk.TSN // the target's initial TSN
	streams  uint16    // inbound streams the target accepts
	cookie   []byte    // the state cookie of the last INIT ACK
	rng      *rand.Rand
	buf, rx  []byte
	sent     counter // what we sent
	received counter // what came back
	// reflected is what the victims of a reflection pattern got
	// (reflect.go).
	reflected counter
}

// counter counts packets and bytes (UDP payload).
type counter struct{ packets, bytes int64 }

func (c *counter) add(n int) { c.packets++; c.bytes += int64(n) }

// newPeer opens a UDP socket toward the target's encapsulation port.
func newPeer(target *net.UDPAddr, sctpPort uint16, seed uint64) (*peer, error) {
	c, err := net.DialUDP("udp", nil, target)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5c7b))
	p := &peer{conn: c, srcPort: uint16(20000 + rng.IntN(30000)), dstPort: sctpPort, rng: rng,
		buf: make([]byte, 0, 65536), rx: make([]byte, 65536)}
	p.myTag = rng.Uint32() | 1
	p.tsn = chunk.TSN(rng.Uint32())
	return p, nil
}

func (p *peer) Close() error { return p.conn.Close() }

// header starts a packet with the verification tag tag.
func (p *peer) header(tag uint32) []byte {
	return chunk.Header{SrcPort: p.srcPort, DstPort: p.dstPort, Tag: tag}.Append(p.buf[:0])
}

// send finishes pkt (CRC32c) and sends it.
func (p *peer) send(pkt []byte) error {
	chunk.SetChecksum(pkt)
	p.buf = pkt[:0]
	_, err := p.conn.Write(pkt)
	if err == nil {
		p.sent.add(len(pkt))
	}
	return err
}

// sendRaw sends pkt as it is (no checksum computed).
func (p *peer) sendRaw(pkt []byte) error {
	_, err := p.conn.Write(pkt)
	if err == nil {
		p.sent.add(len(pkt))
	}
	return err
}

// recv waits up to d for a packet and returns it (valid until the next
// recv), or nil on timeout.
func (p *peer) recv(d time.Duration) []byte {
	p.conn.SetReadDeadline(time.Now().Add(d))
	n, err := p.conn.Read(p.rx)
	if err != nil {
		return nil
	}
	p.received.add(n)
	return p.rx[:n]
}

// drain reads whatever has arrived without waiting and reports whether an
// ABORT was among it.
func (p *peer) drain() (aborted bool) {
	for {
		pkt := p.recv(time.Microsecond)
		if pkt == nil {
			return aborted
		}
		if _, ok := find(pkt, chunk.TypeAbort); ok {
			aborted = true
		}
	}
}

// again opens a new association when the last one was aborted (or now and
// then anyway, with probability 1/n), as an attacker would to go on.
func (p *peer) again(aborted bool, n int, streams uint16) error {
	if !aborted && p.rng.IntN(n) != 0 {
		return nil
	}
	p.abort()
	return p.handshake(streams)
}

// find returns the first chunk of type t in pkt.
func find(pkt []byte, t chunk.Type) (chunk.Chunk, bool) {
	pk, err := chunk.ParsePacket(pkt)
	if err != nil {
		return chunk.Chunk{}, false
	}
	it := pk.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if c.Type == t {
			return c, true
		}
	}
	return chunk.Chunk{}, false
}

// waitFor receives until a packet with a chunk of type t arrives, up to d.
func (p *peer) waitFor(t chunk.Type, d time.Duration) (chunk.Chunk, []byte, error) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		pkt := p.recv(time.Until(end))
		if pkt == nil {
			break
		}
		if c, ok := find(pkt, t); ok {
			return c, pkt, nil
		}
	}
	return chunk.Chunk{}, nil, fmt.Errorf("no %v from the target in %v", t, d)
}

// initParams are the INIT parameters announcing PR-SCTP (RFC 3758) and
// RE-CONFIG (RFC 6525), so that FORWARD-TSN and RE-CONFIG reach the
// target's handlers.
func initParams() []byte {
	b := chunk.AppendEmptyParam(nil, chunk.ParamForwardTSNSupported)
	b, _ = chunk.AppendParam(b, chunk.ParamSupportedExtensions, []byte{byte(chunk.TypeReconfig), byte(chunk.TypeForwardTSN)})
	return b
}

// appendInit appends an INIT chunk asking for streams streams each way,
// with params.
func (p *peer) appendInit(b []byte, streams uint16, params []byte) []byte {
	in := chunk.Init{Tag: p.myTag, ARwnd: 1 << 20, OutStreams: streams, InStreams: streams, InitialTSN: p.tsn, Params: params}
	b, _ = in.Append(b)
	return b
}

// handshake opens an association: INIT, INIT ACK, COOKIE ECHO, COOKIE
// ACK. Each step is tried up to 5 times (packets get lost when the target
// is flooded, by us among others).
func (p *peer) handshake(streams uint16) error {
	_, err := p.handshakeWith(streams, initParams())
	return err
}

// handshakeWith is handshake with the INIT parameters params; it returns
// the INIT ACK (its parameters copied).
func (p *peer) handshakeWith(streams uint16, params []byte) (chunk.Init, error) {
	p.peerTag = 0
	var ack chunk.Init
	err := p.retry(chunk.TypeInitAck, func() []byte { return p.appendInit(p.header(0), streams, params) }, func(c chunk.Chunk) error {
		var err error
		ack, err = chunk.ParseInit(c)
		ack.Params = append([]byte(nil), ack.Params...)
		return err
	})
	if err != nil {
		return ack, err
	}
	ck, ok := ack.Find(chunk.ParamStateCookie)
	if !ok {
		return ack, errors.New("INIT ACK without a state cookie")
	}
	p.cookie = append(p.cookie[:0], ck.Value...)
	p.peerTag, p.peerTSN, p.streams = ack.Tag, ack.InitialTSN, min(streams, ack.InStreams)
	return ack, p.retry(chunk.TypeCookieAck, func() []byte {
		b, _ := chunk.AppendCookieEcho(p.header(p.peerTag), p.cookie)
		return b
	}, func(chunk.Chunk) error { return nil })
}

// retry sends the packet build makes until a chunk of type want comes
// back (handled by got), 5 times at most, waiting a second each time.
func (p *peer) retry(want chunk.Type, build func() []byte, got func(chunk.Chunk) error) error {
	var err error
	for range 5 {
		if err = p.send(build()); err != nil {
			return err
		}
		var c chunk.Chunk
		if c, _, err = p.waitFor(want, time.Second); err == nil {
			return got(c)
		}
	}
	return err
}

// data appends a DATA chunk of the next TSN.
func (p *peer) data(b []byte, sid, ssn uint16, flags uint8, payload []byte) []byte {
	d := chunk.Data{Flags: flags, TSN: p.tsn, SID: sid, SSN: ssn, PPID: 1, Payload: payload}
	p.tsn++
	b, _ = d.Append(b)
	return b
}

// abort ends the association with an ABORT.
func (p *peer) abort() {
	if p.peerTag != 0 {
		p.send(chunk.AppendEmpty(p.header(p.peerTag), chunk.TypeAbort, 0))
		p.peerTag = 0
	}
}

// be32 appends v big-endian.
func be32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
