package assoc

import (
	"slices"
	"testing"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// blockCounter is a scheduler that counts the streams blocked: an
// outgoing reset that walks the streams blocks every one.
type blockCounter struct {
	sched.Scheduler
	blocks int
}

func (b *blockCounter) Block(sid uint16) { b.blocks++; b.Scheduler.Block(sid) }

// sentData reads what the association sent and returns its DATA chunks
// and its RE-CONFIG parameters.
func (tc *testConn) sentData() (data []chunk.Data, ps []chunk.ReconfigParam) {
	tc.t.Helper()
	tc.readPackets()
	for _, p := range tc.sent {
		for i := range p.p.chunks {
			if c := &p.p.chunks[i]; c.typ == chunk.TypeData {
				d, err := chunk.ParseData(chunkOfRx(c))
				if err != nil {
					tc.t.Fatal(err)
				}
				d.Payload = slices.Clone(d.Payload)
				data = append(data, d)
			}
		}
		ps = append(ps, reconfParams(tc.t, &p)...)
	}
	tc.sent = nil
	return data, ps
}

// RFC 6525 sections 4.2 and 5.2.3, paraphrased: an Incoming SSN Reset
// Request listing no stream asks us to reset all our outgoing streams,
// which we do with an Outgoing SSN Reset Request listing none, answering
// it. A flood of such requests (each performed, then the next) is
// performed each time: the messages written before each request go out
// with the old numbering and are covered by its Sender's Last Assigned
// TSN, those written while it is outstanding wait (streams never used
// before included) and leave numbered from 0 once the peer performed it,
// and no request blocks more streams than were written to during it (the
// old code blocked every stream used, on every request).
func TestReconfPeerIncomingResetAllFlood(t *testing.T) {
	tc := connectReconf(t)
	a := tc.a
	eng := a.data.eng
	sc, err := sched.New(sched.FCFS, sched.Options{Streams: int(a.outStreams)})
	if err != nil {
		t.Fatal(err)
	}
	bc := &blockCounter{Scheduler: sc}
	if err := eng.ReplaceScheduler(bc); err != nil {
		t.Fatal(err)
	}
	if a.outStreams < 8 {
		t.Fatalf("%d outbound streams", a.outStreams)
	}
	send := func(sid uint16, s string) {
		t.Helper()
		if err := a.send(tc.now, sid, 0, false, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	for sid := range a.outStreams {
		send(sid, "first")
	}
	data, _ := tc.sentData()
	if len(data) != int(a.outStreams) {
		t.Fatalf("%d DATA chunks, want %d", len(data), a.outStreams)
	}
	seq := tc.peerTSN
	next := make([]uint16, a.outStreams) // next SSN per stream
	for sid := range next {
		next[sid] = 1
	}
	for round := range 20 {
		sid := uint16(round % int(a.outStreams))
		send(sid, "old") // written before the request: old numbering
		bc.blocks = 0
		tc.writeChunks(sackChunk(uint32(eng.NextTSN()-1), 1<<20), reconfChunk(inReset(seq)))
		data, ps := tc.sentData()
		if len(ps) != 1 || ps[0].Type != chunk.ParamOutgoingSSNReset || ps[0].RespSeq != seq || ps[0].Streams.Len() != 0 {
			t.Fatalf("round %d: answer %+v", round, ps)
		}
		if len(data) != 1 || data[0].SID != sid || data[0].SSN != next[sid] || string(data[0].Payload) != "old" {
			t.Fatalf("round %d: sent %+v before the request, want stream %d SSN %d", round, data, sid, next[sid])
		}
		if ps[0].LastTSN != data[0].TSN {
			t.Fatalf("round %d: Sender's Last Assigned TSN %d, the old message has TSN %d", round, ps[0].LastTSN, data[0].TSN)
		}
		// Written while the request is out: wait.
		other := (sid + 3) % a.outStreams
		send(sid, "new")
		send(other, "new")
		tc.writeChunks(sackChunk(uint32(data[0].TSN), 1<<20))
		if data, _ := tc.sentData(); len(data) != 0 {
			t.Fatalf("round %d: sent %+v while the reset is outstanding", round, data)
		}
		tc.writeChunks(reconfChunk(response(ps[0].ReqSeq, chunk.ReconfigSuccessPerformed)))
		if ev := tc.wantReconfEvent(); ev.Direction != api.DirOutgoing || len(ev.Streams) != 0 || ev.Err != nil {
			t.Fatalf("round %d: event %+v", round, ev)
		}
		data, _ = tc.sentData()
		if len(data) != 2 {
			t.Fatalf("round %d: sent %+v after the reset, want the two waiting messages", round, data)
		}
		for _, d := range data {
			if d.SSN != 0 || string(d.Payload) != "new" {
				t.Fatalf("round %d: sent %+v after the reset", round, d)
			}
		}
		for i := range next {
			next[i] = 0
		}
		next[sid], next[other] = 1, 1
		if bc.blocks > 2 {
			t.Fatalf("round %d: %d streams blocked for a request during which 2 were written", round, bc.blocks)
		}
		tc.writeChunks(sackChunk(uint32(eng.NextTSN()-1), 1<<20))
		tc.sentData()
		seq++
	}
	if r := a.stats.Reconf; r.StreamResetsOut != 20 {
		t.Fatalf("counters %+v", r)
	}
}
