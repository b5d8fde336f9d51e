package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// BenchmarkReceiverBacklog measures a receiver whose reader is behind: it
// holds more than its partial delivery point (half the window) in complete
// messages, spread over the streams in use, while each op adds one message
// of two fragments (as a 1452-byte message over UDP encapsulation arrives)
// on the next stream and reads the oldest message. With a backlog on every
// stream no message needs partial delivery; with more streams than messages
// held, a message's first fragment on a stream with nothing queued starts
// one.
//
// The idata runs do the same with I-DATA (RFC 8260).
func BenchmarkReceiverBacklog(b *testing.B) {
	for _, idata := range []bool{false, true} {
		for _, n := range []int{64, 4096, 65535} {
			name := fmt.Sprintf("streams=%d", n)
			if idata {
				name = "idata/" + name
			}
			b.Run(name, func(b *testing.B) { benchBacklog(b, n, idata) })
		}
	}
}

func benchBacklog(b *testing.B, n int, idata bool) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: n, PeerRwnd: api.DefaultBuffer, Interleaved: idata})
	if err != nil {
		b.Fatal(err)
	}
	r := &e.recv
	tsn := TSN(1)
	ssn := make([]uint16, n)
	first, second := make([]byte, 1444), make([]byte, 8)
	buf := make([]byte, 4096)
	frags := [2]struct {
		flags uint8
		p     []byte
	}{{chunk.FlagBeginning, first}, {chunk.FlagEnd, second}}
	var d Data
	var id IData
	sid := 0
	add := func() {
		for i, f := range frags {
			var v Verdict
			var err error
			if idata {
				id = IData{TSN: tsn, SID: uint16(sid), MID: uint32(ssn[sid]), FSN: uint32(i), PPID: 1, Flags: f.flags, Payload: f.p}
				v, err = r.handleIData(epoch, &id)
			} else {
				d = Data{TSN: tsn, SID: uint16(sid), SSN: ssn[sid], Flags: f.flags, Payload: f.p}
				v, err = r.handleData(epoch, &d)
			}
			if err != nil || v != Accepted {
				b.Fatalf("TSN %d: %v %v", tsn, v, err)
			}
			r.endPacket(epoch)
			tsn++
		}
		ssn[sid]++
		sid = (sid + 1) % n
	}
	read := func() {
		for {
			_, info, err := r.read(buf)
			if err != nil {
				b.Fatal(err)
			}
			if info.EOR {
				return
			}
		}
	}
	for r.held() < r.win.pdPoint+4096 {
		add()
	}
	for b.Loop() {
		add()
		read()
		if r.tsns.cum != tsn-1 {
			b.Fatal("gap")
		}
		if r.acks.due(epoch) {
			r.appendSACK(epoch, buf[:0], 1500)
		}
	}
	b.ReportMetric(float64(r.stats.PartialDeliveries)/float64(b.N), "partials/op")
}
