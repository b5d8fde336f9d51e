package assoc

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestEndToEndInterleaved runs two associations with I-DATA negotiated over
// a lossy, duplicating, reordering simulated network: large messages on
// several streams both ways, their fragments interleaved on the wire. Only
// I-DATA crosses the network, and every message arrives exactly once,
// intact, ordered ones in order per stream.
func TestEndToEndInterleaved(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.02, Dup: 0.01, Reorder: 0.02}
	p := newPair(t, 5, link)
	for _, ep := range p.eps {
		ep.cfg.Interleaving = true
	}
	p.connect()
	for i, a := range p.as {
		if !a.Interleaved() {
			t.Fatalf("side %d: interleaving not negotiated", i)
		}
	}
	const perSide, streams = 40, 6
	type key struct {
		sid uint16
		uo  bool
		mid uint32
	}
	var sent, got [2]int
	var nextSend, nextRecv [2][streams]uint32
	parts := [2]map[key][]byte{{}, {}}
	rng := rand.New(rand.NewPCG(5, 6))
	msg := func(side int, sid uint16, seq uint32) []byte {
		r := rand.New(rand.NewPCG(uint64(side)<<40|uint64(sid)<<32|uint64(seq), 9))
		b := make([]byte, 8+r.IntN(60<<10))
		b[0], b[1], b[2] = byte(side), byte(sid), byte(r.IntN(4)) // b[2] == 0: unordered
		b[4], b[5], b[6], b[7] = byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq)
		for i := 8; i < len(b); i++ {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	rbuf := make([]byte, 5000) // smaller than most messages: parts interleave
	var dataChunks, idataChunks int
	for steps := 0; got[0] < perSide || got[1] < perSide; steps++ {
		for side := range 2 {
			a := p.as[side]
			for sent[side] < perSide {
				sid := uint16(rng.IntN(streams))
				m := msg(side, sid, nextSend[side][sid])
				err := a.send(p.now, sid, 51, m[2] == 0, m)
				if errors.Is(err, api.ErrWouldBlock) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				nextSend[side][sid]++
				sent[side]++
			}
			for a.data.eng.Readable() {
				n, info, err := a.read(rbuf)
				if err != nil || info.Aborted {
					t.Fatalf("side %d read: %v %+v", side, err, info)
				}
				k := key{info.SID, info.Unordered, info.MID}
				parts[side][k] = append(parts[side][k], rbuf[:n]...)
				if !info.EOR {
					continue
				}
				b := parts[side][k]
				delete(parts[side], k)
				seq := uint32(b[4])<<24 | uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7])
				if want := msg(1-side, info.SID, seq); !bytes.Equal(b, want) || info.PPID != 51 {
					t.Fatalf("side %d: message sid %d seq %d corrupt (%d bytes, want %d)", side, info.SID, seq, len(b), len(want))
				}
				if !info.Unordered {
					if seq < nextRecv[side][info.SID] {
						t.Fatalf("side %d: ordered seq %d after %d", side, seq, nextRecv[side][info.SID])
					}
					nextRecv[side][info.SID] = seq + 1
				}
				got[side]++
			}
		}
		// Look at what goes on the wire.
		for i, ep := range p.eps {
			for {
				po, ok := ep.Poll(p.now, p.buf[:0])
				b := po.Data
				if !ok {
					break
				}
				it := chunk.Chunks(b[12:])
				for c, ok := it.Next(); ok; c, ok = it.Next() {
					switch c.Type {
					case chunk.TypeData:
						dataChunks++
					case chunk.TypeIData:
						idataChunks++
					}
				}
				p.net.Send(p.now, p.links[i], b)
			}
		}
		if !p.step() {
			t.Fatalf("idle: sent %v got %v", sent, got)
		}
		if p.now.Sub(t0) > time.Hour {
			t.Fatalf("not done: sent %v got %v", sent, got)
		}
	}
	if dataChunks != 0 || idataChunks == 0 {
		t.Fatalf("%d DATA and %d I-DATA chunks on the wire", dataChunks, idataChunks)
	}
	t.Logf("%d messages each way in %v virtual, %d I-DATA chunks", perSide, p.now.Sub(t0).Round(time.Millisecond), idataChunks)
}
