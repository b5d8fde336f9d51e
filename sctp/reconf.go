package sctp

import (
	"context"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// ResetStreams resets the numbering of streams (RFC 6525): each stream
// reset starts again at stream sequence number 0 (with I-DATA: message
// id 0, ordered and unordered), and both ends get an EventStreamReset.
// dir selects our outgoing streams (an Outgoing SSN Reset Request), our
// incoming ones (an Incoming SSN Reset Request: the peer resets its
// outgoing streams) or both; no sids means every stream of that
// direction, and at most 64 may be listed.
//
// Outgoing streams being reset send nothing new until the peer answers:
// messages written to them meanwhile wait in the send buffer and go out
// numbered from 0 afterwards; a message already partly sent finishes
// first. ResetStreams waits until the peer answered or ctx is done (the
// request then still completes in the background). It returns nil when
// the peer performed the reset, an error matching ErrReconfigDenied or
// ErrReconfigFailed when it refused, and ErrReconfigUnsupported when the
// peer did not negotiate stream reconfiguration. One request is
// outstanding at a time; later ones wait behind it (ErrReconfigBusy when
// too many wait).
func (as *Association) ResetStreams(ctx context.Context, dir StreamDirection, sids ...uint16) error {
	return as.reconfigureWith(ctx, func(a *assoc.Assoc) (uint64, error) { return a.ResetStreams(time.Now(), dir, sids) })
}

// AddStreams adds out outbound and in inbound streams (RFC 6525 Add
// Outgoing and Add Incoming Streams Requests), up to 65535 each way. It
// waits as ResetStreams does and returns nil when the peer added them;
// Streams reports the new counts, and both ends get an EventStreamsAdded.
// New outbound streams take messages once the peer has answered.
func (as *Association) AddStreams(ctx context.Context, out, in uint16) error {
	return as.reconfigureWith(ctx, func(a *assoc.Assoc) (uint64, error) { return a.AddStreams(time.Now(), out, in) })
}

// ResetAssociation resets the association's numbering (RFC 6525 SSN/TSN
// Reset Request): the TSNs of both directions start again where the
// peer's answer says, and every stream of both directions starts again at
// stream sequence number 0 (with I-DATA: message id 0). Both ends get an
// EventAssocReset.
//
// As RFC 6525 section 5.1.4 asks, no new DATA is sent from the call on:
// messages written before it are sent and must all be acknowledged
// before the request leaves; messages written meanwhile wait in the send
// buffer and go out with the new numbering once the peer answered. The
// peer may answer "In progress" while its own data is outstanding; the
// request is then sent again after a retransmission timeout until the
// peer performs or refuses it. ResetAssociation waits as ResetStreams
// does and returns nil when the peer performed the reset. "Only one
// SSN/TSN Reset Request SHOULD be sent within 30 seconds": a call within
// 30 seconds of the last request sent, or while one waits, returns
// ErrAssocResetTooSoon.
func (as *Association) ResetAssociation(ctx context.Context) error {
	return as.reconfigureWith(ctx, func(a *assoc.Assoc) (uint64, error) { return a.ResetAssoc(time.Now()) })
}

// reconfigureWith queues a reconfiguration request with queue, called
// with ep.mu held, and waits for its result.
func (as *Association) reconfigureWith(ctx context.Context, queue func(a *assoc.Assoc) (uint64, error)) error {
	e := as.ep
	e.mu.Lock()
	if as.closed {
		err := as.closedErr()
		e.mu.Unlock()
		return err
	}
	op, err := queue(as.core)
	e.dispatchCall(as)
	e.mu.Unlock()
	if err != nil {
		return publicErr(err)
	}
	e.wakeOwner()
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if err, ok := as.reconfResults[op]; ok {
			delete(as.reconfResults, op)
			return publicErr(err)
		}
		if as.closed {
			return as.closedErr()
		}
		if !e.waitOn(&as.reconfWaiters, ctx.Done(), nil) {
			as.forgetReconf(op)
			return ctx.Err()
		}
	}
}

// forgetReconf stops keeping the result of op, whose caller gave up; called
// with ep.mu held.
func (as *Association) forgetReconf(op uint64) {
	if as.reconfAbandoned == nil {
		as.reconfAbandoned = make(map[uint64]bool)
	}
	as.reconfAbandoned[op] = true
}

// answerReconf hands the result err of request op to the call waiting for it,
// unless the caller gave up; called with ep.mu held.
func (as *Association) answerReconf(op uint64, err error) {
	if as.reconfAbandoned[op] {
		delete(as.reconfAbandoned, op)
		return
	}
	if as.reconfResults == nil {
		as.reconfResults = make(map[uint64]error)
	}
	as.reconfResults[op] = err
	as.reconfWaiters.wake()
}

// Reset resets the numbering of this stream's outgoing direction (RFC
// 6525 Outgoing SSN Reset Request): Association.ResetStreams with
// DirOutgoing and this stream id.
func (s *Stream) Reset(ctx context.Context) error {
	return s.as.ResetStreams(ctx, DirOutgoing, s.sid)
}
