package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// This file is the rest of the core's exported surface for the shell
// (package sctp): the Endpoint's packet, timer and user entry points are
// on Endpoint (endpoint.go, endpoint_recv.go, endpoint_timers.go,
// endpoint_batch.go), the Assoc's primitives next to their handlers
// (close.go, data.go, reconf.go, assocreset.go, sched.go). What follows
// are the accessors the shell needs to deliver data and events without
// reaching into the association.

// RecvInfo describes a message part returned by Read.
type RecvInfo = transfer.RecvInfo

// PortFilter says which packets an endpoint takes (SetPortFilter).
type PortFilter struct {
	// Listen is the one SCTP port the endpoint accepts associations on
	// (0: none). Without Shared (a port space of the endpoint's own, as a
	// UDP socket), an INIT to another port is answered with an ABORT (RFC
	// 9260 section 8.4 (3): it cannot be processed normally), as a kernel
	// answers an INIT to a port nobody listens on.
	Listen uint16
	// Shared is set for a port space the endpoint shares (a raw IP
	// socket, which sees every SCTP packet of the host): Receive drops,
	// before any other processing and uncounted, every packet that is
	// neither for Listen nor for one of its associations. Such a packet is
	// out of the blue only for this endpoint, and answering it would
	// abort another endpoint's association.
	Shared bool
	// Dial is the SCTP port the endpoint dials from when it is fixed (0:
	// none): an INIT to it that finds no association is dropped,
	// uncounted and unanswered, not aborted. It is the peer's half of a
	// simultaneous open (RFC 9260 section 5.2.1, as WebRTC peers both dial
	// port 5000) that arrived before our own INIT left; once our
	// association exists its INIT is processed, and until then aborting it
	// would end the peer's dial.
	Dial uint16
}

// SetPortFilter turns the port filter on with f. Without a call, every
// INIT is processed, whatever its port.
func (ep *Endpoint) SetPortFilter(f PortFilter) {
	ep.filter = true
	ep.listenPort, ep.sharedPorts, ep.dialPort = f.Listen, f.Shared, f.Dial
}

// refused reports whether the port filter drops packet p from from.
func (ep *Endpoint) refused(from netip.AddrPort, p []byte) bool {
	if !ep.filter || len(p) < 12 {
		return false // the parser counts a short packet as malformed
	}
	dst := binary.BigEndian.Uint16(p[2:])
	if ep.listenPort != 0 && dst == ep.listenPort {
		return false
	}
	if ep.dialPort != 0 && dst == ep.dialPort && len(p) >= 16 && p[12] == byte(chunk.TypeInit) {
		return ep.assocs[assocKey{peer: from, localPort: dst, peerPort: binary.BigEndian.Uint16(p)}] == nil
	}
	if !ep.sharedPorts {
		// A port space of our own: an INIT to a port nobody listens on
		// is answered with ABORT (outOfTheBlue), everything else goes
		// through section 8.4 as usual.
		return false
	}
	return ep.assocs[assocKey{peer: from, localPort: dst, peerPort: binary.BigEndian.Uint16(p)}] == nil
}

// MTU returns the largest SCTP packet the endpoint builds (Config.MTU
// after defaults).
func (ep *Endpoint) MTU() int { return ep.cfg.MTU }

// Started reports whether the association has its transfer engine: from
// the INIT ACK (or the COOKIE ECHO that created it) until it closes.
func (a *Assoc) Started() bool { return a.data.eng != nil }

// Streams returns the negotiated outbound and inbound stream counts.
func (a *Assoc) Streams() (out, in uint16) { return a.outStreams, a.inStreams }

// LocalPort returns the association's SCTP port.
func (a *Assoc) LocalPort() uint16 { return a.key.localPort }

// Peer returns the peer's primary transport address as the lower layer
// sees it (IP, and UDP port with RFC 6951 encapsulation) and its SCTP
// port.
func (a *Assoc) Peer() (netip.AddrPort, uint16) { return a.key.peer, a.key.peerPort }

// eventAddr returns the peer transport address t (IP and lower-layer
// port) as events name it, the user's terms: IP, SCTP port and UDP
// encapsulation port.
func (a *Assoc) eventAddr(t netip.AddrPort) api.Addr {
	return api.Addr{IP: t.Addr(), Port: a.key.peerPort, UDPPort: t.Port()}
}

// AppendPeerAddrs appends the other IP addresses the peer listed in its
// INIT or INIT ACK to dst (not its primary one).
func (a *Assoc) AppendPeerAddrs(dst []netip.Addr) []netip.Addr {
	primary := a.key.peer.Addr().Unmap()
	for _, ip := range a.peerAddrs {
		if ip != primary {
			dst = append(dst, ip)
		}
	}
	return dst
}

// recv returns the engine to read from: the live one, or the one kept
// after close.
func (a *Assoc) recv() *transfer.Engine {
	if e := a.data.eng; e != nil {
		return e
	}
	return a.data.kept
}

// Read returns the next message part deliverable on any stream, in the
// order they became deliverable; it fails (errNotReady) before the
// engine exists. The messages received stay readable after close.
// Reading can open the receive window: WindowUpdate sends the SACK.
func (a *Assoc) Read(p []byte) (int, RecvInfo, error) {
	r := a.recv()
	if r == nil {
		return 0, RecvInfo{}, errNotReady
	}
	return r.Read(p)
}

// ReadStream is Read for stream sid only.
func (a *Assoc) ReadStream(sid uint16, p []byte) (int, RecvInfo, error) {
	r := a.recv()
	if r == nil {
		return 0, RecvInfo{}, errNotReady
	}
	return r.ReadStream(sid, p)
}

// Readable reports whether Read would return a message part.
func (a *Assoc) Readable() bool {
	r := a.recv()
	return r != nil && r.Readable()
}

// ReadableStream reports whether ReadStream(sid) would return one.
func (a *Assoc) ReadableStream(sid uint16) bool {
	r := a.recv()
	return r != nil && r.ReadableStream(sid)
}

// AppendReadable appends to dst the streams that got deliverable data
// since the last call.
func (a *Assoc) AppendReadable(dst []uint16) []uint16 {
	if r := a.recv(); r != nil {
		return r.AppendReadable(dst)
	}
	return dst
}

// WindowUpdate queues the SACK that reading made due (a window update,
// RFC 9260 section 6.2) and reports whether it did; a delayed SACK waits
// for the deadline instead.
func (a *Assoc) WindowUpdate() bool {
	if a.closed || a.data.eng == nil || !a.data.eng.SACKDue(time.Time{}) {
		return false
	}
	a.ep.markReady(a)
	return true
}

// SendIdle reports whether the association has a transfer engine and
// nothing queued or in flight.
func (a *Assoc) SendIdle() bool { return a.data.eng != nil && a.data.eng.SendIdle() }

// SendRoom returns the free bytes of the send buffer and its capacity
// (both 0 without an engine).
func (a *Assoc) SendRoom() (room, capacity int) {
	if e := a.data.eng; e != nil {
		return e.SendRoom()
	}
	return 0, 0
}
