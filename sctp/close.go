package sctp

import (
	"context"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

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
	e.flush() // the SHUTDOWN leaves now when nothing waits to be sent
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
// nil once the association is closed, whatever ended it. From the moment
// it is called, reads and writes fail with ErrClosed, those blocked in
// it included, as after a net.Conn's Close.
func (as *Association) Close() error {
	e := as.ep
	e.mu.Lock()
	if !as.userClosed {
		as.userClosed = true
		as.wakeCalls()
	}
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), as.ep.cfg.CloseTimeout)
	defer cancel()
	if err := as.Shutdown(ctx); err != nil && ctx.Err() != nil {
		as.Abort("close timeout")
	}
	as.closeOwnEndpoint()
	return nil
}

// closeOwnEndpoint closes the endpoint Dial made for the association once
// the association ended.
func (as *Association) closeOwnEndpoint() {
	e := as.ep
	e.mu.Lock()
	own := e.dialAssoc == as && as.closed
	e.mu.Unlock()
	if own {
		e.Close()
	}
}

// recordEnd records the end of the association that ev, its last event,
// reports: its final counters, the messages it did not send (every one,
// before EventDown) and why it ended (EventDown's AbortError). Called with
// ep.mu held.
func (as *Association) recordEnd(ev *assoc.Event) {
	if as.claimedPort != 0 {
		as.ep.ports.Release(as.claimedPort)
		as.claimedPort = 0
	}
	end := ev.End
	as.final = &end.Stats
	as.ending = true
	for i := range end.Unsent {
		if as.events == nil && len(as.earlyEvents) >= as.eventCap() {
			as.eventsDropped++ // nobody asked for events yet
			continue
		}
		as.emit(end.Unsent[i])
	}
	var err error
	if ev.Kind == EventDown {
		err = abortError(ev)
	}
	as.peerDone = end.PeerDone
	as.terminate(err)
}

// wakeCalls wakes every read, write and reconfiguration waiting on the
// association, to find it closed. Called with ep.mu held.
func (as *Association) wakeCalls() {
	as.readers.wake()
	as.writers.wake()
	for _, q := range as.streamWriters {
		q.wake()
	}
	as.reconfWaiters.wake()
	for _, s := range as.streams {
		s.readers.wake()
	}
}

// terminate ends the association in the shell: it wakes every goroutine
// waiting on it, emits its last event (EventShutdown when err is nil, else
// EventDown) and closes Done; the endpoint Dial made for it closes after
// its last packets are sent. Called with ep.mu held.
func (as *Association) terminate(err error) {
	if as.closed {
		return
	}
	e := as.ep
	as.closed, as.err = true, err
	delete(e.assocs, as.core)
	e.exitForget(as)
	e.interruptReader()
	as.wakeCalls()
	as.stateWaiters.wake()
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
