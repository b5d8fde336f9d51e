package transfer

import (
	"errors"
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/stream"
)

// RFC 6525 section 5.2.2 E2 at the receiver: chunks of the streams being
// reset with a TSN beyond the peer's last assigned TSN are acknowledged but
// held out of reassembly (counting against the window) until the reset;
// other streams are not held.
func TestDeferredResetHolds(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 64 << 10}})
	r.whole(1, 1, 0, 100) // old numbering, SSN 0
	r.e.DeferIncomingReset(2, []uint16{1})
	if v := r.whole(3, 1, 0, 1000); v != Accepted { // new numbering: held
		t.Fatalf("verdict %v", v)
	}
	r.whole(4, 2, 0, 10) // another stream: not held
	if got := r.readAll(); len(got) != 2 || got[0] != 100 || got[1] != 10 {
		t.Fatalf("read %v, want the 100-byte and the stream-2 message only", got)
	}
	if w := r.e.recv.window(); w != 64<<10-1000 {
		t.Fatalf("window %d: the held 1000 bytes must count", w)
	}
	if last, ok := r.e.DeferredIncomingReset(); !ok || last != 2 {
		t.Fatalf("deferred %v %v", last, ok)
	}
	r.whole(2, 1, 1, 20) // the last old message
	if s := r.sack(); s.CumTSNAck != 4 {
		t.Fatalf("cum %d: held chunks are acknowledged", s.CumTSNAck)
	}
	if got := r.readAll(); len(got) != 1 || got[0] != 20 {
		t.Fatalf("read %v before the reset", got)
	}
	if !r.e.ResetIncoming([]uint16{1}) {
		t.Fatal("release failed")
	}
	if got := r.readAll(); len(got) != 1 || got[0] != 1000 {
		t.Fatalf("read %v after the reset, want the held message", got)
	}
	if _, ok := r.e.DeferredIncomingReset(); ok || r.e.stats.ReconfHeld != 1 {
		t.Fatalf("still deferred, or held %d", r.e.stats.ReconfHeld)
	}
}

// An Outgoing SSN Reset Request may leave only when no stream being reset
// has a message partly cut into chunks; a reset restarts SSNs at 0; added
// outbound streams take data only once the peer performed the addition.
func TestSenderReconf(t *testing.T) {
	x := newTx(t, Config{MTU: 1200})
	if err := x.e.send.enqueue(1, 0, false, make([]byte, 2500)); err != nil {
		t.Fatal(err)
	}
	x.packet()
	if !x.e.send.streamPartlyCut(1) || x.e.send.streamPartlyCut(0) {
		t.Fatal("Cutting: stream 1 is partly sent, stream 0 is not")
	}
	for len(x.packet()) > 0 {
	}
	if x.e.send.streamPartlyCut(1) {
		t.Fatal("stream 1 fully cut")
	}
	if got := x.e.LastAssignedTSN(); got != x.e.NextTSN()-1 {
		t.Fatalf("last assigned %d", got)
	}
	x.e.send.resetNumbering([]uint16{1, 9999})
	if o := x.e.streams.Out(1); o.MID != 0 {
		t.Fatalf("stream 1 MID %d after reset", o.MID)
	}
	first, err := x.e.send.addOutgoing(3)
	if err != nil || first != 4 {
		t.Fatalf("AddOutgoing: %d %v", first, err)
	}
	if err := x.e.send.enqueue(5, 0, false, []byte("x")); err == nil {
		t.Fatal("queued on a stream whose addition is pending")
	}
	if n := x.e.send.finishAddOutgoing(true); n != 7 {
		t.Fatalf("%d streams", n)
	}
	if st, _ := x.e.StreamState(6); st != stream.Open {
		t.Fatalf("added stream %v", st)
	}
	if err := x.e.send.enqueue(6, 0, false, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := x.e.send.addOutgoing(65535); err == nil {
		t.Fatal("added past 65535 streams")
	}
	if _, err := x.e.AddIncoming(65535); err == nil {
		t.Fatal("added past 65535 inbound streams")
	}
}

// An outgoing reset lets the messages written before it go out with the
// old numbering and holds the later ones (also on streams first used
// during a reset of every stream) until it is done; they then start at
// SSN 0.
func TestSenderResetBarrier(t *testing.T) {
	for _, all := range []bool{false, true} {
		x := newTx(t, Config{})
		var sids []uint16
		if !all {
			sids = []uint16{1}
		}
		q := func(sid uint16) {
			if err := x.e.send.enqueue(sid, 0, false, make([]byte, 100)); err != nil {
				t.Fatal(err)
			}
		}
		q(1)
		q(1)
		x.e.send.beginOutgoingReset(sids)
		if x.e.send.resets.ready() {
			t.Fatal("ready with old messages unsent")
		}
		q(1)
		q(2) // untouched until now
		var got []uint16
		for {
			ds := x.packet()
			if len(ds) == 0 {
				break
			}
			for _, d := range ds {
				got = append(got, d.SID<<8|d.SSN)
			}
		}
		want := []uint16{1<<8 | 0, 1<<8 | 1}
		if !all {
			want = append(want, 2<<8|0)
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("all=%v: sent %x before the reset, want %x", all, got, want)
		}
		if !x.e.send.resets.ready() {
			t.Fatalf("all=%v: not ready once the old messages left", all)
		}
		x.e.send.finishOutgoingReset(sids, true)
		ds := x.packet()
		n := 1
		if all {
			n = 2 // stream 2's first message waited too
		}
		if len(ds) != n {
			t.Fatalf("all=%v: %d chunks after the reset, want %d", all, len(ds), n)
		}
		for _, d := range ds {
			if d.SSN != 0 {
				t.Fatalf("all=%v: stream %d SSN %d after the reset", all, d.SID, d.SSN)
			}
		}
	}
}

// Streams can be added up to exactly 65535 each way (RFC 6525 sections
// 5.2.5 and 5.2.6, paraphrased: a request that would take the streams past
// what the 16-bit stream identifier allows is answered "Denied" and
// changes nothing). Inbound: the peer's Add Outgoing Streams (also our Add
// Incoming Streams, which the peer performs that way) growing 4 streams to
// 65535 succeeds and stream 65534 carries data; one more is refused with
// ErrStreamID (the association answers "Denied"). Outbound: Add Outgoing
// Streams to 65535 succeeds and stream 65534 sends; one more is refused.
func TestAddStreamsTo65535(t *testing.T) {
	r := newRx(t, Config{})
	if n, err := r.e.AddIncoming(65535 - 4); err != nil || n != 65535 {
		t.Fatalf("AddIncoming to 65535: %d streams, %v", n, err)
	}
	if v := r.whole(1, 65534, 0, 10); v != Accepted {
		t.Fatalf("DATA on stream 65534 after the addition: %v", v)
	}
	if got := r.readAll(); len(got) != 1 || got[0] != 10 {
		t.Fatalf("read %v, want one 10-byte message", got)
	}
	if n, err := r.e.AddIncoming(1); !errors.Is(err, ErrStreamID) || n != 65535 {
		t.Fatalf("AddIncoming past 65535: %d streams, %v; want 65535 and ErrStreamID", n, err)
	}
	if r.e.streams.InCount() != 65535 {
		t.Fatalf("refused addition changed the inbound streams to %d", r.e.streams.InCount())
	}

	fresh := newRx(t, Config{})
	if n, err := fresh.e.AddIncoming(65535 - 3); !errors.Is(err, ErrStreamID) || n != 4 {
		t.Fatalf("AddIncoming to 65536: %d streams, %v; want 4 and ErrStreamID", n, err)
	}
	if v := fresh.whole(1, 4, 0, 10); v != InvalidStream {
		t.Fatalf("DATA on stream 4 after a refused addition: %v", v)
	}

	x := newTx(t, Config{})
	first, err := x.e.send.addOutgoing(65535 - 4)
	if err != nil || first != 4 {
		t.Fatalf("AddOutgoing to 65535: first %d, %v", first, err)
	}
	if n := x.e.send.finishAddOutgoing(true); n != 65535 {
		t.Fatalf("%d outbound streams after the addition, want 65535", n)
	}
	if err := x.e.send.enqueue(65534, 0, false, []byte("x")); err != nil {
		t.Fatalf("queue on stream 65534: %v", err)
	}
	if ds := x.packet(); len(ds) != 1 || ds[0].SID != 65534 {
		t.Fatalf("sent %+v, want one chunk on stream 65534", ds)
	}
	if _, err := x.e.send.addOutgoing(1); !errors.Is(err, ErrStreamID) {
		t.Fatalf("AddOutgoing past 65535: %v, want ErrStreamID", err)
	}
	if n := x.e.streams.OutCount(); n != 65535 {
		t.Fatalf("refused addition changed the outbound streams to %d", n)
	}
}
