package sctp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// Association is one SCTP association. Any number of goroutines may call
// its methods at once.
type Association struct {
	ep   *Endpoint
	core *assoc.Assoc

	// Guarded by ep.mu.
	established, closed bool
	shutdown            bool      // Shutdown was called
	err                 error     // terminal error; nil with closed: graceful shutdown
	final               *Stats    // counters at close (kept apart: 4 KiB an open association does not need)
	wroteSinceDry       bool      // data written since the last sender-dry event
	inChanged           bool      // listed in ep.changed
	gaveUp              bool      // messages were given up (PR-SCTP) since the last progress
	claimedPort         uint16    // the SCTP port claimed on the endpoint's shared socket for this dial; 0: none
	directReader        bool      // a ReadMsg caller that reads the socket itself waits in readers
	directWaitSince     time.Time // when it started to wait
	readers             waitq     // readable by ReadMsg, or closed
	writers             waitq     // send buffer space, or closed
	wantRoom            int       // bytes of the largest message a writer in writers waits to queue
	// streamWriters holds, per outbound stream, the writers its own limit
	// refused (Config.Buffers.StreamUnsentLimit): woken when the core reports room
	// on the stream (an Event with Room), or when the association ends.
	streamWriters   map[uint16]*waitq
	stateWaiters    waitq            // state change (up, closed)
	reconfWaiters   waitq            // a stream reconfiguration completed, or closed
	reconfResults   map[uint64]error // results of reconfiguration requests not yet collected
	reconfAbandoned map[uint64]bool  // requests whose caller gave up
	streams         map[uint16]*Stream
	readable        []uint16 // scratch: streams that got data (Receiver.AppendReadable)
	eventsDropped   uint64   // events dropped (EventsDropped)
	// local is the local IP address the peer's packets arrive on, on an
	// endpoint bound to the wildcard address (netio's Packet.Local).
	local netip.Addr

	// events is made by the first Events call: until then emitted events
	// wait in early (at most Config.EventQueue), so an association whose
	// user never asks for events holds a few of them, not a channel.
	// Events that find the channel full wait in pending (from pendingHead),
	// fed into it by the pump goroutine while pumping (events.go).
	events          chan Event
	earlyEvents     []Event
	pendingEvents   []Event
	pendingHead     int
	pendingOther    int           // events in pending other than send failures and terminal ones
	failedBytesHeld int           // bytes of the messages of the send failures in pending
	pumping         bool          // the pump goroutine runs
	eventsClosed    bool          // events is closed
	done            chan struct{} // closed when the association ended
	readDeadline    deadline
	writeDeadline   deadline
}

func newAssociation(e *Endpoint, a *assoc.Assoc) *Association {
	// An association created by a packet (the peer's COOKIE ECHO) starts
	// with the local address that packet arrived on.
	return &Association{ep: e, core: a, done: make(chan struct{}), local: e.inputLocal}
}

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
		if as.closed {
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
		// A clock read per message is not free (3% of a bulk sender):
		// only a PR-SCTP message needs one (a lifetime starts, or a
		// priority write makes room). canSendNow uses the time only
		// with nothing in flight, which it answers before.
		var now time.Time
		if info.PR.Policy != PRNone {
			now = time.Now()
		}
		var err error
		if as.failedBytesHeld > 0 {
			if room, _ := as.sendRoom(); room < len(p) {
				err = ErrWouldBlock // the event reader is behind
			}
		}
		if err == nil {
			err = as.core.Send(now, &assoc.Message{Stream: info.Stream, PPID: info.PPID, Unordered: info.Unordered, PR: info.PR, Payload: p})
		}
		e.deliverEvents() // messages a priority write made room by giving up
		if err == nil {
			as.wroteSinceDry = true
			flush := as.core.CanSendNow(now)
			e.mu.Unlock()
			if idle {
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
		if !e.waitOn(q, dl.wait(), closed) {
			e.mu.Unlock()
			return 0, stopErr(closed)
		}
	}
}

// stopErr is the error of a call that stopped waiting: ErrClosed when
// closed (a Stream's Close) is closed, else the deadline's.
func stopErr(closed <-chan struct{}) error {
	select {
	case <-closed:
		return ErrClosed
	default:
		return os.ErrDeadlineExceeded
	}
}

// closedErr is the error of a call on a closed association.
func (as *Association) closedErr() error {
	if as.err != nil {
		return as.err
	}
	return ErrClosed
}

// ReadMsg reads the next message, or the next part of a message larger
// than p (RecvInfo.EOR false until its last part), of any stream: messages
// come in the order they became deliverable. It blocks until data arrives
// or the read deadline passes. After a graceful shutdown it returns io.EOF
// once every message was read; after an abort, the AbortError.
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
				e.mu.Unlock()
				if update {
					e.wakeOwner()
				}
				if ri.Aborted {
					as.emit(Event{Kind: EventPartialDeliveryAborted, Stream: ri.SID})
				}
				return n, RecvInfo{Stream: ri.SID, PPID: ri.PPID, Unordered: ri.Unordered, EOR: ri.EOR,
					SSN: ri.SSN, TSN: uint32(ri.TSN), Aborted: ri.Aborted}, nil
			}
		}
		if as.closed {
			err := as.err
			if err == nil {
				err = io.EOF
			}
			e.mu.Unlock()
			return 0, RecvInfo{}, err
		}
		// ReadMsg without a deadline reads the socket itself when the
		// reader role is free (reader.go).
		direct := s == nil && dl == &as.readDeadline && dl.none()
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
		if !e.waitOn(q, dl.wait(), closed) {
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
		// left to grow (each stream at most once, interleave's fresh
		// flag) until one appears, instead of being taken after every
		// batch, which revisited each stream's state (with many
		// streams, a cache miss per message).
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

// SetWriteDeadline sets the deadline of WriteMsg; the zero time means none.
func (as *Association) SetWriteDeadline(t time.Time) error { as.writeDeadline.set(t); return nil }

// Shutdown closes the association gracefully (RFC 9260 section 9.2): the
// data already written is delivered, then SHUTDOWN, SHUTDOWN ACK and
// SHUTDOWN COMPLETE are exchanged. It waits until that is done or ctx is
// done; then the shutdown goes on in the background (Abort stops it).
func (as *Association) Shutdown(ctx context.Context) error {
	e := as.ep
	e.mu.Lock()
	if !as.closed && !as.shutdown {
		as.shutdown = true
		as.core.Shutdown(time.Now())
		e.dispatchCall(as)
	}
	e.mu.Unlock()
	e.wakeOwner()
	e.mu.Lock()
	for !as.closed {
		if !e.waitOn(&as.stateWaiters, ctx.Done(), nil) {
			e.mu.Unlock()
			return ctx.Err()
		}
	}
	err := as.err
	e.mu.Unlock()
	as.closeOwnEndpoint()
	return err
}

// Abort ends the association at once with an ABORT chunk carrying reason
// as its Upper Layer Abort Reason (RFC 9260 section 9.1). Queued data is
// reported in EventSendFailed events.
func (as *Association) Abort(reason string) error {
	e := as.ep
	e.mu.Lock()
	if as.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	as.core.Abort(time.Now(), []byte(reason))
	e.dispatchCall(as)
	e.mu.Unlock()
	e.flush()
	as.closeOwnEndpoint()
	return nil
}

// Close shuts the association down gracefully, waiting at most
// Config.CloseTimeout, and aborts it if that did not complete. It returns
// nil once the association is closed, whatever ended it.
func (as *Association) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), as.ep.cfg.CloseTimeout)
	defer cancel()
	if err := as.Shutdown(ctx); err != nil && ctx.Err() != nil {
		as.Abort("close timeout")
	}
	as.closeOwnEndpoint()
	return nil
}

// closeOwnEndpoint closes the association's own endpoint (Dial) once it ended.
func (as *Association) closeOwnEndpoint() {
	e := as.ep
	e.mu.Lock()
	own := e.dialAssoc == as && as.closed
	e.mu.Unlock()
	if own {
		e.Close()
	}
}

// Done returns a channel closed when the association has ended.
func (as *Association) Done() <-chan struct{} {
	return as.done
}

// Err returns why the association ended: nil while it runs and after a
// graceful shutdown, else an *AbortError.
func (as *Association) Err() error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.err
}

// terminate records the end of the association; called with ep.mu held.
func (as *Association) terminate(err error) {
	if as.closed {
		return
	}
	e := as.ep
	as.closed, as.err = true, err
	delete(e.assocs, as.core)
	e.interruptReader()
	as.readers.wake()
	as.writers.wake()
	for _, q := range as.streamWriters {
		q.wake()
	}
	as.stateWaiters.wake()
	as.reconfWaiters.wake()
	for _, s := range as.streams {
		s.readers.wake()
	}
	if err == nil {
		as.emit(Event{Kind: EventShutdown})
	} else {
		ev := Event{Kind: EventDown, Err: err}
		if ae, ok := err.(*AbortError); ok {
			ev.Cause = ae.Cause
		}
		as.emit(ev)
	}
	as.closeEvents()
	close(as.done)
	if e.dialAssoc == as {
		e.dialAssocGone = true
		e.wakeOwner()
	}
}

// wakeWaiters wakes waiters after input; called with ep.mu held.
func (as *Association) wakeWaiters() {
	if !as.core.Started() {
		return
	}
	as.wakeReaders()
	gaveUp := as.gaveUp
	as.gaveUp = false
	if gaveUp {
		// Messages given up free space without the SACKs the stream
		// limits' hysteresis waits for (the peer's window may be
		// shut): every stream's writers try again (a rare event, so
		// the walk over the waiting streams is cheap).
		for _, q := range as.streamWriters {
			q.wake()
		}
	}
	if as.writers.waiting() && (as.writable() || gaveUp && as.messageFits()) {
		as.wantRoom = 0
		as.writers.wake()
	}
	if as.wroteSinceDry && as.core.SendIdle() {
		as.wroteSinceDry = false
		as.emit(Event{Kind: EventSenderDry})
	}
}

// streamWriterQueue returns the queue of the writers of stream sid that its own
// limit refused (made on first use: one per stream that ever waited).
// Called with ep.mu held.
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
	room, capacity := as.sendRoom()
	return room >= as.wantRoom && room >= capacity/2
}

// messageFits reports whether the message the writers in writers wait to queue
// messageFits now. Messages given up free space without a SACK to follow (the
// peer's window may be shut): the writers are woken when their message
// messageFits, not only once half the buffer is free (writable).
func (as *Association) messageFits() bool {
	room, _ := as.sendRoom()
	return room >= max(as.wantRoom, 1)
}

// sendRoom returns the send buffer's free bytes and capacity, less the bytes
// of send failures waiting to be reported (flow control of events: see
// Events). Called with ep.mu held.
func (as *Association) sendRoom() (room, capacity int) {
	room, capacity = as.core.SendRoom()
	if as.failedBytesHeld > 0 {
		room = min(room, capacity) - as.failedBytesHeld
	}
	return room, capacity
}

// Stats returns the association's counters (the final ones once closed).
func (as *Association) Stats() Stats {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		if as.final == nil {
			return Stats{EventsDropped: as.eventsDropped}
		}
		s := *as.final
		s.EventsDropped = as.eventsDropped
		return s
	}
	s := as.core.Stats()
	s.EventsDropped = as.eventsDropped
	return s
}

// Streams returns the negotiated outbound and inbound stream counts.
func (as *Association) Streams() (out, in uint16) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.Streams()
}

// LocalAddrs returns the local transport addresses of the association.
// On an endpoint bound to the wildcard address, the IP address is the one
// the peer's packets arrive on, once one arrived; a multi-homed endpoint's
// associations have all its addresses. On a wildcard endpoint with
// Config.Paths.Multihoming (which announces the host's addresses), the address
// the peer's packets arrive on comes first, then the host's addresses
// listed to this peer by the rule its INIT or INIT ACK followed, worked
// out again from the host's addresses now.
func (as *Association) LocalAddrs() []Addr {
	la := as.ep.conn.LocalAddr()
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	a := Addr{IP: la.Addr(), Port: as.core.LocalPort(), UDPPort: la.Port()}
	if locals := as.ep.multihome.locals; locals != nil {
		out := make([]Addr, len(locals))
		for i, ip := range locals {
			a.IP = ip
			out[i] = a
		}
		return out
	}
	if as.local.IsValid() && a.IP.IsUnspecified() {
		a.IP = as.local
	}
	out := []Addr{a}
	if as.ep.multihome.wild {
		for _, ip := range as.core.AppendAnnouncedAddrs(nil) {
			if !slices.ContainsFunc(out, func(o Addr) bool { return o.IP == ip }) {
				a.IP = ip
				out = append(out, a)
			}
		}
	}
	return out
}

// RemoteAddrs returns the peer's transport addresses: the primary one
// first, then the others it listed in its INIT or INIT ACK.
func (as *Association) RemoteAddrs() []Addr {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	peer, port := as.core.Peer()
	out := []Addr{{IP: peer.Addr(), Port: port, UDPPort: peer.Port()}}
	for _, ip := range as.core.AppendPeerAddrs(nil) {
		out = append(out, Addr{IP: ip, Port: port, UDPPort: peer.Port()})
	}
	return out
}
