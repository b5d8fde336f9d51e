//go:build linux

package netio

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A quiet socket is a UDP or raw IP socket that wakes no thread unless a goroutine
// waits on it. Go's netpoller registers every socket for input and output,
// edge-triggered, whether or not anyone waits: each datagram that arrives
// and each send buffer freed as the peer takes a datagram (on loopback
// and veth, every GSO send) wakes the thread parked in epoll_wait, which
// finds no goroutine to run and parks again. On a host where waking an
// idle CPU costs an interrupt into a halted vCPU, a bulk sender paid
// thousands of such wake-ups a second for nothing (docs/PERFORMANCE.md,
// "Idle wake-ups").
//
// quietSocket keeps the socket out of the netpoller. Two epoll instances
// of its own watch it, one for input and one for output, each registered
// one-shot (EPOLLONESHOT) and armed only by a goroutine about to wait; the
// netpoller watches those two instances, which become readable only when
// an armed event fires. A goroutine that finds the socket empty arms the
// input instance and parks on it; when it wakes it takes the event, which
// disarms the registration again, and reads.
type quietSocket struct {
	fd     int      // the socket
	rd, wr *os.File // the epoll instances of input and output
	rdRC   syscall.RawConn
	wrRC   syscall.RawConn
	closed atomic.Bool
	once   sync.Once

	r, w quietWaiter
}

// quietWaiter is one direction's wait: the caller's function, and whether
// the one-shot registration is armed. Its fields belong to the holder of
// mu (one Read or Write at a time, as on a net.Conn's fd).
type quietWaiter struct {
	mu     sync.Mutex
	f      func(fd uintptr) bool
	armed  bool
	events uint32 // EPOLLIN or EPOLLOUT
	err    error  // an epoll_ctl failure, returned by Read or Write
	fn     func(epfd uintptr) bool
	disarm func(epfd uintptr)
	sock   int
	evs    [1]unix.EpollEvent // the event taken
	ev     unix.EpollEvent    // the registration set
}

// newQuietSocket takes c's socket out of the netpoller: it keeps a
// duplicate of the descriptor and closes c (which removes c's
// registration), and watches the socket with epoll instances of its own.
// On failure c is left open.
func newQuietSocket(c sockConn) (*quietSocket, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	s := &quietSocket{fd: fd}
	if s.rd, s.rdRC, err = quietEpoll(fd, "input"); err == nil {
		if s.wr, s.wrRC, err = quietEpoll(fd, "output"); err != nil {
			s.rd.Close()
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	s.r.init(fd, unix.EPOLLIN)
	s.w.init(fd, unix.EPOLLOUT)
	// The duplicate is non-blocking as c's descriptor was (the flag
	// belongs to the open file, which both share).
	if err := c.Close(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// quietBatch moves b, set up on c, onto a quiet socket made from c, and
// returns the socket to use in c's place: the quiet socket, or c itself
// when its epoll instances could not be made (the netpoller's own
// registration still works, waking threads for nothing now and then).
func quietBatch(b *batchIO, c sockConn) sockConn {
	s, err := newQuietSocket(c)
	if err != nil {
		return c
	}
	b.rc = quietRaw{s}
	return s
}

// quietEpoll returns a non-blocking epoll instance holding fd disarmed
// (one-shot with no events), as a pollable file.
func quietEpoll(fd int, dir string) (*os.File, syscall.RawConn, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, nil, os.NewSyscallError("epoll_create1", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLONESHOT}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(ep)
		return nil, nil, os.NewSyscallError("epoll_ctl", err)
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(ep), fmt.Sprintf("epoll of socket %d %s", fd, dir))
	// A file the netpoller could not take would make every wait fail:
	// only a pollable file has deadlines.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("epoll instance not pollable: %w", err)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, rc, nil
}

func (w *quietWaiter) init(sock int, events uint32) {
	w.sock, w.events = sock, events
	w.fn, w.disarm = w.step, w.disarmOn
}

// disarmOn clears the registration on the epoll instance ep.
func (w *quietWaiter) disarmOn(ep uintptr) {
	w.ev.Events = unix.EPOLLONESHOT
	_ = epollMod(ep, w.sock, &w.ev)
}

// step is one try of the waiting direction, run by the epoll instance's
// RawConn with its descriptor: take a fired event (which disarms the
// registration), try the caller's function on the socket, and arm the
// registration before the netpoller parks the goroutine if the socket
// would block. Arming an event that is already true queues it at once,
// so nothing that arrived between the try and the arming is missed.
func (w *quietWaiter) step(ep uintptr) bool {
	if w.armed {
		w.armed = false
		// The event, if it fired: epoll disarms a one-shot registration
		// when its event is taken, not when it fires.
		for {
			_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, ep, uintptr(unsafe.Pointer(&w.evs[0])), 1, 0, 0, 0)
			if e != unix.EINTR {
				break
			}
		}
	}
	if w.f(uintptr(w.sock)) {
		return true
	}
	w.ev.Events = w.events | unix.EPOLLONESHOT
	if err := epollMod(ep, w.sock, &w.ev); err != nil {
		w.err = os.NewSyscallError("epoll_ctl", err)
		return true
	}
	w.armed = true
	return false
}

// epollMod changes fd's registration on ep to ev. Like the epoll_pwait
// above it never blocks, so it is a raw system call: one that enters the
// scheduler's syscall state wakes Go's sysmon thread when the process was
// idle, once per wait.
func epollMod(ep uintptr, fd int, ev *unix.EpollEvent) error {
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, ep, unix.EPOLL_CTL_MOD, uintptr(fd), uintptr(unsafe.Pointer(ev)), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// wait runs f on the socket until it reports done, parking on rc (the
// direction's epoll instance) between tries.
func (s *quietSocket) wait(w *quietWaiter, rc syscall.RawConn, f func(fd uintptr) bool) error {
	w.mu.Lock()
	w.f, w.err = f, nil
	err := rc.Read(w.fn)
	if err == nil {
		err = w.err
	} else if w.armed {
		// A deadline or Close ended the wait: disarm, so that the
		// socket wakes nobody until the next wait.
		w.armed = false
		rc.Control(w.disarm)
	}
	w.f = nil
	w.mu.Unlock()
	return s.mapErr(err)
}

// mapErr returns the error of a closed socket as a closed net.Conn's
// (net.ErrClosed), as callers test for it.
func (s *quietSocket) mapErr(err error) error {
	if err != nil && s.closed.Load() && !errors.Is(err, os.ErrDeadlineExceeded) {
		return net.ErrClosed
	}
	return err
}

// SyscallConn returns the socket's RawConn: Read and Write wait as the
// quiet socket does, Control runs on the socket's descriptor.
func (s *quietSocket) SyscallConn() (syscall.RawConn, error) { return quietRaw{s}, nil }

// SetReadDeadline sets the deadline of the waits for input.
func (s *quietSocket) SetReadDeadline(t time.Time) error {
	return s.mapErr(s.rd.SetReadDeadline(t))
}

// Close closes the socket: waits in progress return net.ErrClosed, and
// the descriptor is closed once no call is using it (the epoll files'
// Close waits for their calls to return).
func (s *quietSocket) Close() error {
	err := net.ErrClosed
	s.once.Do(func() {
		s.closed.Store(true)
		s.rd.Close()
		s.wr.Close()
		err = unix.Close(s.fd)
		if err != nil {
			err = os.NewSyscallError("close", err)
		}
	})
	return err
}

// quietRaw is the syscall.RawConn of a quietSocket.
type quietRaw struct{ s *quietSocket }

// Control runs f on the socket's descriptor, which stays open meanwhile.
func (r quietRaw) Control(f func(fd uintptr)) error {
	err := r.s.rdRC.Control(func(uintptr) { f(uintptr(r.s.fd)) })
	return r.s.mapErr(err)
}

// Read runs f until it reports done, waiting for input between tries.
func (r quietRaw) Read(f func(fd uintptr) bool) error { return r.s.wait(&r.s.r, r.s.rdRC, f) }

// Write runs f until it reports done, waiting for room between tries.
func (r quietRaw) Write(f func(fd uintptr) bool) error { return r.s.wait(&r.s.w, r.s.wrRC, f) }
