// Package lossyrelay is a UDP forwarder for loopback benchmarks and tests
// of loss recovery: it sits between a client and a server, forwards each
// datagram and, with a seeded random source per direction, drops,
// duplicates, reorders and delays some of them. The same seed gives the
// same decisions for the same sequence of datagrams, whichever stack
// sends them.
//
// The client sends to the relay's front address; the relay forwards from
// its back socket to the server, so the server answers the back socket and
// the relay forwards the answer to the client's last address. SCTP over
// UDP encapsulation (RFC 6951) passes unchanged: the relay never looks
// inside a datagram.
package lossyrelay

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Impairment is what the relay does to one direction of traffic. The
// probabilities apply to each datagram independently.
type Impairment struct {
	// Loss is the probability that a datagram is dropped.
	Loss float64
	// Dup is the probability that a datagram is sent twice.
	Dup float64
	// Reorder is the probability that a datagram is held back and sent
	// after the next one of the same direction (or after ReorderHold, if
	// none follows in time).
	Reorder float64
	// Delay is added to every datagram (a fixed one-way delay).
	Delay time.Duration
}

// Config configures a Relay.
type Config struct {
	// Listen is the front address clients send to (default
	// 127.0.0.1:0, an ephemeral port).
	Listen string
	// Server is the address datagrams from clients go to.
	Server string
	// Forward applies to client-to-server datagrams, Backward to
	// server-to-client ones.
	Forward, Backward Impairment
	// Seed seeds the random decisions (each direction has its own
	// stream, derived from it).
	Seed uint64
	// ReorderHold bounds how long a held-back datagram waits for the next
	// one (default 5 ms).
	ReorderHold time.Duration
}

// Stats counts datagrams per direction.
type Stats struct {
	In, Out, Dropped, Duplicated, Reordered uint64
}

// Relay is a running forwarder. Close stops it.
type Relay struct {
	front, back *net.UDPConn
	server      netip.AddrPort
	client      atomic.Pointer[netip.AddrPort]
	fwd, bwd    direction
	wg          sync.WaitGroup
	closed      atomic.Bool
	done        chan struct{}
}

// direction holds the state of one direction of traffic.
type direction struct {
	imp   Impairment
	hold  time.Duration
	rng   *rand.Rand
	mu    sync.Mutex
	held  []byte // a datagram held back for reordering
	timer *time.Timer
	stats struct {
		in, out, dropped, duplicated, reordered atomic.Uint64
	}
	send func([]byte)
	// With a delay, datagrams wait in line for one goroutine that sends
	// them in order when their time comes.
	line chan delayed
}

// delayed is a datagram waiting for its time.
type delayed struct {
	at time.Time
	p  []byte
}

// New starts a relay.
func New(cfg Config) (*Relay, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.ReorderHold <= 0 {
		cfg.ReorderHold = 5 * time.Millisecond
	}
	for _, imp := range []Impairment{cfg.Forward, cfg.Backward} {
		if imp.Loss < 0 || imp.Loss > 1 || imp.Dup < 0 || imp.Dup > 1 || imp.Reorder < 0 || imp.Reorder > 1 || imp.Delay < 0 {
			return nil, errors.New("lossyrelay: impairment out of range")
		}
	}
	server, err := netip.ParseAddrPort(cfg.Server)
	if err != nil {
		return nil, err
	}
	la, err := net.ResolveUDPAddr("udp", cfg.Listen)
	if err != nil {
		return nil, err
	}
	front, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, err
	}
	back, err := net.ListenUDP("udp", &net.UDPAddr{IP: la.IP})
	if err != nil {
		front.Close()
		return nil, err
	}
	for _, c := range []*net.UDPConn{front, back} {
		c.SetReadBuffer(4 << 20)
		c.SetWriteBuffer(4 << 20)
	}
	r := &Relay{front: front, back: back, server: server, done: make(chan struct{})}
	r.fwd = direction{imp: cfg.Forward, hold: cfg.ReorderHold, rng: rand.New(rand.NewPCG(cfg.Seed, 1))}
	r.bwd = direction{imp: cfg.Backward, hold: cfg.ReorderHold, rng: rand.New(rand.NewPCG(cfg.Seed, 2))}
	r.fwd.send = func(b []byte) { back.WriteToUDPAddrPort(b, r.server) }
	r.bwd.send = func(b []byte) {
		if c := r.client.Load(); c != nil {
			front.WriteToUDPAddrPort(b, *c)
		}
	}
	for _, d := range []*direction{&r.fwd, &r.bwd} {
		if d.imp.Delay > 0 {
			d.line = make(chan delayed, 65536)
			r.wg.Add(1)
			go r.delayLine(d)
		}
	}
	r.wg.Add(2)
	go r.loop(front, &r.fwd, true)
	go r.loop(back, &r.bwd, false)
	return r, nil
}

// Addr returns the front address clients send to.
func (r *Relay) Addr() netip.AddrPort { return r.front.LocalAddr().(*net.UDPAddr).AddrPort() }

// Stats returns the counters of the forward (client to server) and
// backward directions.
func (r *Relay) Stats() (fwd, bwd Stats) { return r.fwd.snapshot(), r.bwd.snapshot() }

// Close stops the relay and waits for its goroutines.
func (r *Relay) Close() error {
	r.closed.Store(true)
	close(r.done)
	r.front.Close()
	r.back.Close()
	r.wg.Wait()
	for _, d := range []*direction{&r.fwd, &r.bwd} {
		d.mu.Lock()
		if d.timer != nil {
			d.timer.Stop()
		}
		d.mu.Unlock()
	}
	return nil
}

// delayLine sends a direction's delayed datagrams in order, each at its
// time, until the relay closes.
func (r *Relay) delayLine(d *direction) {
	defer r.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		var x delayed
		select {
		case x = <-d.line:
		case <-r.done:
			return
		}
		if w := time.Until(x.at); w > 0 {
			t.Reset(w)
			select {
			case <-t.C:
			case <-r.done:
				return
			}
		}
		d.send(x.p)
	}
}

func (r *Relay) loop(c *net.UDPConn, d *direction, fromClient bool) {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			if r.closed.Load() {
				return
			}
			continue
		}
		if fromClient {
			if p := r.client.Load(); p == nil || *p != from {
				r.client.Store(&from)
			}
		} else if from != r.server {
			continue // only the server talks to the back socket
		}
		d.handle(buf[:n])
	}
}

// handle decides the fate of one datagram.
func (d *direction) handle(b []byte) {
	d.stats.in.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	// Draw all three decisions for every datagram so that one decision
	// does not shift the random stream of the others.
	lose, dup, reorder := d.rng.Float64() < d.imp.Loss, d.rng.Float64() < d.imp.Dup, d.rng.Float64() < d.imp.Reorder
	if lose {
		d.stats.dropped.Add(1)
		return
	}
	p := append([]byte(nil), b...)
	if reorder && d.held == nil {
		d.stats.reordered.Add(1)
		d.held = p
		if dup {
			d.stats.duplicated.Add(1)
			d.emit(p)
		}
		held := p
		d.timer = time.AfterFunc(d.hold, func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.held != nil && &d.held[0] == &held[0] {
				d.emit(d.held)
				d.held = nil
			}
		})
		return
	}
	d.emit(p)
	if dup {
		d.stats.duplicated.Add(1)
		d.emit(p)
	}
	if d.held != nil {
		d.emit(d.held)
		d.held = nil
		d.timer.Stop()
	}
}

// emit sends p now or after the direction's delay. Called with d.mu held.
func (d *direction) emit(p []byte) {
	d.stats.out.Add(1)
	if d.line == nil {
		d.send(p)
		return
	}
	select {
	case d.line <- delayed{time.Now().Add(d.imp.Delay), p}:
	default:
		d.stats.dropped.Add(1) // the line is full: a queue overflow
	}
}

func (d *direction) snapshot() Stats {
	return Stats{
		In: d.stats.in.Load(), Out: d.stats.out.Load(), Dropped: d.stats.dropped.Load(),
		Duplicated: d.stats.duplicated.Load(), Reordered: d.stats.reordered.Load(),
	}
}
