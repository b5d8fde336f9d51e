package transfer

import (
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// maxDupTSNs bounds the duplicate TSNs reported in one SACK.
const maxDupTSNs = 32

// receiver is the receiving half of the engine: the TSN map with duplicate
// detection, the receive window, delayed SACK, reassembly and in-order
// delivery (RFC 9260 sections 6.2, 6.5, 6.6, 6.9).
type receiver struct {
	cfg    *Config
	stats  *Stats
	tsns   tsnMap
	reasm  interleave.Reassembler
	counts *interleave.Counts           // reasm's byte counts, read for every chunk and read
	idata  *interleave.IDataReassembler // the reassembler with I-DATA, else nil
	pool   *interleave.Pool
	skips  []interleave.MIDSkip // I-FORWARD-TSN entries, reused
	fwd    []interleave.Skip    // FORWARD-TSN entries, reused

	streams  *streamTable   // the stream table, for resets and added streams
	deferred *deferredReset // an incoming reset waiting for the cumulative TSN (RFC 6525)

	acks    sackSchedule // when the next SACK is due and what it reports (receiver_sack.go)
	win     recvWindow   // the receive buffer, its window and budgets (recv_window.go)
	reading partRead     // the message Read returned in part
	// lend is the receive buffer the packet being processed arrived in,
	// which its fragments may reference (Engine.SetRecvBuf), or nil.
	lend *interleave.RecvBuf

	// pdAlways (tests): rebuild the partial delivery candidates on every
	// check.
	pdAlways bool
}

// partRead is the message Read returned in part, without I-DATA: the next
// Read continues it (RFC 6458 fragment interleave level 0).
type partRead struct {
	active bool
	sid    uint16 // its stream
	first  TSN    // the TSN of its first fragment
}

func (r *receiver) init(cfg *Config, st *Stats, streams *streamTable) {
	r.cfg, r.stats, r.streams = cfg, st, streams
	r.tsns.init(cfg.PeerTSN)
	r.acks.dups = make([]TSN, 0, maxDupTSNs)
	if cfg.Interleaved {
		d := interleave.NewIDataReassembler(streams, cfg.InterleaveFSN)
		r.reasm, r.pool, r.idata = d, d.Pool(), d
	} else {
		d := interleave.NewDataReassembler(streams)
		r.reasm, r.pool = d, d.Pool()
	}
	r.counts = r.reasm.Counts()
	r.win.budget = cfg.Budget
	r.win.recvBudget = cfg.RecvBudget
	r.win.setCapacity(cfg.RecvBuffer, cfg.MTU)
	r.win.lastAdv = r.win.capacity
	r.win.tune.base = cfg.RecvBuffer
}

// handleData processes one DATA chunk (RFC 9260 sections 6.2, 6.5); an
// error means the association must ABORT. Every return syncs the budget
// (no defer: this runs for every chunk received).
func (r *receiver) handleData(now time.Time, d *Data) (Verdict, error) {
	r.stats.DataChunksReceived++
	if r.idata != nil {
		r.syncBudget()
		return r.wrongVariant()
	}
	v, ok, err := r.admit(d.TSN, d.Flags, d.SID, len(d.Payload), nil)
	if !ok {
		r.syncBudget() // a full window may have dropped fragments
		return v, err
	}
	f := r.fragment(d.Payload)
	f.TSN, f.PPID, f.SSN, f.SID, f.Flags = d.TSN, d.PPID, stream.SSN(d.SSN), d.SID, d.Flags&(chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered)
	if !r.addFrag(f) {
		r.syncBudget()
		return Dropped, ErrProtocolViolation
	}
	r.stats.BytesReceived += uint64(len(d.Payload))
	r.checkPartial()
	r.tuneOnData(now)
	r.syncBudget()
	return Accepted, nil
}

// fragment returns a fragment holding payload, an accepted chunk's: one
// that references the receive buffer the packet arrived in (lend) when
// the pool lends it and the buffer is charged already or its whole size
// fits the memory limit and budget besides what is held, else a copy. The limit then bounds what
// lent buffers pin as it bounds copies, whatever part of a buffer a peer
// makes its chunks cover (see interleave.Pool.Lend).
//
// Only a receive buffer of lendBuffers receive buffers or more lends: the
// window's memory term (receiver.window) sees a lent buffer whole, so
// while little is held it may advertise up to half a buffer less than
// with copies; on a large buffer that is a small part of the window, on a
// small one it would shrink it.
func (r *receiver) fragment(payload []byte) *interleave.Frag {
	if b := r.lend; b != nil && len(payload) >= interleave.LendMin && r.win.capacity >= lendBuffers*interleave.RecvBufCost &&
		(r.pool.Lends(b) || r.roomForBuffer(len(payload))) {
		if f := r.pool.Lend(payload, b); f != nil {
			return f
		}
	}
	return r.pool.Get(payload)
}

// roomForBuffer reports whether a receive buffer's whole size fits the
// memory limit and the endpoint budget besides what is held and a chunk
// of n bytes.
func (r *receiver) roomForBuffer(n int) bool {
	cost := interleave.RecvBufCost + chunkCost(n) + interleave.SideCost
	return r.heldCost()+cost <= r.win.memLimit && (r.win.budget == nil || cost <= r.win.budget.roomFor(r.charged()))
}

// lendBuffers is the smallest receive buffer that lends, in receive
// buffers (see receiver.fragment).
const lendBuffers = 4

// heldCost returns what the held fragments cost in memory: their records
// and copies, and the receive buffers lent fragments reference.
func (r *receiver) heldCost() int { return r.counts.Charged + r.pool.LentCost() }

// admit applies the section 6.2 receive rules DATA and I-DATA share to a
// chunk of TSN t with n user bytes on stream sid (id: the I-DATA chunk, nil
// for DATA). ok reports whether the TSN was taken and the fragment must be
// added; otherwise v and err answer the chunk.
func (r *receiver) admit(t TSN, flags uint8, sid uint16, n int, id *IData) (v Verdict, ok bool, err error) {
	if flags&chunk.FlagImmediate != 0 {
		r.acks.immediate = true
	}
	if n == 0 {
		// 6.2: a DATA chunk with no user data "SHOULD send an ABORT chunk with
		// a "No User Data" error cause."
		r.stats.EmptyData++
		return Dropped, false, ErrEmptyMessage
	}
	if r.tsns.has(t) {
		r.stats.DupTSNs++
		r.acks.duplicate(t) // reported at once (sackSchedule.duplicate)
		return Duplicate, false, nil
	}
	if !r.tsns.inWindow(t) {
		r.stats.DroppedRange++
		r.acks.dueNow = true
		return Dropped, false, nil
	}
	if r.full(n) && !r.fitOverFullWindow(t, sid, n, id) {
		return Dropped, false, nil
	}
	r.tsns.add(t)
	r.acks.newData = true
	if r.tsns.hasGaps() || t != r.tsns.cum {
		// 6.7: on a gap, "send a SACK chunk with Gap Ack Blocks immediately."
		r.acks.dueNow = true
	}
	if int(sid) >= r.cfg.InStreams {
		r.stats.InvalidStream++
		return InvalidStream, false, nil
	}
	return Accepted, true, nil
}

// fitOverFullWindow decides whether a chunk that does not fit the receive
// window is accepted after all. 6.2: "When the receiver's advertised
// window is 0, the receiver MUST drop any new incoming DATA chunk with a
// TSN larger than the largest TSN received so far. Also, if the new
// incoming DATA chunk holds a TSN value less than the largest TSN received
// so far, then the receiver SHOULD drop the largest TSN held for
// reordering and accept the new incoming DATA chunk."
func (r *receiver) fitOverFullWindow(t TSN, sid uint16, n int, id *IData) bool {
	r.acks.dueNow = true
	r.checkPartial()
	if r.partialWants(t, sid, id) && r.counts.Held+n <= r.win.capacity+r.cfg.MTU &&
		r.heldCost()+chunkCost(n) <= r.win.memLimit+chunkCost(r.cfg.MTU) {
		// The next fragment of a message in partial delivery whose stream's
		// reader waits: accept it (at most one chunk over the window), or the
		// messages behind it would keep the window shut for good. A deliberate
		// exception to the MUST above, which assumes held data can drain.
		r.stats.PartialOverrun++
		return true
	}
	if t.GT(r.tsns.highest) {
		r.stats.DroppedWindow++
		return false
	}
	for r.full(n) {
		dt, _, dropped := r.reasm.DropHighest(t)
		if !dropped {
			break
		}
		r.tsns.remove(dt)
		r.stats.DroppedReneged++
	}
	if r.held()+n > r.win.capacity+r.cfg.MTU || r.charged()+chunkCost(n) > r.win.memLimit+chunkCost(r.cfg.MTU) {
		// Nothing above t could go: at most one chunk's overrun.
		r.stats.DroppedWindow++
		return false
	}
	return true
}

// partialWants reports whether the chunk is the next fragment of a message
// in partial delivery whose stream was read up to it.
func (r *receiver) partialWants(t TSN, sid uint16, id *IData) bool {
	if int(sid) >= r.cfg.InStreams || r.reasm.PeekStream(sid) != nil {
		return false
	}
	if id != nil {
		return r.idata.PartialWants(id.SID, id.Unordered(), id.Beginning(), stream.MID(id.MID), stream.FSN(id.FSN))
	}
	next, ok := r.reasm.PartialNext()
	return ok && t == next
}

// checkPartial starts partial delivery when the held bytes reach the
// partial delivery point and some wait for reassembly or ordering. The
// reassembler picks a stream with nothing ready for its reader, so one
// busy or absent reader does not block the others' large messages; it
// keeps the candidates up to date, so a check costs O(log n) in the
// streams whatever the peer sends.
//
// A DATA message whose next TSN arrived before the partial delivery began
// will not complete (fragments have consecutive TSNs, RFC 9260 section
// 6.9): its sender gave up the rest, as Linux does without a FORWARD-TSN
// when a lifetime expires between fragments. That partial delivery ends at
// once with the Aborted marker.
func (r *receiver) checkPartial() {
	h := r.counts.Held
	if (h < r.win.pdPoint && r.heldCost() < r.win.memLimit/2) || h <= r.counts.Ready {
		return
	}
	if r.pdAlways {
		r.reasm.RecheckAll()
	}
	if !r.reasm.Partial() {
		return
	}
	r.stats.PartialDeliveries++
	if d, ok := r.reasm.(*interleave.DataReassembler); ok {
		if next, ok := d.PartialNext(); ok && r.tsns.has(next) {
			d.AbortPartial()
		}
	}
}

// readable reports whether Read would return data.
func (r *receiver) readable() bool {
	if sid, ok := r.continuing(); ok {
		return r.reasm.PeekStream(sid) != nil
	}
	return r.reasm.Peek() != nil
}

// readableStream reports whether ReadStream(sid) would return data.
func (r *receiver) readableStream(sid uint16) bool { return r.reasm.PeekStream(sid) != nil }

// appendReadable appends the inbound streams that got data since its last
// call (a stream may have been read empty since).
func (r *receiver) appendReadable(dst []uint16) []uint16 { return r.reasm.AppendReadable(dst) }

// continuing returns the stream of the message a Read returned in part
// while it has parts left (without I-DATA).
func (r *receiver) continuing() (uint16, bool) {
	if !r.reading.active {
		return 0, false
	}
	if h := r.reasm.PeekStream(r.reading.sid); h != nil {
		if h.FirstTSN == r.reading.first && h.Flags&chunk.FlagBeginning == 0 {
			return r.reading.sid, true // its next part, or the marker of its abort
		}
	} else if r.reasm.InPartial(r.reading.sid) {
		return r.reading.sid, true // its next part is on its way
	}
	r.reading.active = false // read to its end by ReadStream, or cut short
	return 0, false
}

// read copies delivered user data into p, one message per call in the
// order messages became deliverable, in parts when larger than p. Reading
// may make a window-update SACK due.
//
// Without I-DATA a message returned in part is continued by the next Read
// (RFC 6458 fragment interleave level 0) unless ReadStream finished it.
// With I-DATA parts of messages on several streams may alternate (level
// 2); a partial delivery aborted by an I-FORWARD-TSN reads as an empty part
// with info.Aborted.
func (r *receiver) read(p []byte) (n int, info RecvInfo, err error) {
	var f *interleave.Frag
	if sid, ok := r.continuing(); ok {
		f = r.reasm.PeekStream(sid)
	} else {
		f = r.reasm.Peek()
	}
	if f == nil {
		return 0, RecvInfo{}, ErrWouldBlock
	}
	n, info = r.readFrom(f, p)
	r.win.tune.read += uint64(n)
	if r.idata == nil && !info.EOR {
		r.reading.active, r.reading.sid, r.reading.first = true, info.SID, info.TSN
	}
	return n, info, nil
}

// readStream is read for inbound stream sid only; a message partly read by
// read continues here, and the other way round.
func (r *receiver) readStream(sid uint16, p []byte) (n int, info RecvInfo, err error) {
	f := r.reasm.PeekStream(sid)
	if f == nil {
		return 0, RecvInfo{}, ErrWouldBlock
	}
	n, info = r.readFrom(f, p)
	r.win.tune.read += uint64(n)
	return n, info, nil
}

// readFrom reads into p the fragments of f's message queued in a row from
// f, the head of its stream's delivery queue.
func (r *receiver) readFrom(f *interleave.Frag, p []byte) (n int, info RecvInfo) {
	defer r.syncBudget()
	sid, first := f.SID, f.FirstTSN
	info = RecvInfo{
		SID: sid, SSN: uint16(f.SSN), PPID: f.PPID, TSN: first, MID: uint32(f.MID),
		Unordered: f.Flags&chunk.FlagUnordered != 0,
	}
	if f.Flags&interleave.FlagAborted != 0 {
		r.reasm.PopStream(sid)
		r.pool.Put(f)
		info.Aborted = true
		r.stats.PartialDeliveriesAborted++
		return 0, info
	}
	for {
		c := copy(p[n:], f.Data[f.Off:])
		n += c
		f.Off += int32(c)
		if int(f.Off) < len(f.Data) {
			break
		}
		_, next := r.reasm.PopStreamNext(sid)
		end := f.Flags&chunk.FlagEnd != 0
		r.pool.Put(f)
		if end {
			info.EOR = true
			r.stats.MessagesDelivered++
			if r.reading.active && r.reading.sid == sid && r.reading.first == first {
				r.reading.active = false
			}
			break
		}
		if n == len(p) {
			break
		}
		f = next
		if f == nil || f.FirstTSN != first || f.Flags&(chunk.FlagBeginning|interleave.FlagAborted) != 0 {
			break // not queued yet, or another message's part: the next read
		}
	}
	r.checkPartial()
	r.trimFragments()
	if r.window()-r.win.peerWindow(r.stats.BytesReceived) >= r.updateAt() {
		r.acks.dueNow = true
		r.stats.WindowUpdates++
	}
	return n, info
}
