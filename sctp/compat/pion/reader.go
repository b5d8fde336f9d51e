package sctp

import (
	"errors"
	"io"
	"os"
	"sync"

	usctp "github.com/usctp/usctp/sctp"
)

// The association's reader: one goroutine reads every message of the usctp
// association, in the order they become deliverable, and queues each on
// its Stream, creating (and offering to AcceptStream) the Stream of a
// stream the peer opened. Queued bytes count against MaxReceiveBufferSize:
// past it the reader waits for Stream reads, and usctp's receive window
// closes behind it, as the original's does when its reassembly queues are
// full.

// readBuffer is the reader's buffer: larger messages arrive in parts.
const readBuffer = 64 << 10

// A message read whole that fills at least handOver bytes of the reader's
// buffer goes to its stream's queue in that buffer, without a copy, and
// the reader takes another; ReadSCTP recycles the buffer once it copied
// the message out. Smaller messages are copied, so that a queue of small
// messages holds no more memory than their bytes.
const handOver = readBuffer / 2

// readBufs holds the recycled buffers (newReadBuffer, recycle).
var readBufs sync.Pool

// newReadBuffer returns a reader's buffer, a recycled one if there is.
func newReadBuffer() []byte {
	if p, ok := readBufs.Get().(*[]byte); ok {
		return *p
	}
	return make([]byte, readBuffer)
}

// recycle keeps b, the storage of a message the application has read,
// for another newReadBuffer if it is a reader's buffer.
func recycle(b []byte) {
	if cap(b) == readBuffer {
		b = b[:readBuffer]
		readBufs.Put(&b)
	}
}

func (a *Association) readLoop() {
	defer close(a.reader)
	buf := newReadBuffer()
	partial := map[uint16][]byte{} // messages read in part, by stream
	for {
		a.mu.Lock()
		kick := a.resetKick
		a.mu.Unlock()
		if kick {
			a.applyResets(&buf, partial)
		}
		n, info, err := a.as.ReadMsg(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue // kickReset: streams the peer reset wait
			}
			a.end(err)
			return
		}
		a.take(&buf, n, info, partial)
	}
}

// take queues one message, the first n bytes of *buf, or keeps one part
// of it until its end. A large message read whole goes in *buf, and *buf
// becomes a new buffer.
func (a *Association) take(buf *[]byte, n int, info usctp.RecvInfo, partial map[uint16][]byte) {
	b := (*buf)[:n]
	if info.Aborted {
		delete(partial, info.Stream) // given up by the peer (PR-SCTP)
		return
	}
	if !info.EOR {
		partial[info.Stream] = append(partial[info.Stream], b...)
		return
	}
	var msg []byte
	if p, ok := partial[info.Stream]; ok {
		msg = append(p, b...)
		delete(partial, info.Stream)
	} else if n >= handOver {
		msg, *buf = b, newReadBuffer()
	} else {
		msg = append(make([]byte, 0, len(b)), b...)
	}
	a.deliver(info.Stream, PayloadProtocolIdentifier(info.PPID), msg)
}

// deliver queues msg on stream sid, creating the stream if the peer just
// opened it, and waits while the queues hold more than the receive
// buffer.
func (a *Association) deliver(sid uint16, ppid PayloadProtocolIdentifier, msg []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.streams[sid]
	if s == nil {
		s = a.newStream(sid)
		a.streams[sid] = s
		a.accepts = append(a.accepts, s)
		a.acceptCond.Signal()
	}
	s.push(ppid, msg)
	a.recvHeld += len(msg)
	for a.recvHeld > a.recvLimit && !a.closing && !a.resetKick {
		a.recvCond.Wait()
	}
}

// released returns n bytes read from a stream's queue to the receive
// buffer.
func (a *Association) released(n int) {
	a.mu.Lock()
	a.recvHeld -= n
	if a.recvHeld <= a.recvLimit {
		a.recvCond.Signal()
	}
	a.mu.Unlock()
}

// end records that the association ended with err (ReadMsg's): every
// stream's reads return the error once their queue is empty, and
// AcceptStream returns io.EOF once the streams the peer opened are
// accepted.
func (a *Association) end(err error) {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, usctp.ErrClosed), errors.Is(err, usctp.ErrLocalAbort):
		// A graceful shutdown, or closed or aborted here.
		err = io.EOF
	case errors.Is(err, usctp.ErrPeerAborted):
		err = &abortError{err}
	}
	defer a.finish()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended = true
	for _, s := range a.streams {
		s.setReadErr(err)
	}
	a.acceptCond.Broadcast()
	a.recvCond.Broadcast()
}

// abortError is the end of an association the peer aborted: it matches
// ErrChunk, ErrUserInitiatedAbort for a User-Initiated Abort cause, and
// usctp's *sctp.AbortError.
type abortError struct{ err error }

func (e *abortError) Error() string { return e.err.Error() }
func (e *abortError) Unwrap() error { return e.err }

func (e *abortError) Is(target error) bool {
	switch target {
	case ErrChunk:
		return true
	case ErrUserInitiatedAbort:
		var ae *usctp.AbortError
		return errors.As(e.err, &ae) && ae.Cause == userInitiatedAbort
	}
	return false
}

// userInitiatedAbort is the User-Initiated Abort cause code (RFC 9260
// section 3.3.10.12).
const userInitiatedAbort = 12
