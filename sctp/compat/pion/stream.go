package sctp

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// Stream represents an SCTP stream: one stream of the association, with the
// messages that arrived on it queued for ReadSCTP, and the settings of the
// messages written on it.
type Stream struct {
	a          *Association
	sid        uint16
	h          *usctp.Stream // usctp's handle: buffered bytes, deadlines
	defaultPPI atomic.Uint32

	mu        sync.Mutex
	cond      sync.Cond // a message, an error or a deadline arrived
	queue     []message // messages arrived, not yet read
	head      int       // index of the next message in queue
	readErr   error     // returned once the queue is empty
	readTimer *time.Timer
	readGen   uint64 // generation of the read deadline
	state     StreamState
	unordered bool
	pr        usctp.PR
	low       uint64 // buffered amount low threshold
	onLow     func()
	writeDL   time.Time // the write deadline (blocking writes only)

	writeMu sync.Mutex // orders writes through h (write deadlines)
}

// message is one message arrived on a stream.
type message struct {
	ppid PayloadProtocolIdentifier
	data []byte
}

// newStream returns the Stream of sid. Called with a.mu held.
func (a *Association) newStream(sid uint16) *Stream {
	s := &Stream{a: a, sid: sid, h: a.as.Stream(sid)}
	s.cond.L = &s.mu
	return s
}

// StreamIdentifier returns the stream's identifier.
func (s *Stream) StreamIdentifier() uint16 { return s.sid }

// SetDefaultPayloadType sets the PPID of the messages Write sends.
func (s *Stream) SetDefaultPayloadType(defaultPayloadType PayloadProtocolIdentifier) {
	s.defaultPPI.Store(uint32(defaultPayloadType))
}

// SetReliabilityParams sets reliability parameters for this stream:
// unordered delivery, and ReliabilityTypeRexmit (relVal retransmissions at
// most) or ReliabilityTypeTimed (relVal milliseconds at most).
func (s *Stream) SetReliabilityParams(unordered bool, relType byte, relVal uint32) {
	var pr usctp.PR
	switch relType {
	case ReliabilityTypeRexmit:
		pr = usctp.MaxRetransmits(int(min(relVal, math.MaxInt32)))
	case ReliabilityTypeTimed:
		// A lifetime of 0 would give messages up before they are sent:
		// WebRTC's maxPacketLifeTime 0 sends each once.
		pr = usctp.Lifetime(time.Duration(relVal) * time.Millisecond)
		if relVal == 0 {
			pr = usctp.MaxRetransmits(0)
		}
	}
	s.mu.Lock()
	s.unordered, s.pr = unordered, pr
	s.mu.Unlock()
}

// Read reads a packet of len(p) bytes, dropping the Payload Protocol
// Identifier. Returns EOF when the stream is reset or an error if the stream
// is closed otherwise.
func (s *Stream) Read(p []byte) (int, error) {
	n, _, err := s.ReadSCTP(p)
	return n, err
}

// ReadSCTP reads the stream's next message into payload and returns its
// length and Payload Protocol Identifier. A message larger than
// payload stays queued: ReadSCTP returns its size and io.ErrShortBuffer.
// After the peer reset the stream it returns io.EOF; after Close, an
// error.
func (s *Stream) ReadSCTP(payload []byte) (int, PayloadProtocolIdentifier, error) {
	s.mu.Lock()
	for s.head == len(s.queue) && s.readErr == nil {
		s.cond.Wait()
	}
	if s.head == len(s.queue) {
		err := s.readErr
		s.mu.Unlock()
		return 0, 0, err
	}
	m := &s.queue[s.head]
	if len(payload) < len(m.data) {
		n := len(m.data)
		s.mu.Unlock()
		return n, 0, io.ErrShortBuffer
	}
	n, ppid := copy(payload, m.data), m.ppid
	recycle(m.data)
	*m = message{}
	s.head++
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
	}
	s.mu.Unlock()
	s.a.released(n)
	return n, ppid, nil
}

// push queues a message that arrived.
func (s *Stream) push(ppid PayloadProtocolIdentifier, data []byte) {
	s.mu.Lock()
	s.queue = append(s.queue, message{ppid: ppid, data: data})
	s.cond.Signal()
	s.mu.Unlock()
}

// setReadErr makes reads return err once the queue is empty.
func (s *Stream) setReadErr(err error) {
	s.mu.Lock()
	s.readErr = err
	s.cond.Broadcast()
	s.mu.Unlock()
}

// inboundReset ends the stream's reads after the peer reset its outgoing
// direction (RFC 8831 section 6.7: the data channel layer then closes its
// own).
func (s *Stream) inboundReset() {
	s.mu.Lock()
	s.readErr = io.EOF
	if s.state == StreamStateClosing {
		s.state = StreamStateClosed
	}
	s.cond.Broadcast()
	s.mu.Unlock()
}

// SetReadDeadline sets the read deadline in an identical way to net.Conn:
// once it passes, reads return ErrReadDeadlineExceeded (which matches
// os.ErrDeadlineExceeded) until it is set again.
func (s *Stream) SetReadDeadline(deadline time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readTimer != nil {
		s.readTimer.Stop()
		s.readTimer = nil
	}
	s.readGen++
	if s.readErr != nil {
		if !errors.Is(s.readErr, ErrReadDeadlineExceeded) {
			return nil
		}
		s.readErr = nil
	}
	if !deadline.IsZero() {
		gen := s.readGen
		s.readTimer = time.AfterFunc(time.Until(deadline), func() {
			s.mu.Lock()
			if s.readGen == gen && s.readErr == nil {
				s.readErr = ErrReadDeadlineExceeded
				s.cond.Broadcast()
			}
			s.mu.Unlock()
		})
	}
	return nil
}

// SetWriteDeadline sets the deadline of writes, as net.Conn's; it matters
// only with WithBlockWrite: other writes never wait.
func (s *Stream) SetWriteDeadline(deadline time.Time) error {
	s.mu.Lock()
	s.writeDL = deadline
	s.mu.Unlock()
	return nil
}

// SetDeadline sets the deadlines of reads and writes, as net.Conn's.
func (s *Stream) SetDeadline(t time.Time) error {
	if err := s.SetReadDeadline(t); err != nil {
		return err
	}
	return s.SetWriteDeadline(t)
}

// Write writes len(payload) bytes from payload with the default Payload
// Protocol Identifier.
func (s *Stream) Write(payload []byte) (n int, err error) {
	return s.WriteSCTP(payload, PayloadProtocolIdentifier(s.defaultPPI.Load()))
}

// WriteSCTP writes len(payload) bytes from payload to the DTLS connection:
// one message, with the stream's ordering and reliability, except DCEP
// messages (PayloadTypeWebRTCDCEP), which always go ordered and reliably
// (RFC 8832 section 6). Without WithBlockWrite it never waits. An empty
// payload sends nothing.
func (s *Stream) WriteSCTP(payload []byte, ppi PayloadProtocolIdentifier) (int, error) {
	a := s.a
	if m := a.maxMessageSize.Load(); len(payload) > int(m) {
		return 0, fmt.Errorf("%w: %v", ErrOutboundPacketTooLarge, m)
	}
	s.mu.Lock()
	state, unordered, pr, dl := s.state, s.unordered, s.pr, s.writeDL
	s.mu.Unlock()
	if state != StreamStateOpen {
		return 0, ErrStreamClosed
	}
	if len(payload) == 0 {
		return 0, nil
	}
	if ppi == PayloadTypeWebRTCDCEP {
		unordered, pr = false, usctp.PR{}
	}
	var err error
	if !a.blockWrite || dl.IsZero() {
		_, err = a.as.WriteMsg(payload, usctp.SendInfo{Stream: s.sid, PPID: uint32(ppi), Unordered: unordered, PR: pr})
	} else {
		s.writeMu.Lock()
		s.h.SetPPID(uint32(ppi))
		s.h.SetUnordered(unordered)
		s.h.SetPR(pr)
		s.h.SetWriteDeadline(dl)
		_, err = s.h.Write(payload)
		s.writeMu.Unlock()
	}
	if err != nil {
		return 0, writeErr(err)
	}
	return len(payload), nil
}

// writeErr is the original's error for a failed write.
func writeErr(err error) error {
	switch {
	case errors.Is(err, usctp.ErrClosed), errors.Is(err, usctp.ErrAborted), errors.Is(err, usctp.ErrShutdown):
		return fmt.Errorf("%w: %w", ErrPayloadDataStateNotExist, err)
	}
	return err
}

// Close closes the write-direction of the stream. Future calls to Write are
// not permitted after calling Close. It resets the stream's outgoing
// direction (RFC 6525, as data channels close: RFC 8831 section 6.7);
// the reset goes after the messages written before.
func (s *Stream) Close() error {
	s.mu.Lock()
	if s.state != StreamStateOpen {
		s.mu.Unlock()
		return nil
	}
	if s.readErr == nil {
		s.state = StreamStateClosing
	} else {
		s.state = StreamStateClosed
	}
	s.mu.Unlock()
	return s.a.queueReset(s.sid)
}

// State returns the stream's state.
func (s *Stream) State() StreamState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// BufferedAmount returns the number of bytes of data currently queued to be
// sent over this stream: written and not yet acknowledged by the peer.
func (s *Stream) BufferedAmount() uint64 { return uint64(s.h.Buffered()) }

// BufferedAmountLowThreshold returns the level under which the stream's
// queued bytes count as low (0 when not set).
func (s *Stream) BufferedAmountLowThreshold() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.low
}

// SetBufferedAmountLowThreshold sets the level BufferedAmountLowThreshold
// returns; OnBufferedAmountLow's callback runs when the queue falls to it.
func (s *Stream) SetBufferedAmountLowThreshold(th uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.low = th
	s.watchLow()
}

// OnBufferedAmountLow sets the callback handler which would be called when
// the number of bytes of outgoing data buffered falls from above the
// threshold to the threshold or below, through an acknowledgement or a
// message given up.
func (s *Stream) OnBufferedAmountLow(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onLow = f
	s.watchLow()
}

// watchLow sets usctp's low-water mark of the stream: the threshold while
// a callback is set, none otherwise. Called with s.mu held.
func (s *Stream) watchLow() {
	low := -1
	if s.onLow != nil {
		low = int(min(s.low, math.MaxInt32))
	}
	if err := s.h.SetBufferedLow(low); err != nil {
		s.a.log.Debugf("[%s] low-water mark of stream %d: %v", s.a.name, s.sid, err)
	}
}

// bufferedLow calls the callback for an EventBufferedLow.
func (s *Stream) bufferedLow() {
	s.mu.Lock()
	f := s.onLow
	s.mu.Unlock()
	if f != nil {
		f()
	}
}
