package sctp

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// SendInfo describes a message to send.
type SendInfo struct {
	Stream    uint16 // stream id, below the negotiated outbound count
	PPID      uint32 // payload protocol identifier
	Unordered bool   // deliver as soon as it arrives (U bit)
	// NonBlocking makes WriteMsg fail with ErrWouldBlock instead of
	// waiting when the send buffer is full.
	NonBlocking bool
	// PR is the message's partial reliability (PR-SCTP): for example
	// Lifetime(100*time.Millisecond) or MaxRetransmits(0). The zero value
	// is reliable.
	PR PR
}

// WriteMsg sends p as one message. It blocks while the send buffer is
// full, until the write deadline, unless info.NonBlocking is set. It
// returns len(p) when the message was queued: the association owns a copy.
func (as *Association) WriteMsg(p []byte, info SendInfo) (int, error) {
	return as.sendMsg(p, info, &as.writeDeadline, nil)
}

// sendMsg queues one message, waiting on dl while the send buffer is full;
// a Stream's Write passes the channel its Close closes as closed.
func (as *Association) sendMsg(p []byte, info SendInfo, dl *deadline, closed <-chan struct{}) (int, error) {
	if dl.passed() {
		return 0, os.ErrDeadlineExceeded
	}
	e := as.ep
	e.mu.Lock()
	for {
		if as.closed || as.userClosed {
			err := as.closedErr()
			e.mu.Unlock()
			return 0, err
		}
		if info.PR.Policy > PRPrio {
			e.mu.Unlock()
			return 0, fmt.Errorf("sctp: invalid PR-SCTP policy %d", info.PR.Policy)
		}
		// A message written to an idle association (nothing queued or in
		// flight: a request, or the response to one) is sent by this
		// goroutine at once; behind other data it is left to the owner
		// goroutine and the reader, which send in batches as the windows
		// open.
		idle := as.core.SendIdle()
		// A clock read per message is not free on a bulk sender: only a
		// PR-SCTP message needs one (a lifetime starts, or a priority
		// write makes room). CanSendNow uses the time only with nothing
		// in flight, which it answers before.
		var now time.Time
		if info.PR.Policy != PRNone {
			now = time.Now()
		}
		err := as.core.Send(now, &assoc.Message{Stream: info.Stream, PPID: info.PPID, Unordered: info.Unordered, PR: info.PR, Payload: p})
		e.deliverEvents() // messages a priority write made room by giving up
		if err == nil {
			as.wroteSinceDry = true
			flush := as.core.CanSendNow(now)
			// While readLoop is parked, the socket is read by user
			// calls (a bulk writer reading its SACKs, below): a writer
			// of a message of many packets sends it itself rather than
			// wake the owner, who would take mu and flushMu from the
			// goroutines reading, each hand-off readying a goroutine on
			// an idle P. Shorter messages are left to the owner, who
			// sends several at once: sent one by one, each would end
			// in a short packet of its own. One P makes no such
			// hand-offs, nor does the writer read.
			through := idle || flush && len(p) >= throughPackets*e.core.MTU() && e.reader.role != readerLoop && runtime.GOMAXPROCS(0) > 1
			e.mu.Unlock()
			if through {
				e.sendNow()
			} else if flush {
				e.wakeOwner()
			}
			return len(p), nil
		}
		if !errors.Is(err, ErrWouldBlock) {
			e.mu.Unlock()
			return 0, publicErr(err)
		}
		if info.NonBlocking {
			e.mu.Unlock()
			return 0, ErrWouldBlock
		}
		q := &as.writers
		if errors.Is(err, assoc.ErrStreamFull) {
			q = as.streamWriterQueue(info.Stream)
		} else {
			as.wantRoom = max(as.wantRoom, len(p))
		}
		// WriteMsg without a deadline reads the socket itself while it
		// waits for room, when the reader role is free (as ReadMsg
		// does, readDirect): the SACKs that make the room come to the
		// goroutine that waits for it, with no goroutine woken. It reads
		// until a woken writer would have been woken (roomCame). Only
		// with more than one P: there a goroutine readied while a P is
		// idle starts a spinning thread; with one, the hand-off is a
		// switch between goroutines, and the reader goroutine's batches
		// of SACKs are larger.
		direct := closed == nil && dl.unset() && runtime.GOMAXPROCS(0) > 1
		if direct && e.reader.role == readerNone {
			as.writerReading, as.roomCame = true, false
			for !as.roomCame && !as.closed && !as.userClosed && e.reader.role == readerNone {
				e.nRoomReads.Add(1)
				e.readDirect()
			}
			as.writerReading = false
			continue
		}
		as.directWriter = direct
		if direct {
			as.directWriteSince = time.Now()
		}
		if !e.waitOn(q, dl.passedChan(), closed) {
			e.mu.Unlock()
			return 0, stopErr(closed)
		}
		e.nRoomWaits.Add(1)
	}
}

// throughPackets is the size, in packets of the endpoint's MTU, from which
// a message written while user calls read the socket is sent by its
// writer (sendMsg): 11,776 bytes on a 1500-byte path (a 64 KiB message is
// 45 packets), 512 KiB at 65535 (a 64 KiB message is one).
const throughPackets = 8

// SetWriteDeadline sets the deadline of WriteMsg; the zero time means none.
func (as *Association) SetWriteDeadline(t time.Time) error {
	as.writeDeadline.set(t)
	as.deadlineChanged()
	return nil
}

// streamWriterQueue returns the queue of the writers of stream sid that
// its own limit refused (made on first use: one per stream that ever
// waited). Called with ep.mu held.
func (as *Association) streamWriterQueue(sid uint16) *waitq {
	q := as.streamWriters[sid]
	if q == nil {
		if as.streamWriters == nil {
			as.streamWriters = make(map[uint16]*waitq)
		}
		q = new(waitq)
		as.streamWriters[sid] = q
	}
	return q
}

// writable reports whether the writers waiting for send buffer space are
// to be woken: there is room for the message they wait to queue and for
// half the buffer besides (the unsent limit, usually), so that a bulk
// writer is woken once per half buffer it can fill rather than after
// every SACK that frees a few packets' worth (a goroutine wake-up costs
// more than the copies of several messages). TCP wakes its writers in the
// same way, once a third of their buffer is free.
func (as *Association) writable() bool {
	room, capacity := as.core.SendRoom()
	return room >= as.wantRoom && room >= capacity/2
}

// noteWriterWake counts the writers in q, about to be woken, for
// mayYield, and notes a writer that would read the socket itself and
// waited briefly (as wakeReaders notes a reader). Called with ep.mu held.
func (as *Association) noteWriterWake(q *waitq) {
	if !q.waiting() {
		return
	}
	e := as.ep
	e.reader.woken += len(q.chans)
	if as.directWriter && time.Since(as.directWriteSince) < readerCheck/2 {
		e.reader.wokeDirect = true
	}
	as.directWriter = false
}

// messageFits reports whether the message the writers in as.writers wait
// to queue fits now. Messages given up free space without a SACK to
// follow (the peer's window may be shut): the writers are woken when
// their message fits, not only once half the buffer is free (writable).
func (as *Association) messageFits() bool {
	room, _ := as.core.SendRoom()
	return room >= max(as.wantRoom, 1)
}
