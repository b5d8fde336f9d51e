package simnet

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// Endpoint is one end of a Pipe: a net.PacketConn for goroutine code, for
// example a whole association with its goroutines inside a
// testing/synctest bubble. A packet written to one end travels its link
// (delay, jitter, loss, duplication, reordering, MTU, rate) and becomes
// readable at the other end at its delivery time, as the goroutines' clock
// (time.Now, fake under synctest) tells it. Each end queues at most 4096
// packets for its reader; more are dropped, as a full socket buffer does.
type Endpoint struct {
	net   *Network
	mu    *sync.Mutex // the network's lock, shared by both ends
	out   int         // link id towards the peer
	addr  Addr
	peer  *Endpoint
	inbox chan []byte
	done  chan struct{}
	once  sync.Once

	dmu      sync.Mutex
	deadline time.Time
}

// Addr is the address of an Endpoint.
type Addr string

// Network returns "simnet".
func (Addr) Network() string { return "simnet" }

// String returns the endpoint's name.
func (a Addr) String() string { return string(a) }

// ErrClosed is returned by the methods of a closed Endpoint.
var ErrClosed = errors.New("simnet: endpoint closed")

// Pipe adds two links to n and returns the endpoints they join: packets
// from a to b take link ab, from b to a link ba. A network may hold several
// pipes; once it has endpoints, use it only through them (they lock it).
func (n *Network) Pipe(ab, ba LinkConfig) (a, b *Endpoint) {
	mu := &n.mu
	a = &Endpoint{net: n, mu: mu, out: n.AddLink(ab), addr: "a", inbox: make(chan []byte, 4096), done: make(chan struct{})}
	b = &Endpoint{net: n, mu: mu, out: n.AddLink(ba), addr: "b", inbox: make(chan []byte, 4096), done: make(chan struct{})}
	a.peer, b.peer = b, a
	for len(n.ends) < len(n.links) {
		n.ends = append(n.ends, nil)
	}
	n.ends[a.out], n.ends[b.out] = b, a
	return a, b
}

// WriteTo sends p to the peer endpoint (addr is ignored).
func (e *Endpoint) WriteTo(p []byte, addr net.Addr) (int, error) {
	select {
	case <-e.done:
		return 0, ErrClosed
	default:
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	before := e.net.seq
	e.net.Send(now, e.out, p)
	// Schedule the delivery of each copy now in flight.
	for _, q := range e.net.q {
		if q.seq >= before {
			time.AfterFunc(q.At.Sub(now), e.deliver)
		}
	}
	return len(p), nil
}

// deliver moves every packet due by now to its endpoint's inbox.
func (e *Endpoint) deliver() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for p := e.net.Pop(time.Now()); p != nil; p = e.net.Pop(time.Now()) {
		dst := e.net.ends[p.Link]
		b := append([]byte(nil), p.Data...)
		e.net.Free(p)
		if dst == nil {
			continue // a link without an endpoint (used without Pipe)
		}
		select {
		case dst.inbox <- b:
		default: // the reader is behind: drop, as a full socket buffer does
		}
	}
}

// ReadFrom waits for the next packet and copies it into p (truncating it
// if p is short). It returns an error matching os.ErrDeadlineExceeded when
// the read deadline passes.
func (e *Endpoint) ReadFrom(p []byte) (int, net.Addr, error) {
	e.dmu.Lock()
	dl := e.deadline
	e.dmu.Unlock()
	var timeout <-chan time.Time
	if !dl.IsZero() {
		d := time.Until(dl)
		if d <= 0 {
			return 0, nil, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case b := <-e.inbox:
		return copy(p, b), e.peer.addr, nil
	case <-e.done:
		return 0, nil, ErrClosed
	case <-timeout:
		return 0, nil, os.ErrDeadlineExceeded
	}
}

// Close closes the endpoint; blocked reads return ErrClosed.
func (e *Endpoint) Close() error {
	e.once.Do(func() { close(e.done) })
	return nil
}

// LocalAddr returns the endpoint's address.
func (e *Endpoint) LocalAddr() net.Addr { return e.addr }

// SetDeadline sets the read deadline (writes never block).
func (e *Endpoint) SetDeadline(t time.Time) error { return e.SetReadDeadline(t) }

// SetReadDeadline sets the deadline for future ReadFrom calls.
func (e *Endpoint) SetReadDeadline(t time.Time) error {
	e.dmu.Lock()
	e.deadline = t
	e.dmu.Unlock()
	return nil
}

// SetWriteDeadline does nothing: writes never block.
func (e *Endpoint) SetWriteDeadline(time.Time) error { return nil }

var _ net.PacketConn = (*Endpoint)(nil)
