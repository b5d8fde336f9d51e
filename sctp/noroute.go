package sctp

import (
	"errors"
	"net/netip"
	"syscall"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Sends this host refuses for want of a route: the kernel's route lookup
// fails the write of a packet at once (ENETUNREACH with no route,
// EHOSTUNREACH or EACCES with an unreachable or prohibit route), as it
// fails a TCP connect. writeCollected keeps the start of each packet so
// refused (noteNoRoute) and, after the batch, hands the core each as a
// notice quoting it (passNoRoute). The core acts on an INIT only: a
// handshake whose every peer address this host cannot reach ends at once
// with the errno (assoc.Endpoint.Notice), rather than after the INIT's
// retransmissions. Other packets are lost as any, and the timers count
// them. A blackhole route's EINVAL is not among these errors: a blackhole
// drops silently by intent, and a dial behind it times out as behind one
// elsewhere.

// noRouteQuote is the bytes of a refused packet kept: the common header
// and an INIT's chunk header and Initiate Tag, what the core checks.
const noRouteQuote = 20

// noRoutePacket is the start of a packet the host refused to send.
type noRoutePacket struct {
	to       netip.AddrPort
	errno    syscall.Errno
	quoteLen int
	quote    [noRouteQuote]byte
}

// noRouteErrno returns the errno of err, a WriteBatch error, when it says
// this host has no route to the packet's destination, else 0.
func noRouteErrno(err error) syscall.Errno {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return 0
	}
	switch errno {
	case syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.EACCES:
		return errno
	}
	return 0
}

// noteNoRoute keeps the start of p, which WriteBatch refused with err,
// when err says this host has no route to p's destination. Called with
// e.flushMu held.
func (e *Endpoint) noteNoRoute(p *netio.Packet, err error) {
	errno := noRouteErrno(err)
	if errno == 0 {
		return
	}
	e.noRoute = append(e.noRoute, noRoutePacket{to: p.Addr, errno: errno})
	r := &e.noRoute[len(e.noRoute)-1]
	r.quoteLen = p.CopyData(r.quote[:])
}

// passNoRoute hands the core the packets noteNoRoute kept, and the
// shell the core's events: the end of a handshake it ended wakes the
// goroutines waiting on the association. It reports whether it had any.
// Called with e.flushMu held and e.mu not held, after the batch is
// written (also between the packets of a receive batch, as the reader's
// own deliverEvents).
func (e *Endpoint) passNoRoute() bool {
	if len(e.noRoute) == 0 {
		return false
	}
	now := time.Now()
	e.mu.Lock()
	for i := range e.noRoute {
		r := &e.noRoute[i]
		e.core.Notice(now, assoc.Notice{To: r.to, Kind: assoc.NoticeNoRoute, Quote: r.quote[:r.quoteLen], Err: r.errno})
	}
	e.deliverEvents()
	e.mu.Unlock()
	e.noRoute = e.noRoute[:0]
	return true
}

// noticeErr returns the errno a notice came with as an error, nil when it
// came with none.
func noticeErr(p *netio.Packet) error {
	if p.Errno == 0 {
		return nil
	}
	return p.Errno
}
