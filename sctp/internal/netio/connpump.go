package netio

import (
	"net"
	"os"
	"sync"
	"time"
)

// connPump reads a connected net.Conn (a DTLS connection, typically) in a
// goroutine of its own, ahead of ReadBatch, into a queue of up to a
// batch's worth of packets. A net.Conn reads one packet per call and
// cannot say whether another is waiting; with the pump, ReadBatch returns
// every packet that arrived while its caller processed the last batch, so
// the association acknowledges them with one SACK (the core's one SACK per
// batch) where it would send one for every second packet, and the
// connection's own work per packet (decrypting a DTLS record) runs beside
// the caller's. Read errors reach ReadBatch in their place among the
// packets, one per Read that returned it, as they would without the pump;
// read deadlines are the pump's own (the connection's are never set).
type connPump struct {
	conn net.Conn

	mu       sync.Mutex
	started  bool
	size     int      // the size of each buffer: the first ReadBatch's
	slots    int      // buffers at most: the first ReadBatch's batch
	made     int      // buffers made so far
	ready    [][]byte // packets read, oldest first
	free     [][]byte // buffers to read into
	err      error    // the read error after the ready packets
	closed   bool
	deadline time.Time
	timer    *time.Timer // fires at a future deadline

	avail chan struct{} // a packet or an error arrived, or the deadline moved
	room  chan struct{} // a buffer or an error's turn came back to the pump
	done  chan struct{} // closed by close
}

func newConnPump(c net.Conn) *connPump {
	return &connPump{conn: c, avail: make(chan struct{}, 1), room: make(chan struct{}, 1), done: make(chan struct{})}
}

// signal wakes the goroutine waiting on ch, if any, without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// start starts the pump for buffers of size bytes, slots of them at most.
// Called with p.mu held.
func (p *connPump) start(size, slots int) {
	p.started, p.size, p.slots = true, size, max(slots, 1)
	go p.run()
}

// run is the pump's goroutine: it reads packets into free buffers until
// the pump closes, and after an error waits until ReadBatch took it.
func (p *connPump) run() {
	for {
		p.mu.Lock()
		for {
			if p.closed {
				p.mu.Unlock()
				return
			}
			if p.err == nil {
				if len(p.free) > 0 || p.made < p.slots {
					break
				}
			}
			p.mu.Unlock()
			select {
			case <-p.room:
			case <-p.done:
			}
			p.mu.Lock()
		}
		var buf []byte
		if n := len(p.free); n > 0 {
			buf, p.free = p.free[n-1], p.free[:n-1]
		} else {
			buf = make([]byte, p.size)
			p.made++
		}
		p.mu.Unlock()
		n, err := p.conn.Read(buf)
		p.mu.Lock()
		if err != nil {
			p.free = append(p.free, buf)
			p.err = err
		} else {
			p.ready = append(p.ready, buf[:n])
		}
		p.mu.Unlock()
		signal(p.avail)
	}
}

// readBatch is Adapter.ReadBatch over the pump: it waits for a packet, an
// error or the deadline, then copies the packets that wait into pkts.
func (p *connPump) readBatch(pkts []Packet) (int, error) {
	p.mu.Lock()
	if !p.started {
		p.start(len(pkts[0].Buf), len(pkts))
	}
	for {
		if p.closed {
			p.mu.Unlock()
			return 0, net.ErrClosed
		}
		if len(p.ready) > 0 {
			n, k := 0, 0
			for ; k < len(p.ready) && n < len(pkts); k++ {
				b := p.ready[k]
				if len(b) <= len(pkts[n].Buf) {
					pkts[n].N = copy(pkts[n].Buf, b)
					n++
				} // else too large for the caller's buffer: dropped
				p.free = append(p.free, b[:cap(b)])
			}
			p.ready = p.ready[:copy(p.ready, p.ready[k:])]
			p.mu.Unlock()
			signal(p.room)
			if n > 0 {
				return n, nil
			}
			p.mu.Lock()
			continue
		}
		if p.err != nil {
			err := p.err
			p.err = nil
			p.mu.Unlock()
			signal(p.room)
			return 0, err
		}
		if !p.deadline.IsZero() && !time.Now().Before(p.deadline) {
			p.mu.Unlock()
			return 0, os.ErrDeadlineExceeded
		}
		p.mu.Unlock()
		<-p.avail
		p.mu.Lock()
	}
}

// setReadDeadline sets the deadline of readBatch and wakes a waiting one
// to look at it.
func (p *connPump) setReadDeadline(t time.Time) {
	p.mu.Lock()
	p.deadline = t
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if !t.IsZero() {
		if d := time.Until(t); d > 0 {
			p.timer = time.AfterFunc(d, func() { signal(p.avail) })
		}
	}
	p.mu.Unlock()
	signal(p.avail)
}

// close stops the pump (the caller closes the connection, which ends a
// Read in progress) and wakes a waiting readBatch.
func (p *connPump) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.done)
		if p.timer != nil {
			p.timer.Stop()
		}
	}
	p.mu.Unlock()
	signal(p.avail)
}
