package netio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

// A raw IP endpoint with both IPv4 and IPv6 addresses. A raw socket is one
// family, so such an endpoint (package sctp: ListenAddrs or
// Config.LocalAddrs mixing the families, Transport IP) has two: the
// process's shared raw sockets bound to 0.0.0.0 and to :: (shared.go),
// each claiming the endpoint's SCTP ports, behind one Conn, a DualIPConn.
// Writes go to the socket of each packet's destination family. Reads come
// from both: a goroutine per socket reads a batch and hands it over, and
// ReadBatch copies the packets out of whichever batch is ready (raw IP
// with both families is not the fast path; one goroutine hand-off per
// batch and a copy per packet are its price).

// dualBatch is a batch of packets one of DualIPConn's readers read.
type dualBatch struct {
	pkts []Packet
	n    int
	err  error
	off  int           // packets already copied out
	back chan struct{} // tells the reader the batch is consumed
}

// DualIPConn is an IPv4 and an IPv6 raw socket, both shared with the
// other endpoints of the process, as one Conn (OpenDualIP).
type DualIPConn struct {
	c4, c6 *SharedConn
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

var _ Conn = (*DualIPConn)(nil)

// dualBatchLen is the packets each reader reads at a time.
const dualBatchLen = 16

// OpenDualIP opens (or shares) the raw IPv4 and IPv6 sockets of ic (its
// Addr is ignored) and claims SCTP port listen, unless 0, on both;
// packets are read into buffers of size bytes. With ecn the sockets it
// opens send ECT(0) and report the ECN field (before the first read).
func OpenDualIP(ic IPConfig, listen uint16, size int, ecn bool) (*DualIPConn, error) {
	ic.Addr = netip.IPv4Unspecified()
	c4, err := OpenSharedIP(ic, listen)
	if err != nil {
		return nil, err
	}
	ic.Addr = netip.IPv6Unspecified()
	c6, err := OpenSharedIP(ic, listen)
	if err != nil {
		c4.Close()
		return nil, err
	}
	if ecn {
		// Best effort, as for a single socket.
		_ = EnableECN(c4)
		_ = EnableECN(c6)
	}
	d := &DualIPConn{c4: c4, c6: c6, in: make(chan *dualBatch), done: make(chan struct{}), dlset: make(chan struct{}, 1)}
	d.wg.Add(2)
	go d.reader(c4, size)
	go d.reader(c6, size)
	return d, nil
}

// reader reads c until it fails, handing each batch to ReadBatch and
// waiting until it is consumed.
func (d *DualIPConn) reader(c Conn, size int) {
	defer d.wg.Done()
	b := &dualBatch{pkts: make([]Packet, dualBatchLen), back: make(chan struct{}, 1)}
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

// ReadBatch implements Conn.
func (d *DualIPConn) ReadBatch(pkts []Packet) (int, error) {
	if len(pkts) == 0 {
		return 0, errEmptyBatch
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
					continue // never truncated (Conn's contract)
				}
				copy(dst.Buf, src.Data())
				dst.N, dst.Addr, dst.Notice, dst.MTU, dst.Local, dst.ECN, dst.Errno = src.N, src.Addr, src.Notice, src.MTU, src.Local, src.ECN, src.Errno
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

// SetReadDeadline implements Conn.
func (d *DualIPConn) SetReadDeadline(t time.Time) error {
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
func (d *DualIPConn) conn(dst netip.Addr) *SharedConn {
	if dst.Unmap().Is4() {
		return d.c4
	}
	return d.c6
}

// WriteBatch implements Conn: each run of packets to one family
// goes to that family's socket.
func (d *DualIPConn) WriteBatch(pkts []Packet) (int, error) {
	return d.write(pkts, (*SharedConn).WriteBatch)
}

// WriteFragmentable implements FragmentWriter.
func (d *DualIPConn) WriteFragmentable(pkts []Packet) (int, error) {
	return d.write(pkts, (*SharedConn).WriteFragmentable)
}

func (d *DualIPConn) write(pkts []Packet, w func(*SharedConn, []Packet) (int, error)) (int, error) {
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

// LocalAddr implements Conn: the IPv6 wildcard address, port 0
// (the endpoint's own addresses are its user's to know).
func (d *DualIPConn) LocalAddr() netip.AddrPort {
	return netip.AddrPortFrom(netip.IPv6Unspecified(), 0)
}

// Overhead implements Conn.
func (d *DualIPConn) Overhead(remote netip.Addr) int { return d.conn(remote).Overhead(remote) }

// Close implements Conn: both sockets' views close, and the readers
// end.
func (d *DualIPConn) Close() error {
	var err error
	d.once.Do(func() {
		close(d.done)
		err = errors.Join(d.c4.Close(), d.c6.Close())
		d.wg.Wait()
	})
	return err
}

// Claim takes SCTP port on both sockets (SharedConn.Claim).
func (d *DualIPConn) Claim(port uint16) error {
	if err := d.c4.Claim(port); err != nil {
		return err
	}
	if err := d.c6.Claim(port); err != nil {
		d.c4.Release(port)
		return err
	}
	return nil
}

// Release gives back one claim of port on both sockets.
func (d *DualIPConn) Release(port uint16) {
	d.c4.Release(port)
	d.c6.Release(port)
}
