package sctp

import (
	"net/netip"
	"slices"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// Association is one SCTP association. Any number of goroutines may call
// its methods at once.
type Association struct {
	ep   *Endpoint
	core *assoc.Assoc  // the core's association, guarded by ep.mu
	done chan struct{} // closed when the association ended

	// The deadlines of ReadMsg and WriteMsg, each with its own lock.
	readDeadline, writeDeadline deadline

	// The fields below are guarded by ep.mu.

	// The association's life.
	err   error  // why it ended: nil after a graceful shutdown
	final *Stats // counters at the end (kept apart: 4 KiB an open association does not need)
	// local is the local IP address the peer's packets arrive on, on an
	// endpoint bound to the wildcard address (netio's Packet.Local).
	local       netip.Addr
	claimedPort uint16 // the SCTP port claimed on the endpoint's shared socket for this dial; 0: none
	exitID      uint64 // the association's id with the exit watchdog (Config.AbortOnExit); 0: none
	established bool   // the handshake completed (EventUp)
	shutdown    bool   // Shutdown was called
	userClosed  bool   // Close was called: reads and writes fail with ErrClosed
	closed      bool   // the association ended
	peerDone    bool   // when it ended, every message of the peer had arrived (assoc.End.PeerDone): reads end with io.EOF
	// The flags of reading, writing and waking, beside the others so that
	// they share a word.
	directReader  bool // the ReadMsg caller waiting in readers reads the socket itself
	directWriter  bool // the WriteMsg caller waiting for room would read the socket itself
	writerReading bool // a WriteMsg caller reads the socket while it waits for room
	roomCame      bool // room for the writerReading came (it writes again)
	wroteSinceDry bool // data written since the last EventSenderDry
	gaveUp        bool // messages were given up (PR-SCTP) since the last wakeWaiters
	inChanged     bool // listed in ep.changed, to be woken after the dispatch

	// The goroutines waiting on the association, each queue woken when its
	// condition may have changed (and all of them when it ends).
	readers       waitq // ReadMsg callers: data to read
	writers       waitq // WriteMsg callers: send buffer space
	stateWaiters  waitq // Dial and Shutdown: established or ended
	reconfWaiters waitq // reconfiguration calls: a result arrived (reconfResults)
	// streamWriters holds, per outbound stream, the writers its own limit
	// refused (Config.Buffers.StreamUnsentLimit): woken when the core
	// reports room on the stream (an Event with Room).
	streamWriters map[uint16]*waitq

	// Reading.
	streams          map[uint16]*Stream // the Stream handles, by stream id
	readable         []uint16           // scratch: streams that got data (assoc.Assoc.AppendReadable)
	directWaitSince  time.Time          // when the directReader started to wait
	directWriteSince time.Time          // when the directWriter started to wait

	// Writing: the bytes of the largest message a writer in writers waits
	// to queue.
	wantRoom int

	// Reconfiguration requests (reconfigureWith), by operation number.
	reconfResults   map[uint64]error // results not yet collected by their caller
	reconfAbandoned map[uint64]bool  // requests whose caller gave up

	eventQueue // the events for Events
}

// newAssociation wraps the core's association a. Called with e.mu held.
func newAssociation(e *Endpoint, a *assoc.Assoc) *Association {
	// An association created by a packet (the peer's COOKIE ECHO) starts
	// with the local address that packet arrived on.
	return &Association{ep: e, core: a, done: make(chan struct{}), local: e.inputLocal}
}

// closedErr is the error of a write (or another request to the peer) on
// an association that ended or that Close is closing: ErrClosed after
// Close, else the AbortError of an association that ended without a
// graceful shutdown, else ErrShutdown. Called with ep.mu held.
func (as *Association) closedErr() error {
	switch {
	case as.userClosed:
		return ErrClosed
	case as.err != nil:
		return as.err
	}
	return ErrShutdown
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

// Interleaved reports whether the association interleaves messages
// (I-DATA, RFC 8260): both endpoints offered it (see
// Config.Extensions.Interleaving).
func (as *Association) Interleaved() bool {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.Interleaved()
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
	if as.ep.multihome.wildcard {
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

// Endpoint returns the endpoint the association belongs to.
func (as *Association) Endpoint() *Endpoint { return as.ep }
