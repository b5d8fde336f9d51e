package sctp

import (
	"bytes"
	"testing"
)

const (
	ctIDataType = 0x40 // I-DATA (RFC 8260)
	ctDataType  = 0x00 // DATA
)

// TestUDPInterleaving checks I-DATA end to end over UDP loopback through the
// public API. RFC 8260 section 2.2.1: "User message interleaving has been
// negotiated for an association if both endpoints have indicated I-DATA
// support." Then every message goes as I-DATA, and with round robin a small
// message on another stream completes while a large one is still on the way.
func TestUDPInterleaving(t *testing.T) {
	for _, tc := range []struct {
		name           string
		listen, dial   bool
		wantInterleave bool
	}{
		{"both", true, true, true},
		{"listener only", true, false, false},
		{"dialer only", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := loopCfg()
			lc.Extensions.Interleaving = tc.listen
			// The large message arrives whole, in one read.
			lc.Buffers.RecvBuffer = 8 << 20
			l, dc := listenLoop(t, lc)
			dc.Extensions.Interleaving = tc.dial
			dc.Scheduler = SchedulerRoundRobin
			// Both messages are queued at once: with the default unsent
			// limit the second write would wait until half of the first
			// was sent, and a loaded machine could let the rest go first.
			dc.Buffers.UnsentLimit = -1
			dc.Buffers.SendBuffer = 8 << 20
			c := dialLoop(t, dc)
			defer c.Close()
			s := accept(t, l)
			defer s.Close()

			// Sixteen times the initial congestion window on loopback
			// (4 MTUs of 64 KiB): it cannot all be on the way before the
			// small message is queued unless the writer stalls for
			// several round trips.
			big := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16)
			small := []byte("small message")
			if _, err := c.WriteMsg(big, SendInfo{Stream: 1, PPID: 7}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.WriteMsg(small, SendInfo{Stream: 2, PPID: 9}); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 5<<20)
			var order []uint16
			for len(order) < 2 {
				n, info, err := s.ReadMsg(buf)
				if err != nil {
					t.Fatal(err)
				}
				if !info.EOR {
					t.Fatalf("message on stream %d in parts (%d bytes) with a %d-byte buffer", info.Stream, n, len(buf))
				}
				switch info.Stream {
				case 1:
					if !bytes.Equal(buf[:n], big) || info.PPID != 7 {
						t.Fatalf("large message: %d bytes, ppid %d", n, info.PPID)
					}
				case 2:
					if !bytes.Equal(buf[:n], small) || info.PPID != 9 {
						t.Fatalf("small message: %q, ppid %d", buf[:n], info.PPID)
					}
				default:
					t.Fatalf("message on stream %d", info.Stream)
				}
				order = append(order, info.Stream)
			}
			st := c.Stats()
			idata, data := st.ChunksOut[ctIDataType], st.ChunksOut[ctDataType]
			if tc.wantInterleave {
				if idata == 0 || data != 0 {
					t.Fatalf("interleaving negotiated: sent %d I-DATA and %d DATA chunks", idata, data)
				}
				if order[0] != 2 {
					t.Errorf("delivery order %v: the small message waited behind the large one", order)
				}
			} else if idata != 0 || data == 0 {
				t.Fatalf("interleaving not negotiated: sent %d I-DATA and %d DATA chunks", idata, data)
			}
		})
	}
}
