package transfer

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

const testPMDCS = DefaultMTU - 12 // 1440
const chunk1000 = chunk.DataHeaderLen + 1000

func TestQueueChecks(t *testing.T) {
	x := newTx(t, Config{OutStreams: 2, InStreams: 2, Buffers: api.Buffers{SendBuffer: 3000}})
	if err := x.e.send.enqueue(2, 0, false, []byte{1}); !errors.Is(err, ErrStreamID) {
		t.Errorf("stream 2 of 2: %v, want ErrStreamID", err)
	}
	if err := x.e.send.enqueue(65535, 0, false, []byte{1}); !errors.Is(err, ErrStreamID) {
		t.Errorf("stream 65535 of 2: %v, want ErrStreamID", err)
	}
	if err := x.e.send.enqueue(0, 0, false, nil); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("empty message: %v, want ErrEmptyMessage", err)
	}
	if err := x.e.send.enqueue(1, 0, false, make([]byte, 2000)); err != nil {
		t.Fatal(err)
	}
	if err := x.e.send.enqueue(1, 0, false, make([]byte, 2000)); !errors.Is(err, ErrWouldBlock) {
		t.Errorf("full send buffer: %v, want ErrWouldBlock", err)
	}
	// A message larger than the whole buffer goes in when it is empty.
	y := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 1000}})
	if err := y.e.send.enqueue(0, 0, false, make([]byte, 5000)); err != nil {
		t.Errorf("big message into empty buffer: %v", err)
	}
}

// RFC 9260 section 6.5: "The Stream Sequence Number of an outgoing stream
// MUST be incremented by 1 for each ordered user message sent on that
// outgoing stream." "For unordered user messages, the Stream Sequence
// Number MUST NOT be changed." And fragments of one message carry the
// B and E bits on the first and last (section 6.9).
func TestSSNAndFragmentFlags(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	x.e.path.cwnd = 1 << 20
	x.e.send.enqueue(1, 9, false, make([]byte, 3000)) // 3 fragments
	x.e.send.enqueue(1, 9, true, make([]byte, 10))
	x.e.send.enqueue(1, 9, false, make([]byte, 10))
	var ds []Data
	for {
		p := x.packet()
		if len(p) == 0 {
			break
		}
		ds = append(ds, p...)
	}
	want := []struct {
		ssn   uint16
		flags uint8
		n     int
	}{
		{0, chunk.FlagBeginning, 1424}, {0, 0, 1424}, {0, chunk.FlagEnd, 152},
		{1, chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered, 10}, // SSN not used
		{1, chunk.FlagBeginning | chunk.FlagEnd, 10},
	}
	if len(ds) != len(want) {
		t.Fatalf("%d chunks, want %d", len(ds), len(want))
	}
	for i, w := range want {
		d := ds[i]
		if d.TSN != 1000+TSN(i) || d.Flags != w.flags || len(d.Payload) != w.n || (w.flags&chunk.FlagUnordered == 0 && d.SSN != w.ssn) || d.PPID != 9 || d.SID != 1 {
			t.Errorf("chunk %d: TSN %d SSN %d flags %x len %d, want TSN %d SSN %d flags %x len %d",
				i, d.TSN, d.SSN, d.Flags, len(d.Payload), 1000+i, w.ssn, w.flags, w.n)
		}
	}
}

// RFC 9260 section 7.2.1: "The initial cwnd before data transmission MUST
// be set to min(4 * PMDCS, max(2 * PMDCS, 4404)) bytes if the peer address
// is an IPv4 address and to min(4 * PMDCS, max(2 * PMDCS, 4344)) bytes if
// the peer address is an IPv6 address."
func TestCwndInitial(t *testing.T) {
	if c := newTx(t, Config{}).e.path.Cwnd(); c != 4404 {
		t.Errorf("IPv4 initial cwnd %d, want 4404", c)
	}
	if c := newTx(t, Config{IPv6: true}).e.path.Cwnd(); c != 4344 {
		t.Errorf("IPv6 initial cwnd %d, want 4344", c)
	}
	if c := newTx(t, Config{MTU: 9000}).e.path.Cwnd(); c != 2*(9000-12) {
		t.Errorf("jumbo initial cwnd %d, want %d", c, 2*(9000-12))
	}
}

// RFC 9260 section 6.1 rule B: "At any given time, the sender MUST NOT
// transmit new data to a given transport address if it has cwnd + (PMDCS -
// 1) or more bytes of data outstanding to that transport address. If data
// is available, the sender SHOULD exceed cwnd by up to (PMDCS - 1) bytes on
// a new data transmission if the flightsize does not currently reach cwnd."
func TestRuleBCwnd(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	x.queue(10, 1000)
	got := x.flush()
	if len(got) != 5 { // 4 chunks of 1016 bytes stay under 4404; the 5th exceeds it
		t.Fatalf("sent %d chunks under cwnd %d, want 5", len(got), x.e.path.Cwnd())
	}
	if f := x.e.path.flight; f < x.e.path.Cwnd() || f >= x.e.path.Cwnd()+testPMDCS {
		t.Fatalf("flight %d outside [cwnd, cwnd+PMDCS)", f)
	}
}

// RFC 9260 section 6.1 rule D: "When the time comes for the sender to
// transmit new DATA chunks, the protocol parameter 'Max.Burst' SHOULD be
// used to limit the number of packets sent. The limit MAY be applied by
// adjusting cwnd temporarily, as follows: if ((flightsize + Max.Burst *
// PMDCS) < cwnd) cwnd = flightsize + Max.Burst * PMDCS". A SACK lets the
// sender replace what it acknowledged and add Max.Burst packets; one that
// newly acknowledges many packets at once counts as the SACKs of every
// second packet it stands for (section 6.2).
func TestMaxBurst(t *testing.T) {
	x := newTx(t, Config{})
	x.e.path.cwnd = 1 << 20
	full := testPMDCS - chunk.DataHeaderLen // one chunk fills a packet
	x.queue(60, full)
	if got := x.flush(); len(got) != api.DefaultMaxBurst {
		t.Fatalf("sent %d packets in one burst, want Max.Burst %d", len(got), api.DefaultMaxBurst)
	}
	x.mustSACK(1000, api.DefaultBuffer) // acknowledges one packet: a new send opportunity
	if got := x.flush(); len(got) != 1+api.DefaultMaxBurst {
		t.Fatalf("sent %d packets after a SACK of one, want %d", len(got), 1+api.DefaultMaxBurst)
	}
	// One SACK for a whole receive batch of 8 packets stands for the 4
	// SACKs of a receiver acknowledging every second packet.
	x.mustSACK(1008, api.DefaultBuffer)
	if got, want := len(x.flush()), 8+4*api.DefaultMaxBurst; got != want {
		t.Fatalf("sent %d packets after a SACK of 8, want %d", got, want)
	}
	if f, want := x.e.path.flight, (8+4*api.DefaultMaxBurst)*testPMDCS; f != want {
		t.Fatalf("flight %d, want %d: Max.Burst packets more per SACK of every second packet", f, want)
	}
	// The hole below gap-acked data filled: the cumulative ack jumps over
	// packets already counted, which opens no burst beyond Max.Burst.
	x.mustSACK(1008, api.DefaultBuffer, 2, 12) // 1009 missing, 1010..1020 gap-acked
	x.flush()
	x.mustSACK(1020, api.DefaultBuffer) // 1009 arrived: one packet newly acknowledged
	if got := x.flush(); len(got) > 1+api.DefaultMaxBurst {
		t.Fatalf("sent %d packets after the hole filled, want at most %d", len(got), 1+api.DefaultMaxBurst)
	}
}

// RFC 9260 section 6.1 rule A: "At any given time, the data sender MUST
// NOT transmit new data to any destination transport address if its peer's
// rwnd indicates that the peer has no buffer space (i.e., rwnd is smaller
// than the size of the next DATA chunk ...), except for zero window
// probes." And 6.2.1 B: "Any time a DATA chunk is transmitted (or
// retransmitted) to a peer, the endpoint subtracts the data size of the
// chunk from the rwnd of that peer."
func TestRuleARwnd(t *testing.T) {
	x := newTx(t, Config{PeerRwnd: 3500, Paths: api.Paths{MaxBurst: 100}})
	x.e.path.cwnd = 1 << 20
	x.queue(10, 1000)
	if got := x.flush(); len(got) != 3 {
		t.Fatalf("sent %d chunks into a 3500-byte window, want 3", len(got))
	}
	if r := x.e.PeerRwnd(); r != 500 {
		t.Fatalf("rwnd %d after sending 3000 bytes, want 500", r)
	}
}

// RFC 9260 section 6.1 rule A: "A zero window probe SHOULD only be sent
// when all outstanding DATA chunks have been cumulatively acknowledged and
// no DATA chunks are in flight." "The sender SHOULD send the first zero
// window probe after 1 RTO when it detects that the receiver has closed
// its window and SHOULD increase the probe interval exponentially
// afterwards." "If the sender continues to receive SACK chunks from the
// peer while doing zero window probing, the unacknowledged window probes
// SHOULD NOT increment the error counter".
func TestZeroWindowProbe(t *testing.T) {
	x := newTx(t, Config{PeerRwnd: 2000, Paths: api.Paths{MaxBurst: 100}})
	x.queue(5, 1000)
	if got := x.flush(); len(got) != 2 {
		t.Fatalf("sent %d, want 2", len(got))
	}
	x.mustSACK(1001, 0) // all acknowledged, window closed
	if got := x.flush(); len(got) != 0 {
		t.Fatalf("sent %d chunks into a closed window at once", len(got))
	}
	d := x.e.Deadline()
	if want := x.now.Add(x.e.path.RTO()); !d.Equal(want) {
		t.Fatalf("probe deadline %v, want one RTO later %v", d.Sub(epoch), want.Sub(epoch))
	}
	if x.e.Pending(x.now) || x.e.Pending(d.Add(-time.Nanosecond)) || !x.e.Pending(d) {
		t.Fatal("Pending does not follow the probe deadline")
	}
	x.now = d
	x.e.OnTimeout(x.now)
	if got := x.flush(); len(got) != 1 || got[0] != 1002 {
		t.Fatalf("probe: sent %v, want one chunk TSN 1002", got)
	}
	// The receiver drops it and answers with a zero window.
	x.mustSACK(1001, 0)
	rto := x.e.path.RTO()
	x.now = x.e.Deadline()
	if x.e.OnTimeout(x.now) {
		t.Fatal("an unanswered zero window probe counted as an association error")
	}
	if x.e.path.ErrorCount() != 0 {
		t.Fatal("an unanswered zero window probe counted as a path error")
	}
	if x.e.path.RTO() != 2*rto {
		t.Fatalf("probe interval %v, want doubled %v", x.e.path.RTO(), 2*rto)
	}
	if got := x.flush(); len(got) != 1 || got[0] != 1002 {
		t.Fatalf("second probe: sent %v, want TSN 1002 again", got)
	}
	// The window opens.
	x.mustSACK(1002, api.DefaultBuffer)
	if got := x.flush(); len(got) != 2 {
		t.Fatalf("after the window opened sent %d, want the remaining 2", len(got))
	}
}

// RFC 9260 section 6.3.2: "R1) Every time a DATA chunk is sent to any
// address (including a retransmission), if the T3-rtx timer of that
// address is not running, start it running so that it will expire after
// the RTO of that address." "R2) Whenever all outstanding data sent to an
// address have been acknowledged, turn off the T3-rtx timer of that
// address." "R3) Whenever a SACK chunk is received that acknowledges the
// DATA chunk with the earliest outstanding TSN for that address, restart
// the T3-rtx timer for that address with its current RTO (if there is
// still outstanding data on that address)."
func TestT3Rules(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{Recovery: api.RecoveryRFC9260}})
	if !x.e.Deadline().IsZero() {
		t.Fatal("T3 running before any DATA")
	}
	x.queue(3, 1000)
	x.flush()
	if d := x.e.send.deadline(); !d.Equal(x.now.Add(time.Second)) {
		t.Fatalf("R1: T3 at %v, want now+RTO", d.Sub(epoch))
	}
	x.advance(100 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 2, 2) // acks the earliest and 1002
	if d := x.e.send.deadline(); !d.Equal(x.now.Add(x.e.path.RTO())) {
		t.Fatalf("R3: T3 at %v, want restarted at now+RTO", d.Sub(epoch))
	}
	x.advance(100 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 2, 2) // no new cumulative ack: no restart
	if d := x.e.send.deadline(); d.Equal(x.now.Add(x.e.path.RTO())) {
		t.Fatal("T3 restarted by a SACK that did not acknowledge the earliest TSN")
	}
	x.mustSACK(1002, api.DefaultBuffer)
	if !x.e.send.deadline().IsZero() {
		t.Fatal("R2: T3 still running with everything acknowledged")
	}
}

// RFC 9260 section 6.3.3: "E1) For the destination address for which the
// timer expires, adjust its ssthresh with rules defined in Section 7.2.3
// and set cwnd = PMDCS. E2) For the destination address for which the
// timer expires, set RTO = RTO * 2 ("back off the timer"). ... E3)
// Determine how many of the earliest (i.e., lowest TSN) outstanding DATA
// chunks for the address for which the T3-rtx has expired will fit into a
// single SCTP packet ... Bundle and retransmit those K DATA chunks in a
// single packet". Section 7.2.3: "ensure that no more than one SCTP packet
// will be in flight for that address until the endpoint receives
// acknowledgement for successful delivery of data to that address."
func TestT3Expiry(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	x.e.path.cwnd = 20000
	x.queue(8, 600) // two 616-byte chunks per packet
	x.flush()
	if x.e.send.onTimeout(x.now.Add(999 * time.Millisecond)) {
		t.Fatal("T3 expired early")
	}
	x.advance(time.Second)
	if !x.e.OnTimeout(x.now) {
		t.Fatal("T3 did not expire")
	}
	p := &x.e.path
	if p.Ssthresh() != max(20000/2, 4*testPMDCS) || p.Cwnd() != testPMDCS {
		t.Fatalf("E1: ssthresh %d cwnd %d, want %d %d", p.Ssthresh(), p.Cwnd(), 10000, testPMDCS)
	}
	if p.RTO() != 2*time.Second {
		t.Fatalf("E2: RTO %v, want 2s", p.RTO())
	}
	if p.ErrorCount() != 1 {
		t.Fatalf("path error count %d, want 1", p.ErrorCount())
	}
	ds := x.packet()
	if len(ds) != 2 || ds[0].TSN != 1000 || ds[1].TSN != 1001 {
		t.Fatalf("E3: retransmitted %v, want TSNs 1000 and 1001 in one packet", ds)
	}
	if more := x.packet(); len(more) != 0 {
		t.Fatalf("second packet %v in flight before an acknowledgement", more)
	}
	if d := x.e.send.deadline(); !d.Equal(x.now.Add(2 * time.Second)) {
		t.Fatalf("T3 not restarted with the backed-off RTO: %v", d.Sub(x.now))
	}
	x.mustSACK(1001, api.DefaultBuffer)
	if p.ErrorCount() != 0 {
		t.Fatal("acknowledgement did not clear the path error count")
	}
	if got := x.flush(); len(got) == 0 || got[0] != 1002 {
		t.Fatalf("after the ack sent %v, want retransmissions from 1002", got)
	}
}

// RFC 9260 section 6.1 rule C: "When the time comes for the sender to
// transmit, before sending new DATA chunks, the sender MUST first transmit
// any DATA chunks that are marked for retransmission (limited by the
// current cwnd)."
func TestRuleCRetransmissionsFirst(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	x.queue(2, 600)
	x.flush()
	x.advance(time.Second)
	x.e.OnTimeout(x.now)
	x.queue(1, 100)
	x.mustSACK(999, api.DefaultBuffer) // no ack: still in T3 recovery
	ds := x.packet()
	if len(ds) != 2 || ds[0].TSN != 1000 || ds[1].TSN != 1001 {
		t.Fatalf("first packet after T3 %v, want only the retransmissions", ds)
	}
	x.mustSACK(1001, api.DefaultBuffer)
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1002 {
		t.Fatalf("then %v, want the new chunk 1002", ds)
	}
}

// RFC 9260 section 7.2.1: "When cwnd is less than or equal to ssthresh, an
// SCTP endpoint MUST use the slow-start algorithm to increase cwnd only if
// the current congestion window is being fully utilized and the data
// sender is not in Fast Recovery. ... cwnd MUST be increased by, at most,
// the lesser of 1) the total size of the previously outstanding DATA
// chunk(s) acknowledged and 2) L times the destination's PMDCS."
func TestSlowStart(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	x.queue(10, 1000)
	x.flush() // 5 chunks, cwnd fully used
	x.mustSACK(1000, api.DefaultBuffer)
	if c := x.e.path.Cwnd(); c != 4404+chunk1000 {
		t.Fatalf("cwnd %d after one chunk acked, want %d", c, 4404+chunk1000)
	}
	x.mustSACK(1004, api.DefaultBuffer) // four chunks at once: at most one PMDCS
	if c := x.e.path.Cwnd(); c != 4404+chunk1000+testPMDCS {
		t.Fatalf("cwnd %d, want increase capped at PMDCS: %d", c, 4404+chunk1000+testPMDCS)
	}

	// Not fully utilized: no increase.
	y := newTx(t, Config{})
	y.queue(1, 100)
	y.flush()
	y.mustSACK(1000, api.DefaultBuffer)
	if c := y.e.path.Cwnd(); c != 4404 {
		t.Fatalf("cwnd %d grew with the window not fully used", c)
	}
}

// RFC 9260 section 7.2.2: "When (1) partial_bytes_acked is equal to or
// greater than cwnd and (2) before the arrival of the SACK chunk the sender
// had cwnd or more bytes of data outstanding ..., partial_bytes_acked is
// reset to (partial_bytes_acked - cwnd). Next, cwnd is increased by PMDCS."
// "When all of the data transmitted by the sender has been acknowledged by
// the receiver, partial_bytes_acked is initialized to 0."
func TestCongestionAvoidance(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	p := &x.e.path
	p.cwnd, p.ssthresh = 4*chunk1000, 2000
	x.queue(12, 1000)
	x.flush() // 4 chunks: flight == cwnd
	x.mustSACK(1001, api.DefaultBuffer)
	if p.Cwnd() != 4*chunk1000 || p.pba != 2*chunk1000 {
		t.Fatalf("cwnd %d pba %d, want unchanged cwnd and pba %d", p.Cwnd(), p.pba, 2*chunk1000)
	}
	x.flush() // refill to cwnd
	x.mustSACK(1003, api.DefaultBuffer)
	if p.Cwnd() != 4*chunk1000+testPMDCS || p.pba != 0 {
		t.Fatalf("cwnd %d pba %d, want %d and 0", p.Cwnd(), p.pba, 4*chunk1000+testPMDCS)
	}
	x.flush()
	x.mustSACK(x.e.NextTSN()-1, api.DefaultBuffer)
	if p.pba != 0 {
		t.Fatalf("pba %d with everything acknowledged, want 0", p.pba)
	}
}

// RFC 9260 section 7.2.4: "Whenever an endpoint receives a SACK chunk that
// indicates that some TSNs are missing, it SHOULD wait for two further miss
// indications (via subsequent SACK chunks for a total of three missing
// reports) on the same TSNs before taking action with regard to Fast
// Retransmit." "When the third consecutive miss indication is received for
// one or more TSNs, the data sender does the following: 1) Mark the DATA
// chunk(s) with three miss indications for retransmission. 2) If not in
// Fast Recovery, adjust the ssthresh and cwnd ... 3) ... Retransmit those K
// DATA chunks in a single packet. When a Fast Retransmit is being
// performed, the sender SHOULD ignore the value of cwnd".
func TestFastRetransmit(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{Recovery: api.RecoveryRFC9260, MaxBurst: 100}})
	p := &x.e.path
	p.cwnd = 10 * chunk1000
	x.queue(10, 1000)
	x.flush() // 1000..1009
	for i := uint16(2); i <= 4; i++ {
		if ds := x.packet(); len(ds) != 0 && i > 2 {
			t.Fatalf("retransmitted before the third miss indication: %v", ds)
		}
		x.mustSACK(999, api.DefaultBuffer, 2, i) // 1000 missing
	}
	// cwnd was about 10 chunks: ssthresh = max(cwnd/2, 4*PMDCS) = 4*PMDCS.
	if !p.inFastRecovery || p.Ssthresh() != 4*testPMDCS || p.Cwnd() != 4*testPMDCS {
		t.Fatalf("fast recovery %v ssthresh %d cwnd %d, want true %d %d", p.inFastRecovery, p.Ssthresh(), p.Cwnd(), 4*testPMDCS, 4*testPMDCS)
	}
	p.cwnd = 0 // the fast retransmission ignores cwnd
	ds := x.packet()
	if len(ds) != 1 || ds[0].TSN != 1000 {
		t.Fatalf("fast retransmission %v, want TSN 1000", ds)
	}
	if x.e.stats.FastRetransmit != 1 {
		t.Fatalf("FastRetransmit = %d", x.e.stats.FastRetransmit)
	}
}

// RFC 9260 section 7.2.4: "Miss indications SHOULD follow the Highest TSN
// Newly Acknowledged (HTNA) algorithm. For each incoming SACK chunk, miss
// indications are incremented only for missing TSNs prior to the HTNA in
// the SACK chunk."
func TestMissIndicationsHTNA(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{Recovery: api.RecoveryRFC9260, MaxBurst: 100}})
	x.e.path.cwnd = 10 * chunk1000
	x.queue(6, 1000)
	x.flush()
	for range 5 { // only the first of these newly acknowledges a TSN
		x.mustSACK(999, api.DefaultBuffer, 2, 2)
	}
	if m := x.e.send.ledger.rec(1000).misses; m != 1 {
		t.Fatalf("%d miss indications from repeated SACKs, want 1", m)
	}
	x.mustSACK(999, api.DefaultBuffer, 2, 3)
	if x.e.path.inFastRecovery {
		t.Fatal("fast retransmit after two indications")
	}
	x.mustSACK(999, api.DefaultBuffer, 2, 4)
	if !x.e.path.inFastRecovery {
		t.Fatal("no fast retransmit after three indications")
	}
}

// RFC 9260 section 7.2.4: "While in Fast Recovery, the ssthresh and cwnd
// SHOULD NOT change for any destinations due to a subsequent Fast Recovery
// event (i.e., one SHOULD NOT reduce the cwnd further due to a subsequent
// Fast Retransmit)." And: "When a SACK chunk acknowledges all TSNs up to
// and including this exit point, Fast Recovery is exited."
func TestFastRecovery(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	p := &x.e.path
	p.cwnd = 20 * chunk1000
	x.queue(20, 1000)
	x.flush() // 1000..1019
	for i := uint16(3); i <= 5; i++ {
		x.mustSACK(999, api.DefaultBuffer, 3, i) // 1000, 1001 missing
	}
	cwnd, ssthresh := p.Cwnd(), p.Ssthresh()
	if !p.inFastRecovery {
		t.Fatal("not in fast recovery")
	}
	x.flush()
	// 1000 and 1001 retransmitted; 1005 now goes missing thrice more.
	for i := uint16(7); i <= 9; i++ {
		x.mustSACK(1001, api.DefaultBuffer, 5, i)
	}
	if p.Cwnd() != cwnd || p.Ssthresh() != ssthresh {
		t.Fatalf("cwnd/ssthresh changed in fast recovery: %d/%d -> %d/%d", cwnd, ssthresh, p.Cwnd(), p.Ssthresh())
	}
	x.flush()
	x.mustSACK(1019, api.DefaultBuffer)
	if p.inFastRecovery {
		t.Fatal("fast recovery not exited at the exit point")
	}
}

// RFC 9260 section 6.2.1 D i): "If Cumulative TSN Ack is less than the
// Cumulative TSN Ack Point, then drop the SACK chunk. Since Cumulative TSN
// Ack is monotonically increasing, a SACK chunk whose Cumulative TSN Ack is
// less than the Cumulative TSN Ack Point indicates an out-of-order SACK
// chunk."
func TestStaleSACKDropped(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	x.queue(3, 1000)
	x.flush()
	x.mustSACK(1001, 50000)
	before := x.e.PeerRwnd()
	x.mustSACK(1000, 100, 2, 2)
	if x.e.PeerRwnd() != before || x.e.stats.SACKsStale != 1 {
		t.Fatalf("stale SACK changed rwnd %d -> %d", before, x.e.PeerRwnd())
	}
}

// RFC 9260 section 6.2.1 D ii): "Set rwnd equal to the newly received
// a_rwnd minus the number of bytes still outstanding after processing the
// Cumulative TSN Ack and the Gap Ack Blocks." And B: "Any time a DATA chunk
// is marked for retransmission, either via T3-rtx timer expiration
// (Section 6.3.3) or via Fast Retransmit (Section 7.2.4), add the data size
// of those chunks to the rwnd."
func TestSACKRwnd(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{Recovery: api.RecoveryRFC9260, MaxBurst: 100}})
	x.queue(4, 1000)
	x.flush()
	x.mustSACK(1000, 10000, 2, 2) // 1000 and 1002 acked; 1001 and 1003 outstanding
	if r := x.e.PeerRwnd(); r != 8000 {
		t.Fatalf("rwnd %d, want 10000-2000", r)
	}
	x.advance(time.Second)
	x.e.OnTimeout(x.now)
	if r := x.e.PeerRwnd(); r != 10000 {
		t.Fatalf("rwnd %d after marking 2000 bytes for retransmission, want 10000", r)
	}
}

// RFC 9260 section 6.2.1 D iii): "If the SACK chunk is missing a TSN that
// was previously acknowledged via a Gap Ack Block (e.g., the data receiver
// reneged on the data), then consider the corresponding DATA that might be
// possibly missing: Count one miss indication towards Fast Retransmit ...,
// and if no retransmit timer is running for the destination address to
// which the DATA chunk was originally transmitted, then T3-rtx is started
// for that destination address."
func TestRenege(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{Recovery: api.RecoveryRFC9260, MaxBurst: 100}})
	x.queue(3, 1000)
	x.flush()
	x.mustSACK(999, api.DefaultBuffer, 2, 3) // 1001, 1002 gap-acked
	f := x.e.path.flight
	x.mustSACK(999, api.DefaultBuffer) // reneged
	if x.e.path.flight != f+2*chunk1000 || x.e.stats.Reneged != 2 {
		t.Fatalf("flight %d -> %d, reneged %d", f, x.e.path.flight, x.e.stats.Reneged)
	}
	if r := x.e.send.ledger.rec(1001); r.misses != 1 || r.state != recInFlight {
		t.Fatalf("reneged chunk misses %d state %d", r.misses, r.state)
	}
	checkInvariants(t, &x.e.send)
}

// RFC 9260 section 9.2: the Cumulative TSN Ack of a SHUTDOWN acknowledges
// data like a SACK without gap blocks; the peer's window stays as it was.
func TestHandleCumAck(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}, PeerRwnd: 100000})
	x.queue(3, 1000)
	x.flush()
	rwnd := x.e.PeerRwnd()
	if acked, err := x.e.send.handleCumAck(x.now, 1001); err != nil || !acked {
		t.Fatalf("acked %v err %v", acked, err)
	}
	if x.e.send.ledger.outstanding() != 1 || x.e.PeerRwnd() != rwnd {
		t.Fatalf("outstanding %d rwnd %d, want 1 and %d", x.e.send.ledger.outstanding(), x.e.PeerRwnd(), rwnd)
	}
	if _, err := x.e.send.handleCumAck(x.now, 1005); !errors.Is(err, ErrProtocolViolation) {
		t.Fatalf("cum ack of unsent TSN: %v", err)
	}
	checkInvariants(t, &x.e.send)
}

// Drain hands back every queued and unacknowledged message once (for
// send-failed events when the association ends) and empties the sender.
func TestDrain(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 2}})
	x.e.send.enqueue(0, 1, false, make([]byte, 5000)) // partly sent, first part acked
	x.e.send.enqueue(1, 2, true, make([]byte, 10))    // unsent, unordered
	x.packet()                                        // first fragment
	x.packet()                                        // second fragment
	x.mustSACK(1000, api.DefaultBuffer)
	var got []string
	x.e.Drain(func(m Unsent) {
		got = append(got, fmt.Sprintf("%d/%d/%d/%v/%v", m.SID, m.PPID, len(m.Payload), m.Sent, m.Unordered))
	})
	sort.Strings(got)
	if want := []string{"0/1/5000/true/false", "1/2/10/false/true"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("drained %v, want %v", got, want)
	}
	if !x.e.SendIdle() || x.e.send.queue.buffered != 0 || !x.e.send.deadline().IsZero() {
		t.Fatal("sender not empty after Drain")
	}
	// The sender works on afterwards.
	x.queue(1, 10)
	if ds := x.packet(); len(ds) != 1 {
		t.Fatalf("after Drain sent %d chunks", len(ds))
	}
}

// After the path MTU shrinks, a chunk cut for the old MTU still goes out
// (alone, to be IP-fragmented) instead of blocking retransmission forever.
func TestMTUShrinkRetransmission(t *testing.T) {
	x := newTx(t, Config{})
	x.queue(1, 1400)
	x.flush()
	x.e.SetPathMTU(0, 1000)
	x.advance(time.Second)
	x.e.OnTimeout(x.now)
	pkt, n := x.e.AppendData(x.now, nil, 1000-12)
	if n != 1 || len(pkt) != chunk.DataHeaderLen+1400 {
		t.Fatalf("retransmitted %d chunks in %d bytes, want the 1416-byte chunk", n, len(pkt))
	}
	x.mustSACK(1000, api.DefaultBuffer)
	x.queue(1, 1400) // new data is cut for the new MTU
	if ds := x.packet(); len(ds) != 1 || len(ds[0].Payload) != (1000-12-16)&^3 {
		t.Fatalf("new chunk of %d bytes, want %d", len(ds[0].Payload), (1000-12-16)&^3)
	}
}

// RFC 9260 section 6.1: "For each stream, the data sender MUST NOT have
// more than 2^16 - 1 ordered user messages in the current send window."
func TestOutstandingBound(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{SendBuffer: 1 << 24}, Paths: api.Paths{MaxBurst: 1 << 20}, PeerRwnd: 1 << 30})
	x.e.path.cwnd = 1 << 30
	for range 70000 {
		if err := x.e.send.enqueue(0, 0, false, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		x.e.AppendData(x.now, x.pkt[:0], 65000)
	}
	if o := x.e.send.ledger.outstanding(); o != maxOutstanding {
		t.Fatalf("%d chunks outstanding, want the bound %d", o, maxOutstanding)
	}
}

// RFC 9260 section 6.1: "Whenever the sender of a DATA chunk can benefit
// from the corresponding SACK chunk being sent back without delay, the
// sender MAY set the I bit in the DATA chunk header." (SHUTDOWN-PENDING.)
func TestSetImmediate(t *testing.T) {
	x := newTx(t, Config{})
	x.e.send.immediate = true
	x.queue(1, 10)
	if ds := x.packet(); len(ds) != 1 || ds[0].Flags&chunk.FlagImmediate == 0 {
		t.Fatalf("chunk without the I bit: %+v", ds)
	}
}

// RFC 9260 section 7.2.1: "While the endpoint does not transmit data on a
// given transport address, the cwnd of the transport address SHOULD be
// adjusted to max(cwnd / 2, 4 * PMDCS) once per RTO. Before the first cwnd
// adjustment, the ssthresh of the transport address SHOULD be set to the
// cwnd."
func TestIdleCwnd(t *testing.T) {
	x := newTx(t, Config{})
	x.queue(1, 10)
	x.flush()
	x.mustSACK(1000, api.DefaultBuffer)
	p := &x.e.path
	p.cwnd = 40 * testPMDCS
	x.advance(2*p.RTO() + time.Millisecond) // two whole RTOs idle
	x.queue(1, 10)
	x.flush()
	if p.Ssthresh() != 40*testPMDCS || p.Cwnd() != 10*testPMDCS {
		t.Fatalf("after two idle RTOs ssthresh %d cwnd %d, want %d and %d", p.Ssthresh(), p.Cwnd(), 40*testPMDCS, 10*testPMDCS)
	}
	x.mustSACK(1001, api.DefaultBuffer)
	x.advance(time.Hour)
	x.queue(1, 10)
	x.flush()
	if p.Cwnd() != 4*testPMDCS {
		t.Fatalf("after a long idle period cwnd %d, want the floor %d", p.Cwnd(), 4*testPMDCS)
	}
}

// Config.Buffers.UnsentLimit bounds the data waiting to be sent, apart from the
// send buffer: Queue blocks while it is reached and accepts again once
// chunks left; one message larger than the bound goes when none waits.
func TestSendUnsent(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{UnsentLimit: 5000}})
	x.queue(5, 1000)
	if err := x.e.send.enqueue(0, 0, false, make([]byte, 1000)); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("Queue past UnsentLimit: %v, want ErrWouldBlock", err)
	}
	x.packet() // one chunk left the queue
	if err := x.e.send.enqueue(0, 0, false, make([]byte, 1000)); err != nil {
		t.Fatalf("Queue after a chunk was sent: %v", err)
	}
	x.flush()
	x.mustSACK(x.e.NextTSN()-1, api.DefaultBuffer)
	x.flush()
	if err := x.e.send.enqueue(0, 0, false, make([]byte, 20000)); err != nil {
		t.Fatalf("one large message with nothing waiting: %v", err)
	}
}

// Room is what Queue accepts now under both bounds, and a message of
// Room bytes is accepted while one byte more blocks; Capacity is the
// smaller bound.
func TestSendRoom(t *testing.T) {
	x := newTx(t, Config{Buffers: api.Buffers{UnsentLimit: 5000, SendBuffer: 8000}})
	s := &x.e.send
	if s.queue.capacity() != 5000 {
		t.Fatalf("Capacity %d, want 5000", s.queue.capacity())
	}
	if s.queue.room() < 8000 {
		t.Fatalf("Room of an empty sender %d, want any size", s.queue.room())
	}
	x.queue(3, 1000)
	if s.queue.room() != 2000 {
		t.Fatalf("Room %d with 3000 unsent, want 2000", s.queue.room())
	}
	if err := s.enqueue(0, 0, false, make([]byte, 2001)); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("Queue of Room+1 bytes: %v, want ErrWouldBlock", err)
	}
	x.flush() // everything in flight: only the send buffer bounds
	if s.queue.room() != 5000 {
		t.Fatalf("Room %d with 3000 in flight, want 5000", s.queue.room())
	}
	if err := s.enqueue(0, 0, false, make([]byte, 5000)); err != nil {
		t.Fatalf("Queue of Room bytes: %v", err)
	}
	if s.queue.room() != 0 {
		t.Fatalf("Room %d with a full send buffer, want 0", s.queue.room())
	}
	x = newTx(t, Config{Buffers: api.Buffers{SendBuffer: 8000}})
	if x.e.send.queue.capacity() != 8000 {
		t.Fatalf("Capacity without an unsent limit %d, want 8000", x.e.send.queue.capacity())
	}
}

// TestSACKNegativeWindow: an a_rwnd with the top bit set is a negative
// window wrapped to 32 bits (Firefox's usrsctp sends one after taking a
// zero window probe into a full buffer): the window counts as closed, so
// nothing is sent but the next zero window probe, and the fragment point
// does not grow from it. A later SACK with room reopens the window.
func TestSACKNegativeWindow(t *testing.T) {
	x := newTx(t, Config{PeerRwnd: 4000, Paths: api.Paths{MaxBurst: 100}})
	x.e.path.cwnd = 1 << 20
	x.queue(10, 1000)
	sent := x.flush()
	if len(sent) == 0 || len(sent) > 4 {
		t.Fatalf("%d chunks sent into a 4000-byte window", len(sent))
	}
	fp := x.e.send.fragPoint
	x.mustSACK(sent[len(sent)-1], 0xFFFFFD7E) // 642 bytes over
	if n := x.e.send.peerRwnd; n != 0 {
		t.Fatalf("peer window %d after an a_rwnd of -642, want 0", n)
	}
	if got := x.packet(); len(got) != 0 {
		t.Fatalf("%d chunks sent into a negative window", len(got))
	}
	if x.e.send.fragPoint != fp || x.e.send.peerWinMax != 4000 {
		t.Fatalf("fragment point %d (largest window %d) after a negative window, want %d (4000)", x.e.send.fragPoint, x.e.send.peerWinMax, fp)
	}
	x.mustSACK(sent[len(sent)-1], 4000)
	if got := x.packet(); len(got) == 0 {
		t.Fatal("nothing sent after the window reopened")
	}
}
