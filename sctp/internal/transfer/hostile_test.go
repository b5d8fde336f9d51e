package transfer

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// snapshot captures sender state a rejected SACK must not change.
type snapshot struct {
	cum                   TSN
	flight, cwnd, rwnd    int
	inFlight, rtx, gap    int
	t3                    time.Time
	acked, stale, invalid uint64
}

func snap(x *tx) snapshot {
	s := &x.e.send
	return snapshot{s.ledger.cumAck, x.e.path.flight, x.e.path.cwnd, s.peerRwnd, s.ledger.inFlight, s.ledger.rtxPending, s.ledger.gapAcked, s.loss.t3,
		x.e.stats.BytesAcked, x.e.stats.SACKsStale, 0}
}

// RFC 9260 section 12.4: "An SCTP implementation MUST abort the
// association if it receives a SACK chunk acknowledging a TSN that has not
// been sent." Hostile SACKs: acknowledging TSNs never sent (also through
// gap blocks at 0xFFFF) is a protocol violation (the association ABORTs);
// malformed and overlapping blocks drop the SACK. Neither changes anything.
func TestHostileSACK(t *testing.T) {
	cases := []struct {
		name      string
		cum       TSN
		gaps      []uint16
		violation bool
	}{
		{"cum beyond highest sent", 1005, nil, true},
		{"cum far ahead", 1000 + 0x7ffffff0, nil, true},
		{"gap at 0xFFFF", 999, []uint16{0xffff, 0xffff}, true},
		{"gap 1-0xFFFF", 999, []uint16{1, 0xffff}, true},
		{"gap beyond highest", 1000, []uint16{2, 5}, true},
		{"gap start zero", 999, []uint16{0, 1}, false},
		{"gap start after end", 999, []uint16{3, 2}, false},
		{"gaps out of order", 999, []uint16{3, 3, 1, 1}, false},
		{"gaps overlapping", 999, []uint16{1, 3, 3, 4}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
			x.queue(5, 100) // TSNs 1000..1004 in one packet
			x.flush()
			before := snap(x)
			_, err := x.sack(c.cum, api.DefaultBuffer, c.gaps...)
			if errors.Is(err, ErrProtocolViolation) != c.violation || (!c.violation && err != nil) {
				t.Fatalf("err %v, want protocol violation %v", err, c.violation)
			}
			if after := snap(x); after != before {
				t.Fatalf("state changed by a rejected SACK:\n%+v\n%+v", before, after)
			}
			if x.e.stats.SACKsInvalid != 1 {
				t.Fatalf("SACKsInvalid %d", x.e.stats.SACKsInvalid)
			}
			checkInvariants(t, &x.e.send)
		})
	}
}

// Hostile SACKs: absurd duplicate counts are counted and otherwise
// harmless; a SACK before anything was sent acknowledging the TSN before
// the initial TSN is fine.
func TestHostileSACKDupsAndEmpty(t *testing.T) {
	x := newTx(t, Config{})
	if _, err := x.sack(999, api.DefaultBuffer); err != nil {
		t.Fatalf("SACK of nothing: %v", err)
	}
	x.queue(2, 100)
	x.flush()
	dups := make([]TSN, 65535)
	if _, err := x.e.HandleSACK(x.now, &SACK{CumTSNAck: 1001, ARwnd: api.DefaultBuffer, Dups: dups}); err != nil {
		t.Fatal(err)
	}
	if x.e.stats.DupTSNsReported != 65535 || !x.e.SendIdle() {
		t.Fatalf("dups %d idle %v", x.e.stats.DupTSNsReported, x.e.SendIdle())
	}
}

// FuzzSender feeds arbitrary SACK sequences to a sender with data in flight
// and checks its invariants: no panic, counters consistent, rejected SACKs
// change nothing.
func FuzzSender(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 1, 0, 2, 0, 0})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 2, 0, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}, PeerRwnd: 20000})
		x.e.path.cwnd = 30000
		for i := range 40 {
			x.e.send.enqueue(uint16(i%4), 0, i%3 == 0, make([]byte, 100+i*37))
		}
		var sk SACK
		for len(b) >= 4 {
			op := b[0]
			switch op % 4 {
			case 0, 1: // SACK: cum offset, a_rwnd, gap count, gaps
				sk.CumTSNAck = x.e.send.ledger.cumAck + TSN(b[1])
				sk.ARwnd = uint32(b[2]) << 8
				n := int(b[3] % 8)
				b = b[4:]
				sk.Gaps = sk.Gaps[:0]
				for ; n > 0 && len(b) >= 2; n-- {
					sk.Gaps = append(sk.Gaps, GapBlock{Start: uint16(b[0]), End: uint16(b[1])})
					b = b[2:]
				}
				x.e.HandleSACK(x.now, &sk)
			case 2: // time passes, timers fire
				x.advance(time.Duration(b[1]) * 10 * time.Millisecond)
				x.e.OnTimeout(x.now)
				b = b[2:]
			case 3: // send
				x.e.AppendData(x.now, x.pkt[:0], int(b[1])*8)
				b = b[2:]
			}
			checkInvariants(t, &x.e.send)
		}
	})
}

// FuzzReceiver feeds arbitrary DATA chunks to a receiver, reading (in
// arrival order or one stream) and acknowledging along the way: no panic,
// held bytes bounded.
func FuzzReceiver(f *testing.F) {
	f.Add([]byte{1, 0, 0, 3, 10, 2, 0, 1, 3, 10})
	f.Fuzz(fuzzReceiver)
}

func fuzzReceiver(t *testing.T, b []byte) {
	{
		cfg := Config{PeerTSN: 1, OutStreams: 4, InStreams: 4, Buffers: api.Buffers{RecvBuffer: 4000}}
		e, _ := New(cfg)
		now := epoch
		buf := make([]byte, 700)
		payload := make([]byte, 256)
		for len(b) >= 5 {
			d := Data{TSN: 1 + TSN(b[0]), SID: uint16(b[1] % 6), SSN: uint16(b[2] % 8), Flags: b[3] & 0xf, Payload: payload[:b[4]]}
			b = b[5:]
			e.HandleData(now, &d)
			e.EndPacket(now)
			if e.SACKDue(now) {
				e.AppendSACK(now, nil, 1400)
			}
			switch len(b) % 3 {
			case 0:
				e.Read(buf)
			case 1:
				e.ReadStream(uint16(len(b)%6), buf)
			}
			if e.RecvHeld() > cfg.RecvBuffer+DefaultMTU {
				t.Fatalf("held %d over the buffer", e.RecvHeld())
			}
		}
	}
}
