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
	dups   []TSN
	gapBuf []GapBlock
	reasm  interleave.Reassembler
	counts *interleave.Counts           // reasm's byte counts, read for every chunk and read
	idata  *interleave.IDataReassembler // the reassembler with I-DATA, else nil
	skips  []interleave.MIDSkip
	fwd    []interleave.Skip // FORWARD-TSN entries, reused
	pool   *interleave.Pool

	reconfStreams *Streams       // the stream table, for resets and added streams
	deferred      *deferredReset // an incoming reset waiting for the cumulative TSN (RFC 6525)
	muted         bool           // no SACK until DATA moves the cumulative TSN past muteCum (ResetTSN)
	muteCum       TSN

	tune rcvTune // buffer autotuning (autotune.go)

	capacity int // receive buffer: a_rwnd when empty
	memLimit int // what held data may cost in memory (see Charged)
	budget   *Budget
	budgeted int // what this receiver charged to budget
	// recvBudget, when set, is the endpoint's receive budget: while
	// other associations receive too, the window and held data stay
	// within a share of it (recvbudget.go).
	recvBudget   *RecvBudget
	sharePeriod  uint32 // the budget's period in which this receiver last received
	shareCounted bool   // counted as active in it
	shareBase    uint64 // Stats.BytesReceived at its start
	shareSeen    uint64 // Stats.BytesReceived at the last packet with DATA
	pdPoint      int    // held bytes that start partial delivery
	// pdAlways (tests): every partial delivery check rebuilds the
	// reassembler's candidates by looking at every stream, instead of
	// trusting what it kept up to date as the streams changed.
	pdAlways  bool
	lastAdv   int    // a_rwnd of the last SACK
	advRecv   uint64 // Stats.BytesReceived when lastAdv was sent
	updateMin int    // window opening that warrants a window update

	// SACK scheduling.
	packets     int       // packets with DATA since the last SACK
	sackNow     bool      // a SACK is due at once
	ackDeadline time.Time // delayed SACK deadline, zero when none
	inPacket    bool      // the current packet had new DATA
	inBatch     bool      // a receive batch is open (BeginBatch)
	batchDue    bool      // the every-second-packet SACK became due in it
	immediate   bool      // the current packet had a DATA with the I bit

	// Reading. Without I-DATA, a message that Read returned in part is
	// continued by the next Read (the RFC 6458 fragment interleave level
	// 0 of a one-to-one socket): cur is set while that message (stream
	// curSID, first TSN curFirst) has parts left.
	cur      bool
	curSID   uint16
	curFirst TSN
}

func (r *receiver) init(cfg *Config, st *Stats, streams *Streams) {
	r.cfg, r.stats, r.reconfStreams = cfg, st, streams
	r.tsns.init(cfg.PeerTSN)
	r.dups = make([]TSN, 0, maxDupTSNs)
	if cfg.Interleaved {
		d := interleave.NewIDataReassembler(streams, cfg.FSN)
		r.reasm, r.pool, r.idata = d, d.Pool(), d
	} else {
		d := interleave.NewDataReassembler(streams)
		r.reasm, r.pool = d, d.Pool()
	}
	r.counts = r.reasm.Counts()
	r.budget = cfg.Budget
	r.recvBudget = cfg.RecvBudget
	r.setCapacity(cfg.RecvBuffer)
	r.lastAdv = r.capacity
	r.tune.base = cfg.RecvBuffer
}

// setCapacity sets the receive buffer and what follows from it.
func (r *receiver) setCapacity(n int) {
	r.capacity = n
	r.memLimit = memFactor * n
	r.pdPoint = max(n/2, 1)
	// A quarter of the buffer or an MTU, but never over half the buffer
	// (RFC 1122 4.2.3.3's min(buffer/2, MSS)): with 64 KB packets and a
	// small buffer an MTU is more than the whole window, which would then
	// never open enough for a window update.
	r.updateMin = min(max(n/4, r.cfg.MTU), max(n/2, 1))
}

// SetRecvBuffer changes the receive buffer of a live association (at least
// one MTU): the endpoint keeps the associations not accepted yet on a small
// one, so that a full accept queue of peers sending data costs little, and
// gives them the configured one when they are accepted. Data held beyond a
// smaller buffer stays (nothing accepted is dropped); the window is closed
// until it drains. A larger buffer makes a window update due.
func (r *receiver) SetRecvBuffer(n int) {
	n = max(n, r.cfg.MTU)
	if n == r.capacity {
		return
	}
	grew := n > r.capacity
	r.setCapacity(n)
	r.cfg.RecvBuffer = n
	if grew && r.Window()-r.peerWindow() >= r.updateAt() {
		r.sackNow = true
		r.stats.WindowUpdates++
	}
	r.checkPartial()
}

// SetAdvertised tells the receiver the a_rwnd the peer was last told
// outside its SACKs (the INIT or INIT ACK that announced a window other
// than the receive buffer it was made with), so that a window opening
// past it makes a window update due.
func (r *receiver) SetAdvertised(n int) { r.lastAdv, r.advRecv = n, r.stats.BytesReceived }

// peerWindow returns the window the peer sees now: the last a_rwnd less
// the bytes received since (what the peer sent into it, as far as we
// know). A window update is due when our window exceeds it by updateAt,
// as Linux TCP compares the new window with what is left of the one it
// announced: compared with the last a_rwnd alone, a window that a single
// packet filled and the reader emptied (a small buffer, or a receive
// budget's share, next to 64 KB packets) would wait for the delayed SACK
// timer on every round trip.
func (r *receiver) peerWindow() int {
	return max(r.lastAdv-int(r.stats.BytesReceived-r.advRecv), 0)
}

// RecvBuffer returns the receive buffer in force.
func (r *receiver) RecvBuffer() int { return r.capacity }

// CumulativeTSN returns the cumulative TSN of received data (the
// Cumulative TSN Ack of our SACKs and of a SHUTDOWN chunk).
func (r *receiver) CumulativeTSN() TSN { return r.tsns.cum }

// memFactor is the memory limit of held data over the receive buffer: what
// Linux allows by doubling SO_RCVBUF for the overhead of its buffers. Data
// that arrives in chunks of a reasonable size (a 1452-byte fragment costs
// 1616 bytes) stays below it before the window is full; tiny fragments
// (a 1-byte one costs 96 bytes) reach it first, and then it bounds the
// memory, not the user bytes.
const memFactor = 2

// Window returns the receive window we would advertise now (a_rwnd): the
// room left in the receive buffer, or less when what the held data costs
// in memory (Charged) nears the memory limit, so that a peer sending tiny
// fragments sees the window close with the memory it really uses.
//
// With an endpoint Budget it advertises at most half of what is left of
// the budget too, so that the windows of every association shrink as the
// endpoint's memory fills; with a RecvBudget shared with other receiving
// associations, at most its share.
func (r *receiver) Window() int {
	w := min(r.capacity-r.held(), (r.memLimit-r.charged())/memFactor)
	if r.budget != nil {
		w = min(w, r.budget.room()/memFactor)
	}
	if s := r.shareCap(); s > 0 {
		w = min(w, s)
	}
	return max(w, 0)
}

// Charged returns what the data the receiver holds costs in memory: the
// fragment records and their whole buffers (interleave.Frag.Cost), as Linux
// charges an skb's truesize against the receive buffer. It stays within
// twice the receive buffer plus one chunk, whatever the size of the chunks
// the peer sends.
func (r *receiver) Charged() int { return r.charged() }

// chunkCost is what a chunk of n user bytes costs held.
func chunkCost(n int) int { return interleave.FragCost(n) }

// full reports whether a chunk of n user bytes does not fit: in the
// receive buffer, or within the memory limit.
func (r *receiver) full(n int) bool {
	return r.held()+n > r.capacity || r.charged()+chunkCost(n) > r.memLimit ||
		(r.budget != nil && chunkCost(n) > r.budget.room())
}

// advertise returns the a_rwnd to put in a SACK. 6.2: "The receiver MUST
// also have an algorithm for advertising its receive window to avoid
// receiver silly window syndrome (SWS), as described in [RFC1122]": a
// window smaller than both a full-sized chunk and half the buffer is
// advertised as 0, so the peer does not dribble small chunks into it.
func (r *receiver) advertise() int {
	w := r.Window()
	if w < min(r.cfg.MTU, r.effCapacity()/2) {
		return 0
	}
	return w
}

// effCapacity returns the receive buffer, or the receive budget's share
// when that is smaller: the window the SWS and window update rules are
// measured against.
func (r *receiver) effCapacity() int {
	if s := r.shareCap(); s > 0 && s < r.capacity {
		return s
	}
	return r.capacity
}

// shareBlocked reports whether a receive budget's share binds the window
// and the peer, as far as we know, has used it up to less than a full
// chunk while ours is open again: one packet can fill a share (64 KB
// packets, 16 KiB shares), so the rule of a SACK every second packet would
// leave it waiting for the delayed SACK timer.
func (r *receiver) shareBlocked() bool {
	n := r.effCapacity()
	if n == r.capacity {
		return false
	}
	sws := min(r.cfg.MTU, n/2)
	return r.peerWindow() < sws && r.Window() >= sws
}

// updateAt returns the window opening that warrants a window update:
// updateMin, or the same rule applied to the receive budget's share when
// that is smaller than the buffer (a window bound by a share never opens
// by a quarter of the buffer).
func (r *receiver) updateAt() int {
	n := r.effCapacity()
	if n == r.capacity {
		return r.updateMin
	}
	return min(max(n/4, r.cfg.MTU), max(n/2, 1))
}

// Held returns the user bytes held: waiting for reassembly or ordering, or
// ready to be read.
func (r *receiver) Held() int { return r.held() }

// HandleData processes one DATA chunk from the peer (RFC 9260 section 6.2
// and 6.5). The payload is copied when the chunk is kept. An error means the
// association must ABORT: ErrEmptyMessage ("No User Data" cause) or
// ErrProtocolViolation.
func (r *receiver) HandleData(now time.Time, d *Data) (Verdict, error) {
	defer r.settle()
	r.stats.DataChunksReceived++
	if r.idata != nil {
		return r.wrongVariant()
	}
	v, ok, err := r.admit(d.TSN, d.Flags, d.SID, len(d.Payload), nil)
	if !ok {
		return v, err
	}
	t := d.TSN
	f := r.pool.Get(d.Payload)
	f.TSN, f.PPID, f.SSN, f.SID, f.Flags = t, d.PPID, stream.SSN(d.SSN), d.SID, d.Flags&(chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered)
	if !r.addFrag(f) {
		return Dropped, ErrProtocolViolation
	}
	r.stats.BytesReceived += uint64(len(d.Payload))
	r.checkPartial()
	r.tuneOnData(now)
	return Accepted, nil
}

// admit applies the RFC 9260 section 6.2 receive rules that DATA and I-DATA
// share (the I bit, No User Data, duplicates, the TSN window, the full
// window, gaps, the stream id) to a chunk of TSN t carrying n user bytes on
// stream sid. id is the I-DATA chunk, nil for DATA; it decides which
// fragment the full-window exception for partial delivery accepts. ok reports
// whether the chunk's TSN was taken and its fragment must be added; otherwise
// v and err are the answer to the chunk.
func (r *receiver) admit(t TSN, flags uint8, sid uint16, n int, id *IData) (v Verdict, ok bool, err error) {
	if flags&chunk.FlagImmediate != 0 {
		r.immediate = true
	}
	if n == 0 {
		// 6.2: "If an endpoint receives a DATA chunk with no user data
		// (i.e., the Length field is set to 16), it SHOULD send an ABORT
		// chunk with a "No User Data" error cause."
		r.stats.EmptyData++
		return Dropped, false, ErrEmptyMessage
	}
	if r.tsns.has(t) {
		// 6.2: "When a packet arrives with duplicate DATA chunk(s) and
		// with no new DATA chunk(s), the endpoint MUST immediately send a
		// SACK chunk with no delay." We answer every duplicate at once.
		r.stats.DupTSNs++
		if len(r.dups) < maxDupTSNs {
			r.dups = append(r.dups, t)
		}
		r.sackNow = true
		return Duplicate, false, nil
	}
	if !r.tsns.inWindow(t) {
		r.stats.DroppedRange++
		r.sackNow = true
		return Dropped, false, nil
	}
	if r.full(n) {
		// 6.2: "When the receiver's advertised window is 0, the receiver
		// MUST drop any new incoming DATA chunk with a TSN larger than the
		// largest TSN received so far. Also, if the new incoming DATA chunk
		// holds a TSN value less than the largest TSN received so far, then
		// the receiver SHOULD drop the largest TSN held for reordering and
		// accept the new incoming DATA chunk. In either case, if such a
		// DATA chunk is dropped, the receiver MUST immediately send back a
		// SACK chunk".
		r.sackNow = true
		r.maybePartial()
		if r.partialWants(t, sid, id) && r.counts.Held+n <= r.capacity+r.cfg.MTU &&
			r.counts.Charged+chunkCost(n) <= r.memLimit+chunkCost(r.cfg.MTU) {
			// The next fragment of a message in partial delivery, with all
			// of its stream delivered so far read: accept it (at most one
			// chunk over the window, which the stream's waiting reader
			// takes at once). The messages waiting behind the partial
			// delivery (or on streams nobody reads) would otherwise keep
			// the window shut for good: a deliberate exception to the MUST
			// above, which assumes held data can always drain.
			r.stats.PartialOverrun++
		} else {
			if t.GT(r.tsns.highest) {
				r.stats.DroppedWindow++
				return Dropped, false, nil
			}
			for r.full(n) {
				dt, _, dropped := r.reasm.DropHighest(t)
				if !dropped {
					break
				}
				r.tsns.remove(dt)
				r.stats.DroppedReneged++
			}
			if r.held()+n > r.capacity+r.cfg.MTU || r.charged()+chunkCost(n) > r.memLimit+chunkCost(r.cfg.MTU) {
				// Nothing held above t could go (all of it is delivered and
				// waits for the reader): at most one chunk's overrun.
				r.stats.DroppedWindow++
				return Dropped, false, nil
			}
		}
	}
	r.tsns.add(t)
	r.inPacket = true
	if r.tsns.hasGaps() || t != r.tsns.cum {
		// 6.7: "If the endpoint detects a gap in the received DATA chunk
		// sequence, it SHOULD send a SACK chunk with Gap Ack Blocks
		// immediately."
		r.sackNow = true
	}
	if int(sid) >= r.cfg.InStreams {
		r.stats.InvalidStream++
		return InvalidStream, false, nil
	}
	return Accepted, true, nil
}

// partialWants reports whether the chunk (id, or DATA of TSN t on stream
// sid when id is nil) is the next fragment of a message in partial
// delivery, with all its stream delivered so far read (the stream's reader
// waits for it). DATA fragments of one message have consecutive TSNs;
// I-DATA fragments go by MID and FSN.
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

// maybePartial starts partial delivery when the held bytes reach the
// partial delivery point and some of them wait for reassembly or ordering:
// a message too large for the buffer must start to leave before it is
// complete. The reassembler picks a message on a stream with nothing ready
// for its reader (a stream with data ready frees window when it is read),
// so one stream whose reader is busy or absent does not keep the others'
// large messages from starting.
//
// A DATA message whose next TSN arrived before the partial delivery began,
// holding another message, will not complete: fragments of a message have
// consecutive TSNs (RFC 9260 section 6.9), so the sender gave up its rest
// before sending it (PR-SCTP). Linux 6.1 does that without a FORWARD-TSN
// when the fragments it sent were all acknowledged (a lifetime that
// expires between fragments). The partial delivery ends at once, with the
// Aborted marker after the parts, instead of waiting for good.
func (r *receiver) maybePartial() { r.checkPartial() }

// checkPartial is maybePartial. The reassembler keeps the streams partial
// delivery can start on as they change (interleave.Reassembler.Partial),
// so a check costs O(log n) in the streams whatever the peer sends: a peer
// spreading first fragments over every stream, or a reader behind on many
// streams, does not cost a walk over every stream in use for each DATA
// chunk and each read.
func (r *receiver) checkPartial() {
	h := r.counts.Held
	if (h < r.pdPoint && r.counts.Charged < r.memLimit/2) || h <= r.counts.Ready {
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

// EndPacket tells the receiver that the DATA chunks of one packet were all
// handled; it schedules the SACK: "An acknowledgement SHOULD be generated
// for at least every second packet ... received and SHOULD be generated
// within 200 ms of the arrival of any unacknowledged DATA chunk" (6.2), or
// at once for a DATA chunk with the I bit (RFC 7053).
func (r *receiver) EndPacket(now time.Time) {
	if r.immediate {
		r.sackNow = true
		r.immediate = false
	}
	if !r.inPacket {
		return
	}
	r.inPacket = false
	if r.recvBudget != nil {
		r.recvBudget.note(r, now)
	}
	r.packets++
	r.stats.DataPacketsReceived++
	if r.packets >= r.cfg.SACKFreq || r.shareBlocked() {
		if r.inBatch {
			r.batchDue = true
		} else {
			r.sackNow = true
		}
	}
	if r.ackDeadline.IsZero() {
		r.ackDeadline = now.Add(r.cfg.SACKDelay)
	}
}

// BeginBatch opens a receive batch: the packets that follow, up to
// EndBatch, arrived together (one recvmmsg call, whose datagrams the
// kernel may have coalesced with GRO) and count as one reception event
// for the rule "An acknowledgement SHOULD be generated for at least every
// second packet" (RFC 9260 section 6.2): the SACK that rule asks for goes
// out once, at EndBatch, and acknowledges the whole batch. Per-packet
// SACKs would leave in the same write at the end of the batch anyway,
// each older than the last; one SACK carries the same information in one
// packet instead of one per two, as TCP acknowledges a GRO super-packet
// once. SACKs due at once for other reasons (a gap, a duplicate, the I
// bit, the first DATA) are not held, so loss recovery sees a SACK per
// packet as before.
func (r *receiver) BeginBatch() { r.inBatch = true }

// EndBatch closes the receive batch and reports whether a SACK is due.
func (r *receiver) EndBatch() bool {
	r.inBatch = false
	if r.batchDue {
		r.batchDue = false
		r.sackNow = true
	}
	return r.sackNow
}

// SACKDue reports whether a SACK should go out now.
func (r *receiver) SACKDue(now time.Time) bool {
	return r.sackNow || (!r.ackDeadline.IsZero() && !now.Before(r.ackDeadline))
}

// Unacked reports whether DATA arrived that no SACK has acknowledged yet
// (a SACK is due or delayed), or duplicates wait to be reported: such a
// SACK may ride on outbound DATA before it is due.
func (r *receiver) Unacked() bool {
	return r.sackNow || !r.ackDeadline.IsZero() || len(r.dups) > 0
}

// Deadline returns the delayed-SACK deadline, or the zero time.
func (r *receiver) Deadline() time.Time { return r.ackDeadline }

// AppendSACK appends a SACK chunk reporting the TSN map (cumulative TSN,
// Gap Ack Blocks, duplicate TSNs) and the receive window to pkt, using at
// most room bytes (blocks and duplicates that do not fit are left out), and
// returns the extended packet. It clears the SACK schedule.
func (r *receiver) AppendSACK(now time.Time, pkt []byte, room int) []byte {
	if room < sackHeaderLen {
		return pkt
	}
	if r.muted {
		if r.tsns.cum == r.muteCum {
			// After an SSN/TSN reset we performed: see ResetTSN.
			r.sackNow, r.batchDue, r.packets = false, false, 0
			r.ackDeadline = time.Time{}
			r.dups = r.dups[:0]
			return pkt
		}
		r.muted = false
	}
	maxGaps := (room - sackHeaderLen) / 4
	r.gapBuf = r.gapBuf[:0]
	if r.tsns.hasGaps() {
		r.tsns.gaps(maxGaps, func(s, e uint16) {
			r.gapBuf = append(r.gapBuf, GapBlock{Start: s, End: e})
		})
	}
	ndups := min(len(r.dups), (room-sackHeaderLen)/4-len(r.gapBuf))
	adv := r.advertise()
	pkt, _ = chunk.AppendSack(pkt, r.tsns.cum, uint32(adv), r.gapBuf, r.dups[:ndups])
	r.dups = r.dups[:0]
	r.packets = 0
	r.sackNow, r.batchDue = false, false
	r.ackDeadline = time.Time{}
	r.lastAdv, r.advRecv = adv, r.stats.BytesReceived
	r.stats.SACKsSent++
	return pkt
}

// SkipSACK clears the SACK schedule without a SACK: for an association
// whose peer sends no more DATA (SHUTDOWN-ACK-SENT), a window update or
// duplicate report would only reach a peer that may have ended the
// association already.
func (r *receiver) SkipSACK() {
	r.dups = r.dups[:0]
	r.packets = 0
	r.sackNow, r.batchDue = false, false
	r.ackDeadline = time.Time{}
}

// Readable reports whether Read would return data.
func (r *receiver) Readable() bool {
	if sid, ok := r.continuing(); ok {
		return r.reasm.PeekStream(sid) != nil
	}
	return r.reasm.Peek() != nil
}

// ReadableStream reports whether ReadStream(sid) would return data.
func (r *receiver) ReadableStream(sid uint16) bool { return r.reasm.PeekStream(sid) != nil }

// AppendReadable appends to dst the inbound streams that got data to read
// since its last call (each once; a stream may have been read empty since)
// and returns the extended slice. A shell wakes the readers of those
// streams only.
func (r *receiver) AppendReadable(dst []uint16) []uint16 { return r.reasm.AppendReadable(dst) }

// continuing returns the stream of the message a Read returned in part, as
// long as that message has parts left (without I-DATA only).
func (r *receiver) continuing() (uint16, bool) {
	if !r.cur {
		return 0, false
	}
	if h := r.reasm.PeekStream(r.curSID); h != nil {
		if h.FirstTSN == r.curFirst && h.Flags&chunk.FlagBeginning == 0 {
			return r.curSID, true // its next part, or the marker of its abort
		}
	} else if r.reasm.InPartial(r.curSID) {
		return r.curSID, true // its next part is on its way
	}
	r.cur = false // read to its end by ReadStream, or cut short
	return 0, false
}

// Read copies delivered user data into p, taking messages of all streams
// in the order they became deliverable: at most one message per call, in
// parts when the message is larger than p (info.EOR marks the last part).
// It returns ErrWouldBlock when nothing is ready. Reading frees receive
// window; when the window opened enough since the last SACK, a
// window-update SACK becomes due.
//
// Without I-DATA, a message returned in part is continued by the next Read
// even when other streams' messages became deliverable meanwhile (RFC 6458
// fragment interleave level 0), unless ReadStream read it to its end.
// With I-DATA the parts of messages in partial delivery on several streams
// may alternate between reads (level 2): info names the message of each
// part (SID, Unordered, MID). A partial delivery aborted by an
// I-FORWARD-TSN reads as an empty part with info.Aborted.
func (r *receiver) Read(p []byte) (n int, info RecvInfo, err error) {
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
	r.tune.read += uint64(n)
	if r.idata == nil && !info.EOR {
		r.cur, r.curSID, r.curFirst = true, info.SID, info.TSN
	}
	return n, info, nil
}

// ReadStream is Read for inbound stream sid only: it returns the next
// message (or part) of that stream whatever the other streams hold, and
// ErrWouldBlock when the stream has nothing ready. A message partly read
// by Read continues here, and the other way round.
func (r *receiver) ReadStream(sid uint16, p []byte) (n int, info RecvInfo, err error) {
	f := r.reasm.PeekStream(sid)
	if f == nil {
		return 0, RecvInfo{}, ErrWouldBlock
	}
	n, info = r.readFrom(f, p)
	r.tune.read += uint64(n)
	return n, info, nil
}

// readFrom reads the message part that starts at f, the head of its
// stream's delivery queue, into p: the fragments of f's message queued in
// a row, up to p's size.
func (r *receiver) readFrom(f *interleave.Frag, p []byte) (n int, info RecvInfo) {
	defer r.settle()
	sid, first := f.SID, f.FirstTSN
	info = RecvInfo{
		SID: sid, SSN: uint16(f.SSN), PPID: f.PPID, TSN: first, MID: uint32(f.MID),
		Unordered: f.Flags&chunk.FlagUnordered != 0,
	}
	if f.Flags&interleave.FlagAborted != 0 {
		r.reasm.PopStream(sid)
		r.pool.Put(f)
		info.Aborted = true
		r.stats.PartialAborted++
		return 0, info
	}
	for {
		c := copy(p[n:], f.Data[f.Off:])
		n += c
		f.Off += int32(c)
		if int(f.Off) < len(f.Data) {
			break
		}
		r.reasm.PopStream(sid)
		end := f.Flags&chunk.FlagEnd != 0
		r.pool.Put(f)
		if end {
			info.EOR = true
			r.stats.MessagesDelivered++
			if r.cur && r.curSID == sid && r.curFirst == first {
				r.cur = false
			}
			break
		}
		if n == len(p) {
			break
		}
		f = r.reasm.PeekStream(sid)
		if f == nil || f.FirstTSN != first || f.Flags&(chunk.FlagBeginning|interleave.FlagAborted) != 0 {
			break // not queued yet, or another message's part: the next read
		}
	}
	r.checkPartial()
	r.rest()
	if r.Window()-r.peerWindow() >= r.updateAt() {
		r.sackNow = true
		r.stats.WindowUpdates++
	}
	return n, info
}
