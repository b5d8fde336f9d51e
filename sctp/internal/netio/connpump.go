package netio

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// connPump reads a connected net.Conn (a DTLS connection, typically) in a
// goroutine of its own, ahead of ReadBatch, into an arena of pumpArena
// bytes. A net.Conn reads one packet per call and cannot say whether
// another is waiting; with the pump, ReadBatch returns every packet that
// arrived while its caller processed the last batch, so the association
// acknowledges them with one SACK (the core's one SACK per batch) where it
// would send one for every second packet, and the connection's own work
// per packet (decrypting a DTLS record) runs beside the caller's. Read
// errors reach ReadBatch in their place among the packets, one per Read
// that returned it, as they would without the pump; read deadlines are the
// pump's own (the connection's are never set).
type connPump struct {
	conn net.Conn

	mu       sync.Mutex
	started  bool
	size     int    // room each Read gets: the first ReadBatch's buffer size
	arena    []byte // packets read, back to back, from first to tail
	first    int    // offset of the oldest packet not yet taken
	tail     int    // end of the newest
	ready    []int  // lengths of the packets not yet taken, oldest first
	err      error  // the read error after the ready packets
	closed   bool
	deadline time.Time
	timer    *time.Timer // fires at a future deadline

	avail chan struct{} // a packet or an error arrived, or the deadline moved
	room  chan struct{} // ReadBatch took packets or an error
	done  chan struct{} // closed by close
}

// pumpArena is the least size of the pump's arena, which holds the packets
// read and not yet taken; it is at least twice the room of one Read.
const pumpArena = 64 << 10

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

// start starts the pump for packets of up to size bytes. Called with p.mu
// held.
func (p *connPump) start(size int) {
	p.started, p.size = true, size
	p.arena = make([]byte, max(pumpArena, 2*size))
	go p.run()
}

// run is the pump's goroutine: it reads packets into the arena until the
// pump closes, and after an error waits until ReadBatch took it.
func (p *connPump) run() {
	for {
		p.mu.Lock()
		for {
			if p.closed {
				p.mu.Unlock()
				return
			}
			if p.err == nil {
				if p.first == p.tail {
					p.first, p.tail = 0, 0
				}
				if len(p.arena)-p.tail >= p.size {
					break
				}
				if p.first > 0 {
					p.tail = copy(p.arena, p.arena[p.first:p.tail])
					p.first = 0
					continue
				}
			}
			p.mu.Unlock()
			select {
			case <-p.room:
			case <-p.done:
			}
			p.mu.Lock()
		}
		// Only the pump moves packets in the arena or writes past tail:
		// the Read needs no lock.
		at := p.tail
		p.mu.Unlock()
		n, err := p.conn.Read(p.arena[at : at+p.size])
		p.mu.Lock()
		if err != nil {
			p.err = readErr(err)
		} else {
			p.ready = append(p.ready, n)
			p.tail = at + n
		}
		p.mu.Unlock()
		signal(p.avail)
	}
}

// errConnEnded wraps the io.EOF of a connection that ended: a net.Conn
// reads nothing more after it (a DTLS connection returns it once closed
// or after the peer's close_notify).
var errConnEnded = fmt.Errorf("netio: the connection ended: %w", net.ErrClosed)

// readErr is the error ReadBatch returns for the connection's read error
// err: io.EOF is the end of the connection, a net.ErrClosed (the endpoint
// then ends its associations, as over a closed socket); others as they
// are.
func readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w (%w)", errConnEnded, err)
	}
	return err
}

// readBatch is Adapter.ReadBatch over the pump: it waits for a packet, an
// error or the deadline, then copies the packets that wait into pkts.
func (p *connPump) readBatch(pkts []Packet) (int, error) {
	p.mu.Lock()
	if !p.started {
		p.start(len(pkts[0].Buf))
	}
	for {
		if p.closed {
			p.mu.Unlock()
			return 0, net.ErrClosed
		}
		if len(p.ready) > 0 {
			n, k := 0, 0
			for ; k < len(p.ready) && n < len(pkts); k++ {
				b := p.arena[p.first : p.first+p.ready[k]]
				p.first += len(b)
				if len(b) <= len(pkts[n].Buf) {
					pkts[n].N = copy(pkts[n].Buf, b)
					n++
				} // else too large for the caller's buffer: dropped
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
