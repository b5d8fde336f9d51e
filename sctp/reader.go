package sctp

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// The socket reader role. One goroutine at a time reads the endpoint's
// socket and feeds the core: normally the endpoint's reader goroutine
// (readLoop). When a batch it read woke a goroutine waiting in ReadMsg and
// nobody else waits, it yields the role and parks; that goroutine, when it
// next finds nothing to read, reads the socket itself (readDirect), so in
// a request/response exchange the packet wakes the goroutine that wants
// it straight from the netpoller, with no hand-off between goroutines and
// no OS thread woken to run the reader. The role goes back to readLoop as
// soon as another goroutine has to wait (waitOn), when the reading
// goroutine went away (no one took the role within readerCheck: the owner
// goroutine checks), or when one has read nothing for that long.
const (
	readerLoop = iota // readLoop reads the socket
	readerUser        // a goroutine in ReadMsg reads it (readDirect)
	readerNone        // nobody: a ReadMsg caller is expected back soon
)

// socketReader is the state of the reader role. Its fields are guarded by
// Endpoint.mu, except pkts, run, bufs and read, which belong to the
// role's holder.
type socketReader struct {
	direct      bool          // ReadMsg callers may take the role: the socket's deadline interrupts a read
	role        int           // who holds it: readerLoop, readerUser or readerNone
	takes       uint64        // times a ReadMsg caller took the role
	takesSeen   uint64        // takes at the owner's last check
	nextCheck   time.Time     // the owner's next check
	parked      bool          // readLoop waits for unpark
	interrupted bool          // the socket's read deadline is set to interrupt a reader
	handBack    bool          // the ReadMsg caller reading is to hand the role back
	wokeDirect  bool          // the batch being processed woke a direct reader
	woken       int           // ReadMsg callers the batch being processed woke
	unpark      chan struct{} // wakes a parked readLoop (handToLoop)

	pkts        []netio.Packet // read buffers of the role
	run         [][]byte       // the packets of a run (receiveRun), reused
	runStart    int            // the run's first packet in pkts
	runEnd      int            // the packet after its last
	bufs        [][]byte       // their own buffers (nil when reading views)
	readPackets func([]netio.Packet) (int, error)
}

// readerCheck is the period of the owner goroutine's checks of the reader
// role while readLoop is parked: the longest the socket stays unread
// before readLoop takes over, and the longest a ReadMsg caller idles on
// the socket before it hands the role back.
const readerCheck = time.Millisecond

// awaitReader parks readLoop until it holds the reader role; it reports
// false when the endpoint stopped.
func (e *Endpoint) awaitReader() bool {
	e.mu.Lock()
	for e.reader.role != readerLoop {
		e.reader.parked = true
		e.mu.Unlock()
		select {
		case <-e.reader.unpark:
		case <-e.done:
			return false
		}
		e.mu.Lock()
	}
	e.reader.parked = false
	e.mu.Unlock()
	return true
}

// handToLoop gives the reader role to readLoop and wakes it. Called with
// Endpoint.mu held.
func (r *socketReader) handToLoop() {
	r.role = readerLoop
	if r.parked {
		r.parked = false
		select {
		case r.unpark <- struct{}{}:
		default:
		}
	}
}

// mayYield reports whether readLoop, having processed a batch, should
// leave the socket to the ReadMsg caller it woke: one was woken that reads
// directly and no other goroutine waits for input. Called with e.mu held.
func (e *Endpoint) mayYield() bool {
	return e.reader.direct && e.reader.wokeDirect && e.nWaiting <= e.reader.woken && !e.closed
}

// readDirect reads and processes one batch from the socket in the calling
// goroutine, which takes the reader role meanwhile; the caller saw
// e.reader.role == readerNone. Called and returns with e.mu held.
func (e *Endpoint) readDirect() {
	e.reader.role = readerUser
	e.reader.takes++
	e.kickReaderCheck(time.Now())
	e.mu.Unlock()
	n, err := e.reader.readSocket()
	if err == nil {
		e.processBatch(n, false)
	}
	e.mu.Lock()
	if e.reader.interrupted {
		e.conn.SetReadDeadline(time.Time{})
		e.reader.interrupted = false
	}
	switch {
	case err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrDeadlineExceeded):
		// A transient socket error: readLoop has the policy for those.
		e.reader.handToLoop()
	case e.nWaiting > 0 || e.reader.handBack || err != nil:
		e.reader.handBack = false
		e.reader.handToLoop()
	default:
		e.reader.role = readerNone
	}
}

// interruptReader makes a ReadMsg caller reading the socket return to
// check its association (it ended, or its deadline changed). Called with
// e.mu held.
func (e *Endpoint) interruptReader() {
	if e.reader.role == readerUser && !e.reader.interrupted {
		e.reader.interrupted = true
		e.conn.SetReadDeadline(time.Unix(1, 0))
	}
}

// kickReaderCheck puts the owner's next check of the reader role off to
// readerCheck after a take at now, and its timer with it (unless a timer
// of the core is due before): a goroutine that takes the role again and
// again (a bulk writer reading its SACKs) wakes the owner for no check,
// and the owner's runs do not contend for mu and flushMu with it
// hundreds of times a second. Called with e.mu held, the role taken.
func (e *Endpoint) kickReaderCheck(now time.Time) {
	e.reader.nextCheck = now.Add(readerCheck)
	e.armOwner(e.ownerDeadline())
}

// checkReader is the owner goroutine's periodic look at the reader role
// while readLoop is parked: if no ReadMsg caller took the role since the
// last check, the socket goes back to readLoop (a caller blocked on it
// that long is interrupted). Called with e.mu held.
func (e *Endpoint) checkReader(now time.Time) {
	if e.reader.role == readerLoop || now.Before(e.reader.nextCheck) {
		return
	}
	e.reader.nextCheck = now.Add(readerCheck)
	if e.reader.takes == e.reader.takesSeen {
		switch e.reader.role {
		case readerNone:
			e.reader.handToLoop()
		case readerUser:
			e.reader.handBack = true
			e.interruptReader()
		}
	}
	e.reader.takesSeen = e.reader.takes
}

// readLoop reads packets in batches and feeds them to the core while it
// holds the reader role.
func (e *Endpoint) readLoop() {
	defer e.wg.Done()
	for {
		if !e.awaitReader() {
			return
		}
		n, err := e.reader.readSocket()
		if err != nil {
			select {
			case <-e.done:
				return
			default:
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				e.failSocket(err)
				return
			}
			continue // a transient socket error (for example ICMP)
		}
		if e.processBatch(n, true) > 0 {
			e.yieldToReaders()
		}
	}
}

// yieldToReaders lets the ReadMsg callers a batch woke run before the next
// batch is read: they were made runnable on this goroutine's processor,
// and Gosched puts readLoop behind them. Without it readLoop, with a
// socket that always holds more (many associations sending at once),
// would read batch after batch until preempted, while the data it copied
// into the associations' receive queues waited for their readers: with
// many associations, megabytes of it, so that every copy into a fragment
// and out of it to the reader would miss the CPU caches. Reading the data
// while it is hot is what lets many associations move as many bytes as
// one (docs/PERFORMANCE.md). The yield costs one trip through the
// scheduler per batch that woke a reader.
func (e *Endpoint) yieldToReaders() {
	e.nYields.Add(1)
	runtime.Gosched()
}

// init sets up the reads of the socket: as views of the socket's GRO
// buffers when it has them (one copy less, no buffers of ours, and a
// batch as large as one recvmmsg brings), else into buffers of our own.
func (r *socketReader) init(conn netio.Conn, size int) {
	r.readPackets = conn.ReadBatch
	batch := readBatch
	if v, ok := conn.(interface {
		ReadBatchView([]netio.Packet) (int, error)
		GRO() bool
	}); ok && v.GRO() {
		r.readPackets, batch = v.ReadBatchView, viewBatch
	} else {
		// The read buffers hold readBatch packets of maxPacket bytes in
		// all: a larger MTU gets fewer of them (4 of 64 KiB), not more
		// memory.
		batch = max(4, min(readBatch, readBatch*maxPacket/size))
		r.bufs = make([][]byte, batch)
		for i := range r.bufs {
			r.bufs[i] = make([]byte, size)
		}
	}
	r.pkts = make([]netio.Packet, batch)
}

// readSocket reads one batch into r.pkts. Called by the holder of the
// reader role.
func (r *socketReader) readSocket() (int, error) {
	for i, b := range r.bufs {
		r.pkts[i].Buf = b // ReadBatch may have swapped them
	}
	return r.readPackets(r.pkts)
}

// processBatch feeds the core the n packets read into e.reader.pkts,
// sends what they caused and wakes the goroutines they concern; it
// returns how many ReadMsg callers it woke, 0 when it yielded the reader
// role. Called by the holder of the reader role (loop: readLoop, which
// may yield the role here).
func (e *Endpoint) processBatch(n int, loop bool) (woke int) {
	e.nReads.Add(1)
	now := time.Now()
	e.flushMu.Lock()
	e.mu.Lock()
	e.reader.wokeDirect, e.reader.woken = false, 0
	e.core.BeginBatch() // one SACK per batch
	pkts := e.reader.pkts[:n]
	e.reader.runEnd = 0
	for i := 0; i < n; {
		k := 1
		if pkts[i].Notice != netio.NoticeNone {
			// What the network said about a packet we sent (ICMP): the
			// core checks it against the association it names; one it
			// ends is reported through its events below.
			e.handleNotice(now, &pkts[i])
		} else if l := pkts[i].Local; l.IsValid() {
			e.receiveAt(now, &pkts[i], l)
		} else {
			// The core lists the association the packets reached, to
			// wake its waiters below without visiting every association.
			k = e.receiveRun(now, pkts, i)
		}
		if e.reader.bufs == nil {
			// A view of the socket's buffers: kept, it would keep a
			// buffer the socket replaced alive after its fragments
			// were read.
			for j := range pkts[i : i+k] {
				pkts[i+j].Buf, pkts[i+j].Lend = nil, nil
			}
		}
		i += k
		// Collect what these packets caused before the next one is
		// processed: each SACK is its own send opportunity (Max.Burst
		// packets), as if packets were processed one by one, while
		// everything still leaves in one WriteBatch. The core ends a
		// run of packets after one that left something to collect.
		e.deliverEvents() // first: an association refused here sends no COOKIE ACK
		if e.inputLocal.IsValid() {
			e.inputLocal = netip.Addr{} // read by newAssociation in deliverEvents
		}
		if e.collectPackets(now) {
			e.mu.Unlock()
			e.writeCollected()
			e.mu.Lock()
		}
	}
	clear(e.reader.run) // views of the socket's buffers, which it may replace
	if n == len(e.reader.pkts) {
		e.core.EndFullBatch(now) // more waits in the socket
	} else {
		e.core.EndBatch()
	}
	e.dispatch() // the wake-ups: what mayYield and the caller count
	woke = e.reader.woken
	yield := loop && e.mayYield()
	if yield {
		e.reader.role = readerNone
		e.reader.takesSeen = e.reader.takes
		e.reader.nextCheck = now.Add(readerCheck)
	}
	e.mu.Unlock()
	e.flushLocked()
	e.unlockFlush()
	if yield {
		e.wakeOwner() // the owner starts its checks of the reader role
		return 0
	}
	return woke
}

// receiveRun hands the core the packets from pkts[i] on that came in a
// row from one source, in one receive buffer with one ECN field (the
// segments of a GRO buffer), as one run (assoc.Endpoint.ReceiveRun), and
// returns how many it processed: at least one, and none after one that
// left something for the shell to collect. A packet alone is a run of one
// (a 64 KiB packet of DATA chunks takes the run's way through the core
// too). The run's views are built once for the packets the core takes in
// several calls.
func (e *Endpoint) receiveRun(now time.Time, pkts []netio.Packet, i int) int {
	r := &e.reader
	p := &pkts[i]
	if i >= r.runEnd {
		j := i + 1
		for j < len(pkts) {
			q := &pkts[j]
			if q.Notice != netio.NoticeNone || q.Local.IsValid() || q.Addr != p.Addr || q.Lend != p.Lend || q.ECN != p.ECN {
				break
			}
			j++
		}
		clear(r.run) // views of buffers the socket may replace
		r.run = r.run[:0]
		for k := range pkts[i:j] {
			r.run = append(r.run, pkts[i+k].Data())
		}
		r.runStart, r.runEnd = i, j
	}
	return e.core.ReceiveRun(now, p.Addr, r.run[i-r.runStart:], p.Lend, p.ECN)
}

// receiveAt is the core's Receive for a packet that arrived on local, an
// address of a wildcard-bound socket: the association it reaches (or
// creates, newAssociation) records the address for LocalAddrs.
func (e *Endpoint) receiveAt(now time.Time, p *netio.Packet, local netip.Addr) {
	if e.multihome.choosesSource() && !e.multihome.noteArrival(p.Addr.Addr(), local) {
		return
	}
	e.inputLocal = local
	if a := e.core.ReceiveBuf(now, p.Addr, p.Data(), p.Lend, p.ECN); a != nil {
		if as := e.assocs[a]; as != nil && as.local != local {
			as.local = local
		}
	}
}

// handleNotice hands the core a handleNotice read from the socket.
func (e *Endpoint) handleNotice(now time.Time, p *netio.Packet) {
	var k assoc.NoticeKind
	switch p.Notice {
	case netio.NoticeRefused:
		k = assoc.NoticeRefused
	case netio.NoticeUnreachable:
		k = assoc.NoticeUnreachable
	case netio.NoticeTooBig:
		k = assoc.NoticeTooBig
	case netio.NoticeLocalTooBig:
		e.localTooBig(now, p)
		return
	default:
		return
	}
	e.core.Notice(now, assoc.Notice{To: p.Addr, Kind: k, Quote: p.Data(), MTU: p.MTU, Err: noticeErr(p)})
}
