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
// Messages arrive on one queue for the whole association, in the order
// the association delivers them: a Read waits while the message at the
// head of that queue belongs to another stream, until that stream's
// reader (or ReadMsg) takes it.
type Stream struct {
	as        *Association
	sid       uint16
	PPID      uint32 // payload protocol identifier of written messages
	Unordered bool   // write messages unordered
	PR        PR     // partial reliability of written messages (default reliable)
	rdl, wdl  deadline
	closed    atomic.Bool
}

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
	s := &Stream{as: as, sid: sid}
	as.streams[sid] = s
	return s
}

// ID returns the stream id.
func (s *Stream) ID() uint16 { return s.sid }

// Read reads data of the stream's messages.
func (s *Stream) Read(p []byte) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	n, _, err := s.as.read(p, int(s.sid), &s.rdl)
	return n, err
}

// ReadMsg reads the next message (or part) of the stream, as
// Association.ReadMsg does for all streams.
func (s *Stream) ReadMsg(p []byte) (int, RecvInfo, error) {
	if s.closed.Load() {
		return 0, RecvInfo{}, ErrClosed
	}
	return s.as.read(p, int(s.sid), &s.rdl)
}

// Write sends p as one message on the stream.
func (s *Stream) Write(p []byte) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return s.as.write(p, SendInfo{Stream: s.sid, PPID: s.PPID, Unordered: s.Unordered, PR: s.PR}, &s.wdl)
}

// Close releases the handle: later Reads and Writes fail with ErrClosed
// and blocked ones return. The association and the stream stay open
// (closing a stream needs a stream reset, RFC 6525, not supported yet);
// Association.Stream returns a fresh handle afterwards.
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
	s.rdl.set(time.Unix(1, 0))
	s.wdl.set(time.Unix(1, 0))
	return nil
}

// SetDeadline sets the read and write deadlines of the stream handle.
func (s *Stream) SetDeadline(t time.Time) error { s.rdl.set(t); s.wdl.set(t); return nil }

// SetReadDeadline sets the read deadline of the stream handle.
func (s *Stream) SetReadDeadline(t time.Time) error { s.rdl.set(t); return nil }

// SetWriteDeadline sets the write deadline of the stream handle.
func (s *Stream) SetWriteDeadline(t time.Time) error { s.wdl.set(t); return nil }
