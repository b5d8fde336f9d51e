package netio

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"time"
)

// Reading a shared socket (shared.go): the endpoint that finds the socket
// free leads, reading it for everyone until it has packets of its own; an
// endpoint that holds views of the socket's buffers (ReadBatchView) keeps
// the others from reading until its next read.

// ReadBatch implements Conn.
func (pc *SharedConn) ReadBatch(pkts []Packet) (int, error) { return pc.read(pkts, false) }

// ReadBatchView is UDPConn's ReadBatchView: the packets' Bufs are
// views valid until the next call.
func (pc *SharedConn) ReadBatchView(pkts []Packet) (int, error) {
	return pc.read(pkts, pc.s.view != nil)
}

// read waits for packets for pc: queued by another endpoint's read, or
// read from the socket while pc leads.
func (pc *SharedConn) read(pkts []Packet, view bool) (int, error) {
	if len(pkts) == 0 {
		return 0, errEmptyBatch
	}
	s := pc.s
	s.releaseViews(pc)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		pc.mu.Lock()
		if view {
			pc.spare = append(pc.spare, pc.lent...)
			clear(pc.lent)
			pc.lent = pc.lent[:0]
		}
		if pc.closed {
			pc.mu.Unlock()
			return 0, net.ErrClosed
		}
		if len(pc.q) > 0 {
			n := pc.dequeue(pkts, view)
			pc.mu.Unlock()
			return n, nil
		}
		dl := pc.deadline
		pc.mu.Unlock()
		if !dl.IsZero() && !time.Now().Before(dl) {
			return 0, os.ErrDeadlineExceeded
		}
		if s.rmu.TryLock() {
			n, err, st := pc.lead(pkts, view)
			if st == leadDone {
				return n, err
			}
			if st == leadAgain {
				continue
			}
			// leadBlocked: another endpoint still reads views of the
			// socket's buffers; it posts free when it is done.
		}
		var tc <-chan time.Time
		if !dl.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(dl))
			} else {
				timer.Reset(time.Until(dl))
			}
			tc = timer.C
		}
		select {
		case <-pc.wake:
		case <-s.free:
			// The socket is free: take it at the top of the loop, or
			// pass the token on if our packets came meanwhile.
			pc.mu.Lock()
			have := len(pc.q) > 0 || pc.closed
			pc.mu.Unlock()
			if have {
				s.postFree()
			}
		case <-tc:
		}
	}
}

// postFree tells a waiting endpoint that nobody reads the socket.
func (s *sharedSocket) postFree() {
	select {
	case s.free <- struct{}{}:
	default:
	}
}

// releaseViews ends pc's hold on views of the socket's buffers: its
// endpoint is done with the packets of its last read.
func (s *sharedSocket) releaseViews(pc *SharedConn) {
	s.dlmu.Lock()
	held := s.viewHeld == pc
	if held {
		s.viewHeld = nil
	}
	s.dlmu.Unlock()
	if held {
		s.postFree()
	}
}

// What lead did.
const (
	leadDone    = iota // it returns packets or an error
	leadAgain          // back to read's loop: packets were queued, or pc closed
	leadBlocked        // another endpoint holds views of the socket's buffers
)

// lead reads the socket while pc holds s.rmu, until it has packets of
// its own (leadDone with n, or an error), and lets go of the socket.
func (pc *SharedConn) lead(pkts []Packet, view bool) (n int, err error, st int) {
	s := pc.s
	s.dlmu.Lock()
	if s.viewHeld != nil && s.viewHeld != pc {
		s.dlmu.Unlock()
		s.rmu.Unlock() // no free token: the holder posts one
		return 0, nil, leadBlocked
	}
	s.leader = pc
	pc.mu.Lock()
	dl, closed, queued := pc.deadline, pc.closed, len(pc.q) > 0
	pc.mu.Unlock()
	if !dl.Equal(s.applied) {
		s.conn.SetReadDeadline(dl)
		s.applied = dl
	}
	s.dlmu.Unlock()
	viewed := false // pc returns views of the socket's buffers
	defer func() {
		s.dlmu.Lock()
		s.leader = nil
		if viewed {
			s.viewHeld = pc
		}
		s.dlmu.Unlock()
		s.rmu.Unlock()
		if !viewed {
			s.postFree()
		}
	}()
	if closed || queued {
		return 0, nil, leadAgain
	}
	for {
		if view {
			n, err = s.view(pkts)
		} else {
			n, err = s.conn.ReadBatch(pkts)
		}
		if err != nil {
			pc.mu.Lock()
			closed, queued, dl := pc.closed, len(pc.q) > 0, pc.deadline
			pc.mu.Unlock()
			if closed {
				return 0, net.ErrClosed, leadDone
			}
			if errors.Is(err, os.ErrDeadlineExceeded) && (queued || dl.IsZero() || time.Now().Before(dl)) {
				return 0, nil, leadAgain // interrupted: packets queued by another socket's reader
			}
			return 0, err, leadDone
		}
		if !s.solo.Load() {
			n = s.dispatch(pc, pkts[:n])
		}
		if n > 0 {
			viewed = view
			return n, nil, leadDone
		}
		pc.mu.Lock()
		closed := pc.closed
		pc.mu.Unlock()
		if closed {
			return 0, net.ErrClosed, leadDone
		}
	}
}

// dispatch keeps at the front of pkts the packets for lead and queues the
// others for their endpoints; it returns how many lead keeps.
func (s *sharedSocket) dispatch(lead *SharedConn, pkts []Packet) int {
	s.mu.Lock()
	var def *SharedConn
	if len(s.members) > 0 {
		def = s.members[0]
	}
	keep := 0
	var woke []*SharedConn
	for i := range pkts {
		to := s.owner(&pkts[i], def)
		if to == lead || to == nil {
			if to == lead {
				pkts[keep], pkts[i] = pkts[i], pkts[keep]
				keep++
			}
			continue
		}
		if to.enqueue(&pkts[i]) {
			woke = append(woke, to)
		}
	}
	s.mu.Unlock()
	for _, pc := range woke {
		pc.signal()
		if pc.s != s {
			pc.s.interrupt(pc) // it may be reading its own socket
		}
	}
	return keep
}

// interrupt ends the read of the socket pc leads, if it does, for pc to
// take the packets another socket's reader queued for it (lead).
func (s *sharedSocket) interrupt(pc *SharedConn) {
	s.dlmu.Lock()
	if s.leader == pc {
		s.conn.SetReadDeadline(time.Unix(1, 0))
		s.applied = time.Unix(1, 0)
	}
	s.dlmu.Unlock()
}

// owner returns the endpoint a packet read from the socket goes to: the
// one serving its SCTP destination port on the socket, or on a wildcard
// socket of the process that covers the socket's address (the packet's
// Local then names the address it came to); for a notice (what the
// network said about a packet we sent) the one serving the quoted
// packet's source port; nil for a packet of a port another process of
// the host group serves; def otherwise. Called with s.mu held.
func (s *sharedSocket) owner(p *Packet, def *SharedConn) *SharedConn {
	d := p.Data()
	off := 2 // destination port
	if p.Notice != NoticeNone {
		off = 0 // the quoted packet's source port: ours
	}
	if len(d) < off+2 {
		return def
	}
	port := binary.BigEndian.Uint16(d[off:])
	if pc := s.ports[port]; pc != nil {
		return pc
	}
	if p.Notice != NoticeNone {
		return def
	}
	for _, w := range *s.wider.Load() {
		w.mu.Lock()
		pc := w.ports[port]
		w.mu.Unlock()
		if pc != nil {
			if !p.Local.IsValid() {
				p.Local = s.key.ip.Unmap()
			}
			return pc
		}
	}
	if s.group != nil && s.group.servedElsewhere(port) {
		s.foreign.Add(1)
		return nil
	}
	return def
}

// enqueue copies p into pc's queue; it reports whether the queue was
// empty (pc's reader is to be woken). Called with pc.s.mu held.
func (pc *SharedConn) enqueue(p *Packet) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed || len(pc.q) >= maxQueued {
		pc.dropped++
		return false
	}
	var buf []byte
	if k := len(pc.spare); k > 0 && cap(pc.spare[k-1]) >= p.N {
		buf = pc.spare[k-1][:p.N]
		pc.spare[k-1] = nil
		pc.spare = pc.spare[:k-1]
	} else {
		buf = make([]byte, p.N, max(p.N, 2048))
	}
	copy(buf, p.Data())
	pc.q = append(pc.q, Packet{Buf: buf, N: p.N, Addr: p.Addr, Notice: p.Notice, MTU: p.MTU, Local: p.Local, Errno: p.Errno})
	return len(pc.q) == 1
}

// dequeue moves queued packets into pkts: copies into their buffers, or
// with view the queue's buffers themselves (lent until the next call).
// Called with pc.mu held.
func (pc *SharedConn) dequeue(pkts []Packet, view bool) int {
	n, i := 0, 0
	for ; n < len(pkts) && i < len(pc.q); i++ {
		q := pc.q[i]
		pc.q[i] = Packet{}
		dst := &pkts[n]
		if view {
			dst.Buf = q.Buf
			pc.lent = append(pc.lent, q.Buf)
		} else {
			if len(dst.Buf) < q.N {
				pc.dropped++ // never truncated (Conn's contract)
				pc.spare = append(pc.spare, q.Buf)
				continue
			}
			copy(dst.Buf, q.Buf[:q.N])
			pc.spare = append(pc.spare, q.Buf)
		}
		dst.N, dst.Addr, dst.Notice, dst.MTU, dst.Local, dst.Errno = q.N, q.Addr, q.Notice, q.MTU, q.Local, q.Errno
		n++
	}
	k := copy(pc.q, pc.q[i:])
	clear(pc.q[k:])
	pc.q = pc.q[:k]
	if len(pc.spare) > 64 {
		clear(pc.spare[64:])
		pc.spare = pc.spare[:64]
	}
	return n
}
