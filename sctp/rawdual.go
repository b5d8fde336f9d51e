package sctp

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// A raw IP endpoint with both IPv4 and IPv6 addresses. A raw socket is one
// family, so such an endpoint (ListenAddrs or Config.LocalAddrs mixing
// the families, Transport IP) has two: the process's shared raw sockets
// bound to 0.0.0.0 and to :: (sharedsock.go), each claiming the
// endpoint's SCTP ports, behind one netio.Conn, a dualConn. Writes go to
// the socket of each packet's destination family. Reads come from both:
// a goroutine per socket reads a batch and hands it over, and ReadBatch
// copies the packets out of whichever batch is ready (raw IP with both
// families is not the fast path; one goroutine hand-off per batch and a
// copy per packet are its price).

// dualBatch is a batch of packets one of dualConn's readers read.
type dualBatch struct {
	pkts []netio.Packet
	n    int
	err  error
	off  int           // packets already copied out
	back chan struct{} // tells the reader the batch is consumed
}

// dualConn is an IPv4 and an IPv6 raw socket as one netio.Conn.
type dualConn struct {
	c4, c6 *portConn
	in     chan *dualBatch // batches ready, from both readers
	done   chan struct{}   // closed by Close
	wg     sync.WaitGroup
	once   sync.Once

	rmu sync.Mutex // serializes ReadBatch; guards cur
	cur *dualBatch

	dmu   sync.Mutex // guards dl
	dl    time.Time
	dlset chan struct{} // the deadline changed
}

var _ netio.Conn = (*dualConn)(nil)

// dualBatchLen is the packets each reader reads at a time.
const dualBatchLen = 16

// openDualIP opens (or shares) the raw IPv4 and IPv6 sockets of ic (its
// Addr is ignored) and claims SCTP port listen, unless 0, on both;
// packets are read into buffers of size bytes. With ecn the sockets it
// opens send ECT(0) and report the ECN field (before the first read).
func openDualIP(ic netio.IPConfig, listen uint16, size int, ecn bool) (*dualConn, error) {
	ic.Addr = netip.IPv4Unspecified()
	c4, err := openSharedIP(ic, listen)
	if err != nil {
		return nil, err
	}
	ic.Addr = netip.IPv6Unspecified()
	c6, err := openSharedIP(ic, listen)
	if err != nil {
		c4.Close()
		return nil, err
	}
	if ecn {
		// Best effort, as for a single socket (endpoint.go).
		_ = enableECN(c4)
		_ = enableECN(c6)
	}
	d := &dualConn{c4: c4, c6: c6, in: make(chan *dualBatch), done: make(chan struct{}), dlset: make(chan struct{}, 1)}
	d.wg.Add(2)
	go d.reader(c4, size)
	go d.reader(c6, size)
	return d, nil
}

// reader reads c until it fails, handing each batch to ReadBatch and
// waiting until it is consumed.
func (d *dualConn) reader(c netio.Conn, size int) {
	defer d.wg.Done()
	b := &dualBatch{pkts: make([]netio.Packet, dualBatchLen), back: make(chan struct{}, 1)}
	for i := range b.pkts {
		b.pkts[i].Buf = make([]byte, size)
	}
	for {
		b.n, b.off = 0, 0
		b.n, b.err = c.ReadBatch(b.pkts)
		if errors.Is(b.err, os.ErrDeadlineExceeded) {
			continue // the shared socket's deadline was another endpoint's
		}
		select {
		case d.in <- b:
		case <-d.done:
			return
		}
		if b.err != nil {
			return
		}
		select {
		case <-b.back:
		case <-d.done:
			return
		}
	}
}

// ReadBatch implements netio.Conn.
func (d *dualConn) ReadBatch(pkts []netio.Packet) (int, error) {
	if len(pkts) == 0 {
		return 0, errors.New("netio: ReadBatch with no packets")
	}
	d.rmu.Lock()
	defer d.rmu.Unlock()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-d.done:
			return 0, net.ErrClosed
		default:
		}
		if b := d.cur; b != nil {
			if b.err != nil {
				return 0, b.err
			}
			n := 0
			for ; n < len(pkts) && b.off < b.n; b.off++ {
				src, dst := &b.pkts[b.off], &pkts[n]
				if len(dst.Buf) < src.N {
					continue // never truncated (netio.Conn's contract)
				}
				copy(dst.Buf, src.Data())
				dst.N, dst.Addr, dst.Notice, dst.MTU, dst.Local, dst.ECN = src.N, src.Addr, src.Notice, src.MTU, src.Local, src.ECN
				n++
			}
			if b.off == b.n {
				d.cur = nil
				b.back <- struct{}{}
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		d.dmu.Lock()
		dl := d.dl
		d.dmu.Unlock()
		var tc <-chan time.Time
		if !dl.IsZero() {
			wait := time.Until(dl)
			if wait <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tc = timer.C
		}
		select {
		case b := <-d.in:
			d.cur = b
		case <-d.dlset:
		case <-tc:
			return 0, os.ErrDeadlineExceeded
		case <-d.done:
			return 0, net.ErrClosed
		}
	}
}

// SetReadDeadline implements netio.Conn.
func (d *dualConn) SetReadDeadline(t time.Time) error {
	d.dmu.Lock()
	d.dl = t
	d.dmu.Unlock()
	select {
	case d.dlset <- struct{}{}:
	default:
	}
	return nil
}

// conn returns the socket of dst's family.
func (d *dualConn) conn(dst netip.Addr) *portConn {
	if dst.Unmap().Is4() {
		return d.c4
	}
	return d.c6
}

// WriteBatch implements netio.Conn: each run of packets to one family
// goes to that family's socket.
func (d *dualConn) WriteBatch(pkts []netio.Packet) (int, error) {
	return d.write(pkts, (*portConn).WriteBatch)
}

// WriteFragmentable implements netio.FragmentWriter.
func (d *dualConn) WriteFragmentable(pkts []netio.Packet) (int, error) {
	return d.write(pkts, (*portConn).WriteFragmentable)
}

func (d *dualConn) write(pkts []netio.Packet, w func(*portConn, []netio.Packet) (int, error)) (int, error) {
	done := 0
	for done < len(pkts) {
		c := d.conn(pkts[done].Addr.Addr())
		end := done + 1
		for end < len(pkts) && d.conn(pkts[end].Addr.Addr()) == c {
			end++
		}
		n, err := w(c, pkts[done:end])
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// LocalAddr implements netio.Conn: the IPv6 wildcard address, port 0
// (the endpoint's addresses are its multiHome's).
func (d *dualConn) LocalAddr() netip.AddrPort { return netip.AddrPortFrom(netip.IPv6Unspecified(), 0) }

// Overhead implements netio.Conn.
func (d *dualConn) Overhead(remote netip.Addr) int { return d.conn(remote).Overhead(remote) }

// Close implements netio.Conn: both sockets' views close, and the readers
// end.
func (d *dualConn) Close() error {
	var err error
	d.once.Do(func() {
		close(d.done)
		err = errors.Join(d.c4.Close(), d.c6.Close())
		d.wg.Wait()
	})
	return err
}

// claim takes SCTP port on both sockets (portConn.claim).
func (d *dualConn) claim(port uint16) error {
	if err := d.c4.claim(port); err != nil {
		return err
	}
	if err := d.c6.claim(port); err != nil {
		d.c4.release(port)
		return err
	}
	return nil
}

// release gives back one claim of port on both sockets.
func (d *dualConn) release(port uint16) {
	d.c4.release(port)
	d.c6.release(port)
}

// portClaimer is a view of shared sockets on which a dialed association
// claims its SCTP port: a portConn, or a dualConn.
type portClaimer interface {
	claim(port uint16) error
	release(port uint16)
}

// ECTAll reports whether the sockets send ECT(0) (netio.ECTAll).
func (d *dualConn) ECTAll() bool { return d.c4.ECTAll() && d.c6.ECTAll() }
