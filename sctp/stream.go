package sctp

import (
	"sync/atomic"
	"time"
)

// Stream is one stream of an association as an io.ReadWriteCloser with
// deadlines: Write sends each call as one message on the stream (with
// the stream's PPID and ordering), Read returns the data of the messages
// that arrive on the stream (a message larger than the buffer takes
// several reads; message boundaries are not marked, use ReadMsg for them).
//
// Every inbound stream has its own receive queue: a Read returns the
// stream's data as soon as it is deliverable (in order within the stream,
// RFC 9260 section 6.6; unordered messages as soon as they are complete),
// whatever the other streams hold and whether or not anyone reads them,
// and it waits for its own stream's data only. ReadMsg on the association
// takes messages of every stream in the order they became deliverable; a
// message partly read by one continues where the other left it.
//
// The settings of written messages (SetPPID, SetUnordered, SetPR) may be
// changed at any time, also while other goroutines write: each Write uses
// the settings of the moment it starts.
type Stream struct {
	as           *Association
	sid          uint16
	sendSettings atomic.Pointer[streamSend] // settings of written messages; nil: the defaults
	readers      waitq                      // the stream got data, or the association ended; guarded by ep.mu
	closed       atomic.Bool
	done         chan struct{} // closed by Close: wakes blocked Reads and Writes

	readDeadline, writeDeadline deadline
}

// streamSend is what a Stream's Write puts in SendInfo. It is replaced
// whole, never changed, so Write reads it without a lock.
type streamSend struct {
	ppid      uint32
	unordered bool
	pr        PR
}

// settings returns the current settings of written messages.
func (s *Stream) settings() streamSend {
	if p := s.sendSettings.Load(); p != nil {
		return *p
	}
	return streamSend{}
}

// updateSettings changes the settings of written messages with fn.
func (s *Stream) updateSettings(fn func(*streamSend)) {
	for {
		old := s.sendSettings.Load()
		var next streamSend
		if old != nil {
			next = *old
		}
		fn(&next)
		if s.sendSettings.CompareAndSwap(old, &next) {
			return
		}
	}
}

// SetPPID sets the payload protocol identifier of the messages Write
// sends (default 0).
func (s *Stream) SetPPID(ppid uint32) { s.updateSettings(func(x *streamSend) { x.ppid = ppid }) }

// PPID returns the payload protocol identifier of written messages.
func (s *Stream) PPID() uint32 { return s.settings().ppid }

// SetUnordered makes Write send unordered messages (U bit), or ordered
// ones again (the default).
func (s *Stream) SetUnordered(u bool) { s.updateSettings(func(x *streamSend) { x.unordered = u }) }

// Unordered reports whether Write sends unordered messages.
func (s *Stream) Unordered() bool { return s.settings().unordered }

// SetPR sets the partial reliability of the messages Write sends (default
// reliable; see SendInfo.PR).
func (s *Stream) SetPR(pr PR) { s.updateSettings(func(x *streamSend) { x.pr = pr }) }

// PR returns the partial reliability of written messages.
func (s *Stream) PR() PR { return s.settings().pr }

// Stream returns the handle of stream sid (the same one on every call).
func (as *Association) Stream(sid uint16) *Stream {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if s := as.streams[sid]; s != nil {
		return s
	}
	if as.streams == nil {
		as.streams = make(map[uint16]*Stream)
	}
	s := &Stream{as: as, sid: sid, done: make(chan struct{})}
	as.streams[sid] = s
	return s
}

// ID returns the stream id.
func (s *Stream) ID() uint16 { return s.sid }

// Read reads data of the stream's messages. It blocks until the stream
// has data or the read deadline passes; data arriving on other streams
// does not wake it.
//
// When the peer gives up (PR-SCTP) a message whose first parts earlier
// Reads returned, Read returns 0 and ErrMessageAborted: the bytes read
// since the end of the previous message are an incomplete message. The
// error is not terminal; the next Read continues with the stream's next
// message. (A message given up before any of it was read is never
// returned at all.) io.Copy and similar helpers stop at this error like
// at any other; a reader that wants to go on calls Read again.
//
// With interleaving (I-DATA), an ordered and an unordered message of the
// stream being delivered in parts at once may alternate parts, so the
// bytes of two messages can interleave in what Read returns; a stream
// that carries both ordered and unordered messages should be read with
// ReadMsg, whose RecvInfo tells the parts apart.
func (s *Stream) Read(p []byte) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	n, ri, err := s.as.recvMsg(p, s, &s.readDeadline)
	if err == nil && ri.Aborted {
		return 0, ErrMessageAborted
	}
	return n, err
}

// ReadMsg reads the next message (or part) of the stream, as
// Association.ReadMsg does for all streams. With interleaving (I-DATA),
// an ordered and an unordered message of the stream in partial delivery
// at once may alternate parts: RecvInfo.Unordered tells them apart.
func (s *Stream) ReadMsg(p []byte) (int, RecvInfo, error) {
	if s.closed.Load() {
		return 0, RecvInfo{}, ErrClosed
	}
	return s.as.recvMsg(p, s, &s.readDeadline)
}

// Readable reports whether a message, or part of one, is ready to be
// read on the stream: a Read or ReadMsg now returns without waiting,
// whatever the read deadline (unless another goroutine reads it first).
// It lets a reader take what a stream holds without a timed read, such
// as the messages the peer sent before resetting the stream.
func (s *Stream) Readable() bool {
	e := s.as.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	return s.as.core.ReadableStream(s.sid)
}

// Write sends p as one message on the stream, with the stream's PPID,
// ordering and partial reliability (SetPPID, SetUnordered, SetPR).
func (s *Stream) Write(p []byte) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	x := s.settings()
	return s.as.sendMsg(p, SendInfo{Stream: s.sid, PPID: x.ppid, Unordered: x.unordered, PR: x.pr}, &s.writeDeadline, s.done)
}

// Close releases the handle: later Reads and Writes fail with ErrClosed
// and blocked ones return ErrClosed too (not a timeout). The association
// and the stream stay open: Close is local, the peer learns nothing
// (Reset, a stream reset of RFC 6525, is what restarts the stream's
// numbering at both ends); Association.Stream returns a fresh handle
// afterwards.
func (s *Stream) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	as := s.as
	as.ep.mu.Lock()
	if as.streams[s.sid] == s {
		delete(as.streams, s.sid)
	}
	as.ep.mu.Unlock()
	close(s.done)
	return nil
}

// SetDeadline sets the read and write deadlines of the stream handle.
func (s *Stream) SetDeadline(t time.Time) error {
	s.readDeadline.set(t)
	s.writeDeadline.set(t)
	return nil
}

// SetReadDeadline sets the read deadline of the stream handle.
func (s *Stream) SetReadDeadline(t time.Time) error { s.readDeadline.set(t); return nil }

// SetWriteDeadline sets the write deadline of the stream handle.
func (s *Stream) SetWriteDeadline(t time.Time) error { s.writeDeadline.set(t); return nil }
