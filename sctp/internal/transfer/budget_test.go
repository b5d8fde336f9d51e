package transfer

import (
	"testing"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// fillTiny sends r 1-byte first fragments of ordered messages that never
// complete, from TSN 1, until it drops one, and returns how many it kept.
func fillTiny(t *testing.T, r *receiver) int {
	t.Helper()
	one := []byte{1}
	for i := 0; ; i++ {
		d := Data{TSN: TSN(1 + i), SID: uint16(i % 4), SSN: uint16(1 + i/4), Flags: chunk.FlagBeginning, Payload: one}
		v, err := r.handleData(epoch, &d)
		if err != nil {
			t.Fatal(err)
		}
		r.endPacket(epoch)
		if v != Accepted {
			return i
		}
	}
}

// TestBudgetShared: receivers sharing an endpoint Budget hold together no
// more than the budget (plus a chunk), their windows shrink as it fills,
// Admit refuses new associations near the limit and counts them, and
// reading and Release give the memory back.
func TestBudgetShared(t *testing.T) {
	const limit = 256 << 10
	b := NewBudget(limit)
	var rs []*receiver
	for range 4 {
		e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 4, Buffers: api.Buffers{RecvBuffer: 64 << 10}, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, &e.recv)
	}
	if !b.Admit() {
		t.Fatal("an empty budget refuses an association")
	}
	for i, r := range rs[:3] {
		n := fillTiny(t, r)
		t.Logf("receiver %d kept %d fragments, charged %d; budget used %d of %d; window of the next %d", i, n, r.charged(), b.Used(), limit, rs[i+1].window())
		if r.window() != 0 && r.advertise() != 0 {
			t.Errorf("receiver %d: a_rwnd %d once full", i, r.advertise())
		}
		if next := rs[i+1].window(); next > (limit-b.Used())/memFactor {
			t.Errorf("receiver %d: the next one's window is %d with %d of the budget left", i, next, limit-b.Used())
		}
	}
	sum := 0
	for _, r := range rs {
		sum += r.charged()
	}
	if b.Used() != sum || sum > limit+chunkCost(DefaultMTU) {
		t.Fatalf("budget used %d, receivers charged %d, limit %d", b.Used(), sum, limit)
	}
	if b.Admit() || b.Refused() != 1 {
		t.Fatalf("Admit with %d of %d left: refused %d", limit-b.Used(), limit, b.Refused())
	}
	// The fourth receiver gets at most what is left.
	if n := fillTiny(t, rs[3]); rs[3].charged() > limit-sum+chunkCost(1) {
		t.Errorf("the last receiver kept %d fragments costing %d with %d left", n, rs[3].charged(), limit-sum)
	}
	// What is read and what ends is given back.
	rs[0].ResetIncoming(nil) // SSN 0 expected again: still nothing deliverable
	for _, r := range rs {
		r.release()
	}
	if b.Used() != 0 {
		t.Fatalf("budget used %d after every receiver released", b.Used())
	}
	if !b.Admit() {
		t.Fatal("an emptied budget refuses an association")
	}
}

// TestBudgetReadGivesBack: reading data gives its memory back to the
// budget as it leaves.
func TestBudgetReadGivesBack(t *testing.T) {
	b := NewBudget(1 << 20)
	e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 4, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	r := &e.recv
	msg := make([]byte, 1000)
	for i := range 50 {
		d := Data{TSN: TSN(1 + i), SID: 0, SSN: uint16(i), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: msg}
		if v, err := r.handleData(epoch, &d); v != Accepted || err != nil {
			t.Fatal(v, err)
		}
	}
	// The fragments and the side object of their one stream.
	if want := 50*chunkCost(1000) + interleave.SideCost; b.Used() != r.charged() || b.Used() != want {
		t.Fatalf("budget used %d, receiver charged %d, want %d", b.Used(), r.charged(), want)
	}
	buf := make([]byte, 2000)
	for range 50 {
		if _, _, err := r.read(buf); err != nil {
			t.Fatal(err)
		}
	}
	if b.Used() != 0 || r.charged() != 0 {
		t.Fatalf("budget used %d, receiver charged %d after reading everything", b.Used(), r.charged())
	}
}

// TestSetRecvBuffer: an association kept on a small receive buffer (not
// accepted yet) holds within it, keeps what it holds when the buffer
// shrinks, and announces the larger window at once when it grows.
func TestSetRecvBuffer(t *testing.T) {
	e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := &e.recv
	r.setRecvBuffer(64 << 10)
	if r.win.capacity != 64<<10 || r.window() != 64<<10 {
		t.Fatalf("buffer %d window %d, want 64 KiB", r.win.capacity, r.window())
	}
	n := fillTiny(t, r)
	if r.charged() > memFactor*(64<<10)+chunkCost(DefaultMTU) {
		t.Fatalf("%d fragments cost %d on a 64 KiB buffer", n, r.charged())
	}
	held := r.held()
	r.setRecvBuffer(1) // at least one MTU; what is held stays
	if r.win.capacity != DefaultMTU || r.held() != held || r.window() != 0 {
		t.Fatalf("shrunk: buffer %d held %d (was %d) window %d", r.win.capacity, r.held(), held, r.window())
	}
	r.appendSACK(epoch, nil, 1500)
	updates := e.stats.WindowUpdates
	r.setRecvBuffer(api.DefaultBuffer)
	if !r.acks.due(epoch) || e.stats.WindowUpdates != updates+1 || r.window() == 0 {
		t.Fatalf("grown: SACK due %v, window updates %d, window %d", r.acks.due(epoch), e.stats.WindowUpdates-updates, r.window())
	}
}

// TestBudgetFairShare: receivers that filled the budget with data never
// read (hostile peers) leave a newcomer its minimum share, from the
// reserve Admit keeps, and together they never hold more than the budget.
func TestBudgetFairShare(t *testing.T) {
	const limit = 4 << 20
	b := NewBudget(limit)
	var rs []*receiver
	for range 12 {
		e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 4, Buffers: api.Buffers{RecvBuffer: 256 << 10}, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, &e.recv)
	}
	hostile, newcomer := rs[:11], rs[11]
	for i, r := range hostile {
		n := fillTiny(t, r)
		t.Logf("receiver %d kept %d fragments, charged %d; budget used %d of %d", i, n, r.charged(), b.Used(), limit)
	}
	if b.Used() > limit || b.Admit() {
		t.Fatalf("budget used %d of %d, Admit %v", b.Used(), limit, b.Admit())
	}
	m := b.minShare()
	if w := newcomer.window(); w < m/memFactor {
		t.Fatalf("newcomer's window %d with %d of the budget left, want %d", w, limit-b.Used(), m/memFactor)
	}
	// It takes its minimum, and little more.
	msg := make([]byte, 1000)
	for i := 0; ; i++ {
		d := Data{TSN: TSN(1 + i), SID: 0, SSN: uint16(i), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: msg}
		if v, err := newcomer.handleData(epoch, &d); err != nil {
			t.Fatal(err)
		} else if v != Accepted {
			break
		}
	}
	if c := newcomer.charged(); c < m*3/4 || c > m+chunkCost(1000) || b.Used() > limit {
		t.Fatalf("newcomer charged %d, minimum %d; budget used %d of %d", c, m, b.Used(), limit)
	}
}

// TestBudgetWindowUpdate: a receiver whose window the budget holds below a
// quarter of its buffer (peers that never let their data be read filled
// the rest) still sends a window update once its reader emptied it: the
// update threshold follows the window the budget allows, or the peer
// would wait for a zero window probe.
func TestBudgetWindowUpdate(t *testing.T) {
	const limit = 4 << 20
	b := NewBudget(limit)
	var rs []*receiver
	for range 7 {
		e, err := New(Config{PeerTSN: 1, OutStreams: 1, InStreams: 4, Buffers: api.Buffers{RecvBuffer: 1 << 20}, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, &e.recv)
	}
	for _, r := range rs[:6] {
		fillTiny(t, r)
	}
	r := rs[6]
	msg := make([]byte, 1000)
	for i := 0; ; i++ {
		d := Data{TSN: TSN(1 + i), SID: 0, SSN: uint16(i), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: msg}
		if v, err := r.handleData(epoch, &d); err != nil {
			t.Fatal(err)
		} else if v != Accepted {
			break
		}
	}
	r.setAdvertised(r.advertise())
	r.acks.dueNow = false
	buf := make([]byte, 2000)
	for {
		if _, _, err := r.read(buf); err != nil {
			break
		}
	}
	if !r.acks.dueNow || r.advertise() == 0 {
		t.Fatalf("read empty with a window of %d (budget %d of %d used): no window update", r.advertise(), b.Used(), limit)
	}
}
