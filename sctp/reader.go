package sctp

import (
	"errors"
	"net"
	"os"
	"time"
)

// The socket reader role. One goroutine at a time reads the endpoint's
// socket and feeds the core: normally the endpoint's reader goroutine
// (readLoop). When a batch it read woke a goroutine waiting in ReadMsg and
// nobody else waits, it yields the role and parks; that goroutine, when it
// next finds nothing to read, reads the socket itself (readDirect), so in
// a request/response exchange the packet wakes the goroutine that wants
// it straight from the netpoller, with no hand-off between goroutines and
// no OS thread woken to run the reader. The role goes back to readLoop as
// soon as another goroutine has to wait (block), when the reading
// goroutine went away (no one took the role within readerCheck: the owner
// goroutine checks), or when one has read nothing for that long.
const (
	readerLoop = iota // readLoop reads the socket
	readerUser        // a goroutine in ReadMsg reads it (readDirect)
	readerNone        // nobody: a ReadMsg caller is expected back soon
)

// readerCheck is the period of the owner goroutine's checks of the reader
// role while readLoop is parked: the longest the socket stays unread
// before readLoop takes over, and the longest a ReadMsg caller idles on
// the socket before it hands the role back.
const readerCheck = time.Millisecond

// awaitReader parks readLoop until it holds the reader role; it reports
// false when the endpoint stopped.
func (e *Endpoint) awaitReader() bool {
	e.mu.Lock()
	for e.reader != readerLoop {
		e.loopParked = true
		e.mu.Unlock()
		select {
		case <-e.rkick:
		case <-e.done:
			return false
		}
		e.mu.Lock()
	}
	e.loopParked = false
	e.mu.Unlock()
	return true
}

// handToLoop gives the reader role to readLoop and wakes it. Called with
// e.mu held.
func (e *Endpoint) handToLoop() {
	e.reader = readerLoop
	if e.loopParked {
		e.loopParked = false
		select {
		case e.rkick <- struct{}{}:
		default:
		}
	}
}

// mayYield reports whether readLoop, having processed a batch, should
// leave the socket to the ReadMsg caller it woke: one was woken that reads
// directly and no other goroutine waits for input. Called with e.mu held.
func (e *Endpoint) mayYield() bool {
	return e.direct && e.userWoke && e.nblocked <= e.wokeReaders && !e.closed
}

// readDirect reads and processes one batch from the socket in the calling
// goroutine, which takes the reader role meanwhile; the caller saw
// e.reader == readerNone. Called and returns with e.mu held.
func (e *Endpoint) readDirect() {
	e.reader = readerUser
	e.readerGen++
	e.mu.Unlock()
	n, err := e.readSocket()
	if err == nil {
		e.process(n, false)
	}
	e.mu.Lock()
	if e.readerIntr {
		e.conn.SetReadDeadline(time.Time{})
		e.readerIntr = false
	}
	switch {
	case err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrDeadlineExceeded):
		// A transient socket error: readLoop has the policy for those.
		e.handToLoop()
	case e.nblocked > 0 || e.readerRevert || err != nil:
		e.readerRevert = false
		e.handToLoop()
	default:
		e.reader = readerNone
	}
}

// interruptReader makes a ReadMsg caller reading the socket return to
// check its association (it ended, or its deadline changed). Called with
// e.mu held.
func (e *Endpoint) interruptReader() {
	if e.reader == readerUser && !e.readerIntr {
		e.readerIntr = true
		e.conn.SetReadDeadline(time.Unix(1, 0))
	}
}

// checkReader is the owner goroutine's periodic look at the reader role
// while readLoop is parked: if no ReadMsg caller took the role since the
// last check, the socket goes back to readLoop (a caller blocked on it
// that long is interrupted). Called with e.mu held.
func (e *Endpoint) checkReader(now time.Time) {
	if e.reader == readerLoop || now.Before(e.readerNext) {
		return
	}
	e.readerNext = now.Add(readerCheck)
	if e.readerGen == e.readerSeen {
		switch e.reader {
		case readerNone:
			e.handToLoop()
		case readerUser:
			e.readerRevert = true
			e.interruptReader()
		}
	}
	e.readerSeen = e.readerGen
}
