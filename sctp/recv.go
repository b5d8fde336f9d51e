package sctp

import (
	"io"
	"os"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// RecvInfo describes data returned by ReadMsg.
type RecvInfo struct {
	Stream    uint16 // stream id
	PPID      uint32 // payload protocol identifier
	Unordered bool   // sent unordered
	// EOR is true when the read ended the message; when false the
	// message was larger than the buffer and the next read continues it.
	EOR bool
	SSN uint16 // stream sequence number (ordered messages)
	TSN uint32 // TSN of the message's first fragment
	// Aborted reports that the message whose first parts earlier reads
	// returned (partial delivery, EOR false) will not complete: the peer
	// gave it up under a PR-SCTP policy. The read returns no data; an
	// EventPartialDeliveryAborted event tells the same.
	Aborted bool
}

// ReadMsg reads the next message, or the next part of a message larger
// than p (RecvInfo.EOR false until its last part), of any stream: messages
// come in the order they became deliverable. It blocks until data arrives
// or the read deadline passes. After a graceful shutdown it returns io.EOF
// once every message was read, also when the association failed after the
// peer's SHUTDOWN came (all the peer sent had arrived; Err has the
// failure); after an abort, the AbortError; after Close, ErrClosed at once
// (also to a ReadMsg blocked when Close was called), even with messages
// unread.
//
// Without interleaving (I-DATA), a message returned in part is continued
// by the next ReadMsg, as on a one-to-one socket. With interleaving, parts
// of messages of several streams may alternate: RecvInfo names the stream
// of each part. A Stream's reader may take (or finish) messages of its
// stream first; ReadMsg then returns the others.
func (as *Association) ReadMsg(p []byte) (int, RecvInfo, error) {
	return as.recvMsg(p, nil, &as.readDeadline)
}

// recvMsg reads from any stream (s nil) or from stream s only.
func (as *Association) recvMsg(p []byte, s *Stream, dl *deadline) (int, RecvInfo, error) {
	if dl.passed() {
		return 0, RecvInfo{}, os.ErrDeadlineExceeded
	}
	q := &as.readers
	if s != nil {
		q = &s.readers
	}
	e := as.ep
	e.mu.Lock()
	for {
		if as.userClosed {
			e.mu.Unlock()
			return 0, RecvInfo{}, ErrClosed
		}
		{
			var n int
			var ri assoc.RecvInfo
			var err error
			if s == nil {
				n, ri, err = as.core.Read(p)
			} else {
				n, ri, err = as.core.ReadStream(s.sid, p)
			}
			if err == nil {
				// Only a SACK due now (a window update); a delayed
				// SACK's deadline is the owner's timer's.
				update := as.core.WindowUpdate()
				as.wakeReaders()
				if s != nil && s.readers.waiting() && as.core.ReadableStream(s.sid) {
					s.readers.wake()
				}
				if ri.Aborted {
					as.emit(Event{Kind: EventPartialDeliveryAborted, Stream: ri.SID})
				}
				e.mu.Unlock()
				if update {
					e.wakeOwner()
				}
				return n, RecvInfo{Stream: ri.SID, PPID: ri.PPID, Unordered: ri.Unordered, EOR: ri.EOR,
					SSN: ri.SSN, TSN: uint32(ri.TSN), Aborted: ri.Aborted}, nil
			}
		}
		if as.closed {
			err := as.err
			if err == nil || as.peerDone {
				err = io.EOF // every message of the peer was read
			}
			e.mu.Unlock()
			return 0, RecvInfo{}, err
		}
		// ReadMsg without a deadline reads the socket itself when the
		// reader role is free (readDirect).
		direct := s == nil && dl == &as.readDeadline && dl.unset()
		if direct && e.reader.role == readerNone {
			e.readDirect()
			continue
		}
		if s == nil {
			as.directReader = direct
			if direct {
				as.directWaitSince = time.Now()
			}
		}
		var closed <-chan struct{}
		if s != nil {
			closed = s.done
		}
		if !e.waitOn(q, dl.passedChan(), closed) {
			e.mu.Unlock()
			return 0, RecvInfo{}, stopErr(closed)
		}
	}
}

// wakeReaders wakes the readers whose data arrived: the ReadMsg waiters
// when ReadMsg would return something, and a Stream's waiters only when
// its stream got data. Called with ep.mu held, after input and after
// reads (a read can start a partial delivery, or end a message that
// ReadMsg was continuing); it costs a look at the streams that got data.
func (as *Association) wakeReaders() {
	e := as.ep
	if as.readers.waiting() && as.core.Readable() {
		e.reader.woken += len(as.readers.chans)
		e.nHandoffs.Add(uint64(len(as.readers.chans)))
		// Lend the reader role only to a reader whose data came
		// quickly: one that waits longer than the owner's check
		// would hand the role back before it returns, and the
		// hand-offs the lending saves cost less than that round.
		if as.directReader && time.Since(as.directWaitSince) < readerCheck/2 {
			e.reader.wokeDirect = true
		}
		as.readers.wake()
	}
	if len(as.streams) == 0 {
		// No Stream readers: the list of the streams that got data is
		// left to grow (each stream at most once) until one appears,
		// rather than taken after every batch, which would revisit
		// each stream's state (with many streams, a cache miss per
		// message).
		return
	}
	as.readable = as.core.AppendReadable(as.readable[:0])
	for _, sid := range as.readable {
		if s := as.streams[sid]; s != nil && s.readers.waiting() {
			e.reader.woken += len(s.readers.chans)
			s.readers.wake()
		}
	}
}

// SetDeadline sets the read and write deadlines of ReadMsg and WriteMsg.
func (as *Association) SetDeadline(t time.Time) error {
	as.readDeadline.set(t)
	as.writeDeadline.set(t)
	as.deadlineChanged()
	return nil
}

// SetReadDeadline sets the deadline of ReadMsg; the zero time means none.
func (as *Association) SetReadDeadline(t time.Time) error {
	as.readDeadline.set(t)
	as.deadlineChanged()
	return nil
}

// deadlineChanged makes a ReadMsg caller reading the socket itself look
// at its new deadline.
func (as *Association) deadlineChanged() {
	as.ep.mu.Lock()
	as.ep.interruptReader()
	as.ep.mu.Unlock()
}
