package transfer

import (
	"runtime"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"

	"github.com/usctp/usctp/internal/testsupport"
)

// heldTinyFragments fills a receiver with 1-byte first fragments (B bit,
// no E bit) of ordered messages that never complete, spread over 16
// streams, until it drops them, as a hostile peer filling the window would.
// It returns the fragments the receiver kept and the heap they hold.
func heldTinyFragments(t testing.TB, buffer int, idata bool) (frags int, heap uint64, r *receiver) {
	e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 16, Buffers: api.Buffers{RecvBuffer: buffer}, Interleaved: idata})
	if err != nil {
		t.Fatal(err)
	}
	r = &e.recv
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // sync.Pools keep what they hold through one collection
	runtime.ReadMemStats(&before)
	one := []byte{1}
	var d Data
	var id IData
	tsn := TSN(1)
	for i := 0; i < 4*buffer; i++ {
		var v Verdict
		sid, seq := uint16(i%16), uint32(1+i/16) // seq 0 never comes: nothing is deliverable
		if idata {
			id = IData{TSN: tsn, SID: sid, MID: seq, Flags: chunk.FlagBeginning, Payload: one}
			v, err = r.handleIData(epoch, &id)
		} else {
			d = Data{TSN: tsn, SID: sid, SSN: uint16(seq), Flags: chunk.FlagBeginning, Payload: one}
			v, err = r.handleData(epoch, &d)
		}
		if err != nil {
			t.Fatal(err)
		}
		r.endPacket(epoch)
		if v != Accepted {
			break
		}
		frags++
		tsn++
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return frags, max(after.HeapAlloc, before.HeapAlloc) - before.HeapAlloc, r
}

// TestTinyFragmentsMemory checks that a window full of 1-byte fragments
// holds memory within a small factor of the receive buffer: held data is
// charged by what it costs (fragment record and buffer, as Linux charges
// skb truesize), not by its user bytes, so the window closes when the
// memory limit (twice the buffer) is reached.
func TestTinyFragmentsMemory(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation sizes differ under -race")
	}
	const buffer = 64 << 10
	for _, idata := range []bool{false, true} {
		frags, heap, r := heldTinyFragments(t, buffer, idata)
		t.Logf("idata %v: %d fragments of 1 byte held, heap +%d bytes (%.0f per fragment, %.2fx the %d-byte buffer), charged %d, a_rwnd %d",
			idata, frags, heap, float64(heap)/float64(frags), float64(heap)/buffer, buffer, r.charged(), r.advertise())
		if heap > 3*buffer {
			t.Errorf("idata %v: %d bytes held for a %d-byte receive buffer, want at most 3x", idata, heap, buffer)
		}
		if r.charged() > memFactor*buffer+chunkCost(DefaultMTU) {
			t.Errorf("idata %v: charged %d over the memory limit", idata, r.charged())
		}
		if a := r.advertise(); a != 0 {
			t.Errorf("idata %v: a_rwnd %d once full", idata, a)
		}
		runtime.KeepAlive(r)
	}
}

// TestSpreadStreamsHeap checks the heap a peer leaves behind by sending a
// message of two fragments on each of 65535 streams while the application
// reads everything: the inbound stream records (stream.In, 24 bytes per
// stream, kept for the stream's sequence) stay, but the streams' side
// objects go back once a stream is read empty, for DATA and for I-DATA:
// kept, they would hold about 17 MB that nothing charges.
func TestSpreadStreamsHeap(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation sizes differ under -race")
	}
	const streams = 65535
	for _, idata := range []bool{false, true} {
		e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: streams, Interleaved: idata})
		if err != nil {
			t.Fatal(err)
		}
		r := &e.recv
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		buf := make([]byte, 64)
		he, llo := []byte("he"), []byte("llo")
		tsn := TSN(1)
		for sid := range uint16(streams) {
			for i, part := range [][]byte{he, llo} {
				flags := uint8(chunk.FlagBeginning)
				if i == 1 {
					flags = chunk.FlagEnd
				}
				var v Verdict
				if idata {
					id := IData{TSN: tsn, SID: sid, Flags: flags, Payload: part}
					if i == 0 {
						id.PPID = 1
					} else {
						id.FSN = 1
					}
					v, err = r.handleIData(epoch, &id)
				} else {
					d := Data{TSN: tsn, SID: sid, Flags: flags, Payload: part}
					v, err = r.handleData(epoch, &d)
				}
				if err != nil || v != Accepted {
					t.Fatalf("idata %v: stream %d: verdict %v, %v", idata, sid, v, err)
				}
				r.endPacket(epoch)
				tsn++
			}
			n, info, err := e.Read(buf)
			if err != nil || string(buf[:n]) != "hello" || info.SID != sid {
				t.Fatalf("idata %v: stream %d: read %q on %d, %v", idata, sid, buf[:n], info.SID, err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		records := int64(streams * 24)
		t.Logf("idata %v: heap +%d bytes after one message on each of %d streams (the In records are %d)", idata, heap, streams, records)
		if heap > records+1<<20 {
			t.Errorf("idata %v: heap +%d bytes, want at most the In records (%d) plus 1 MiB", idata, heap, records)
		}
		runtime.KeepAlive(e)
	}
}
