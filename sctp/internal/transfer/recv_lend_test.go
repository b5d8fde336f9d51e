package transfer

import (
	"bytes"
	"testing"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Lent fragments (interleave.Pool.Lend): payloads that arrived in a
// receive buffer and stay there until read. Each test counts the buffers
// handed out and checks that every one comes back once its fragments are
// read, reneged, abandoned or aborted, that the bytes read are the ones
// sent although buffers are recycled and scribbled on meanwhile, and that
// the receiver lent at all.

// lender plays the socket reader: it places each packet's payload in a
// receive buffer, hands the chunk to the engine as arrived in it, and
// takes a fresh buffer when asked, releasing its reference to the old one
// as the reader does.
type lender struct {
	r    *rx
	cur  *interleave.RecvBuf
	off  int
	out  int64 // interleave.RecvBufsOut at the start
	lent int   // the most buffers the receiver referenced at once
}

func newLender(r *rx) *lender {
	l := &lender{r: r, out: interleave.RecvBufsOut()}
	l.next()
	return l
}

// next makes the reader read into a fresh buffer, and scribbles over
// buffers recycled meanwhile: a fragment still referencing one would read
// the scribbles.
func (l *lender) next() {
	if l.cur != nil {
		l.cur.Release()
	}
	for range 4 {
		b := interleave.NewRecvBuf()
		clear(b.Bytes())
		b.Release()
	}
	l.cur = interleave.NewRecvBuf()
	l.off = 60
}

// place copies payload into the current buffer (the next one when it is
// full) and returns its copy there.
func (l *lender) place(payload []byte) []byte {
	if l.off+len(payload) > interleave.RecvBufSize {
		l.next()
	}
	p := l.cur.Bytes()[l.off : l.off+len(payload)]
	copy(p, payload)
	l.off += len(payload) + 28 // the next packet's headers
	return p
}

// data hands the engine a packet with one DATA chunk whose payload lies in
// the current buffer.
func (l *lender) data(d Data) Verdict {
	l.r.t.Helper()
	d.Payload = l.place(d.Payload)
	return l.handle(func() (Verdict, error) { return l.r.e.HandleData(l.r.now, &d) })
}

// idata is data for an I-DATA chunk.
func (l *lender) idata(d IData) Verdict {
	l.r.t.Helper()
	d.Payload = l.place(d.Payload)
	return l.handle(func() (Verdict, error) { return l.r.e.HandleIData(l.r.now, &d) })
}

// handle runs handle, the chunk's handling, with the current buffer lent,
// ends the packet and notes the most buffers lent so far.
func (l *lender) handle(handle func() (Verdict, error)) Verdict {
	l.r.t.Helper()
	l.r.e.SetRecvBuf(l.cur)
	v, err := handle()
	l.r.e.SetRecvBuf(nil)
	if err != nil {
		l.r.t.Fatal(err)
	}
	l.r.e.EndPacket(l.r.now)
	l.lent = max(l.lent, l.r.e.recv.pool.LentBufs())
	return v
}

// done releases the reader's buffer and checks that the receiver lent and
// that every buffer came back.
func (l *lender) done() {
	l.r.t.Helper()
	l.cur.Release()
	l.cur = nil
	if l.lent == 0 {
		l.r.t.Fatal("the receiver lent no fragment")
	}
	if n := l.r.e.recv.pool.LentBufs(); n != 0 {
		l.r.t.Fatalf("the receiver still references %d buffers", n)
	}
	if out := interleave.RecvBufsOut(); out != l.out {
		l.r.t.Fatalf("%d buffers out, want %d", out, l.out)
	}
}

// pattern returns n bytes that name message m.
func pattern(m, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(m*31 + i*7 + i>>8)
	}
	return p
}

// lendRx returns a receiver with room for lending (a few buffers).
func lendRx(t *testing.T, interleaved bool) *rx {
	return newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 512 << 10}, Interleaved: interleaved})
}

// A message whose fragments lie in several buffers reads back whole, read
// in parts while the reader moves on to other buffers.
func TestLentReassemblyAcrossBuffers(t *testing.T) {
	r := lendRx(t, false)
	l := newLender(r)
	const frag, frags = 1400, 100 // ~140 KB: three buffers
	msg := pattern(1, frag*frags)
	// Out of order: the second half first, so the message waits for
	// reassembly while buffers are replaced.
	order := make([]int, 0, frags)
	for i := frags / 2; i < frags; i++ {
		order = append(order, i)
	}
	for i := range frags / 2 {
		order = append(order, i)
	}
	for k, i := range order {
		flags := uint8(0)
		if i == 0 {
			flags |= chunk.FlagBeginning
		}
		if i == frags-1 {
			flags |= chunk.FlagEnd
		}
		if v := l.data(Data{TSN: TSN(1 + i), Flags: flags, Payload: msg[i*frag : (i+1)*frag]}); v != Accepted {
			t.Fatalf("fragment %d: %v", i, v)
		}
		if k%20 == 19 {
			l.next()
		}
	}
	got := make([]byte, 0, len(msg))
	buf := make([]byte, 3000)
	for {
		n, info, err := r.e.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
		l.next() // the reader reads on meanwhile
		if info.EOR {
			break
		}
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("message read back differs")
	}
	l.done()
}

// Reneging (RFC 9260 section 6.2: a full window drops the highest TSN held
// for a chunk that fills a hole) gives back the dropped fragments'
// references.
func TestLentRenege(t *testing.T) {
	r := lendRx(t, false)
	l := newLender(r)
	const n = 1400
	// TSN 1 is missing: everything after waits, until the window is full.
	var tsn TSN = 2
	for ; r.e.recv.window() >= n; tsn++ {
		l.data(Data{TSN: tsn, SSN: uint16(tsn - 1), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(int(tsn), n)})
	}
	l.data(Data{TSN: 1, SSN: 0, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(1, n)})
	if r.e.stats.DroppedReneged == 0 {
		t.Fatal("nothing reneged")
	}
	buf := make([]byte, n)
	for m := 1; ; m++ {
		k, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		if k != n || !info.EOR || !bytes.Equal(buf, pattern(m, n)) {
			t.Fatalf("message %d read back differs", m)
		}
		l.next()
	}
	// The reneged TSNs again, then all is read.
	for t2 := r.e.recv.tsns.cum + 1; t2 != tsn; t2++ {
		l.data(Data{TSN: t2, SSN: uint16(t2 - 1), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(int(t2), n)})
		for {
			k, _, err := r.e.Read(buf)
			if err != nil {
				break
			}
			if k != n {
				t.Fatal("short read")
			}
		}
	}
	l.done()
}

// Partial delivery of a message larger than the partial delivery point
// reads lent fragments in parts.
func TestLentPartialDelivery(t *testing.T) {
	r := lendRx(t, false)
	l := newLender(r)
	const frag, frags = 1400, 500 // 700 KB: over the 512 KiB buffer
	msg := pattern(2, frag*frags)
	got := make([]byte, 0, len(msg))
	buf := make([]byte, 5000)
	for i := range frags {
		flags := uint8(0)
		if i == 0 {
			flags |= chunk.FlagBeginning
		}
		if i == frags-1 {
			flags |= chunk.FlagEnd
		}
		if v := l.data(Data{TSN: TSN(1 + i), Flags: flags, Payload: msg[i*frag : (i+1)*frag]}); v != Accepted {
			t.Fatalf("fragment %d: %v", i, v)
		}
		if i%40 == 39 {
			for {
				n, _, err := r.e.Read(buf)
				if err != nil {
					break
				}
				got = append(got, buf[:n]...)
			}
		}
	}
	if r.e.stats.PartialDeliveries == 0 {
		t.Fatal("no partial delivery")
	}
	for {
		n, _, err := r.e.Read(buf)
		if err != nil {
			break
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes, differing from the %d sent", len(got), len(msg))
	}
	l.done()
}

// A FORWARD-TSN that abandons incomplete messages, one of them in partial
// delivery, gives back their fragments' references.
func TestLentForwardTSN(t *testing.T) {
	r := lendRx(t, false)
	l := newLender(r)
	const n = 1400
	// Stream 0: a message in partial delivery (TSN 1..250), cut at 251.
	for i := range 250 {
		flags := uint8(0)
		if i == 0 {
			flags = chunk.FlagBeginning
		}
		l.data(Data{TSN: TSN(1 + i), Flags: flags, Payload: pattern(i, n)})
	}
	// Stream 1: an incomplete message after a hole (TSN 253..260).
	for i := range 8 {
		flags := uint8(0)
		if i == 0 {
			flags = chunk.FlagBeginning
		}
		l.data(Data{TSN: TSN(253 + i), SID: 1, Flags: flags, Payload: pattern(i, n)})
	}
	if r.e.stats.PartialDeliveries == 0 {
		t.Fatal("no partial delivery")
	}
	if err := r.fwd(261, 0, 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	l.data(Data{TSN: 262, SSN: 1, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(9, n)})
	buf := make([]byte, 1<<20)
	aborted, after := false, false
	for {
		k, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		aborted = aborted || info.Aborted
		if info.SSN == 1 && k == n && bytes.Equal(buf[:k], pattern(9, n)) {
			after = true
		}
	}
	if !aborted || !after {
		t.Fatalf("aborted %v, message after read %v", aborted, after)
	}
	l.done()
}

// An I-FORWARD-TSN that abandons I-DATA messages gives back their
// fragments' references; the messages around them read back whole.
func TestLentIForwardTSN(t *testing.T) {
	r := lendRx(t, true)
	l := newLender(r)
	const n = 1400
	// Stream 0, MID 0: incomplete (its end abandoned). Stream 1, MID 0:
	// whole, interleaved with it.
	for i := range 10 {
		flags := uint8(0)
		if i == 0 {
			flags = chunk.FlagBeginning
		}
		l.idata(IData{TSN: TSN(1 + 2*i), SID: 0, MID: 0, FSN: uint32(i), Flags: flags, Payload: pattern(i, n)})
		if i == 9 {
			flags = chunk.FlagEnd
		} else if i == 0 {
			flags = chunk.FlagBeginning
		} else {
			flags = 0
		}
		l.idata(IData{TSN: TSN(2 + 2*i), SID: 1, MID: 0, FSN: uint32(i), Flags: flags, Payload: pattern(100+i, n)})
	}
	c := chunkOf(t, func(b []byte) []byte {
		b, _ = chunk.AppendIForwardTSN(b, 21, []chunk.StreamMID{{SID: 0, MID: 0}})
		return b
	})
	if err := r.e.HandleIForwardTSN(r.now, c); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	var whole []byte
	for {
		k, info, err := r.e.Read(buf)
		if err != nil {
			break
		}
		if info.SID == 1 {
			whole = append(whole, buf[:k]...)
		}
	}
	var want []byte
	for i := range 10 {
		want = append(want, pattern(100+i, n)...)
	}
	if !bytes.Equal(whole, want) {
		t.Fatal("the whole message read back differs")
	}
	l.done()
}

// After the association ends (its budgets released), unread lent messages
// stay readable and give back their references as they are read.
func TestLentAfterClose(t *testing.T) {
	r := lendRx(t, false)
	l := newLender(r)
	const n = 1400
	for i := range 60 {
		l.data(Data{TSN: TSN(1 + i), SSN: uint16(i), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(i, n)})
	}
	r.e.ReleaseBudgets()
	l.next()
	buf := make([]byte, n)
	for i := range 60 {
		k, _, err := r.e.Read(buf)
		if err != nil || k != n || !bytes.Equal(buf, pattern(i, n)) {
			t.Fatalf("message %d after close: %d %v", i, k, err)
		}
	}
	l.done()
}

// A small receive buffer does not lend (receiver.fragment).
func TestLentNotOnSmallBuffer(t *testing.T) {
	r := newRx(t, Config{Buffers: api.Buffers{RecvBuffer: 128 << 10}})
	l := newLender(r)
	for i := range 20 {
		l.data(Data{TSN: TSN(1 + i), SSN: uint16(i), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(i, 1400)})
	}
	if l.lent != 0 {
		t.Fatalf("a %d-byte receive buffer lent", 128<<10)
	}
	l.cur.Release()
}

// Lending never takes the receiver over its memory limit: buffers that do
// not fit are copied from, and what the receiver charges counts each
// referenced buffer whole.
func TestLentChargesWholeBuffers(t *testing.T) {
	r := lendRx(t, false)
	l := newLender(r)
	// One small message per buffer, all held behind a hole: each would pin
	// a whole buffer.
	for i := range 60 {
		l.data(Data{TSN: TSN(2 + i), SSN: uint16(1 + i), Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(i, 600)})
		l.next()
		rv := &r.e.recv
		if rv.charged() < rv.pool.LentCost() || rv.charged() > rv.win.memLimit {
			t.Fatalf("charged %d: lent %d, limit %d", rv.charged(), rv.pool.LentCost(), rv.win.memLimit)
		}
	}
	if l.lent*interleave.RecvBufCost > r.e.recv.win.memLimit {
		t.Fatalf("%d buffers lent, over the memory limit %d", l.lent, r.e.recv.win.memLimit)
	}
	l.data(Data{TSN: 1, SSN: 0, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: pattern(99, 600)})
	for {
		if _, _, err := r.e.Read(make([]byte, 600)); err != nil {
			break
		}
	}
	l.done()
}
