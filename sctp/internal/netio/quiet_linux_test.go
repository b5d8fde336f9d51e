//go:build linux

package netio

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// quietOf returns the quiet socket behind u (batched UDP on Linux).
func quietOf(t *testing.T, u *UDPConn) *quietSocket {
	t.Helper()
	s, ok := u.c.(*quietSocket)
	if !ok {
		t.Fatalf("the socket of a batched UDPConn is a %T, want a quietSocket", u.c)
	}
	return s
}

// epollFd returns the descriptor of the epoll instance behind rc.
func epollFd(t *testing.T, rc syscall.RawConn) int {
	t.Helper()
	fd := -1
	if err := rc.Control(func(s uintptr) { fd = int(s) }); err != nil {
		t.Fatal(err)
	}
	return fd
}

// epollWatches returns the event mask with which the epoll instance ep
// watches descriptor fd, from /proc/self/fdinfo, and whether it does.
func epollWatches(t *testing.T, ep, fd int) (uint32, bool) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", ep))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		// tfd: N events: MASK data: ...
		if len(f) >= 4 && f[0] == "tfd:" && f[1] == strconv.Itoa(fd) && f[2] == "events:" {
			m, err := strconv.ParseUint(f[3], 16, 32)
			if err != nil {
				t.Fatalf("fdinfo of %d: %q: %v", ep, line, err)
			}
			return uint32(m), true
		}
	}
	return 0, false
}

// epollInstances returns the descriptors of the process's epoll
// instances.
func epollInstances(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var eps []int
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == "anon_inode:[eventpoll]" {
			n, _ := strconv.Atoi(e.Name())
			eps = append(eps, n)
		}
	}
	return eps
}

// awaitMask spins (no sleep: it yields) until the input instance of s
// watches the socket with a mask for which want reports true.
func awaitMask(t *testing.T, s *quietSocket, what string, want func(uint32) bool) {
	t.Helper()
	ep := epollFd(t, s.rdRC)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m, ok := epollWatches(t, ep, s.fd); ok && want(m) {
			return
		}
		if time.Now().After(deadline) {
			m, _ := epollWatches(t, ep, s.fd)
			t.Fatalf("input registration never %s (events %#x)", what, m)
		}
		runtime.Gosched()
	}
}

func armed(m uint32) bool    { return m&unix.EPOLLIN != 0 }
func disarmed(m uint32) bool { return m&(unix.EPOLLIN|unix.EPOLLOUT) == 0 }

// quietWatchers returns the epoll instances that watch s's socket.
func quietWatchers(t *testing.T, s *quietSocket) []int {
	t.Helper()
	var watchers []int
	for _, ep := range epollInstances(t) {
		if _, ok := epollWatches(t, ep, s.fd); ok {
			watchers = append(watchers, ep)
		}
	}
	return watchers
}

// A raw IP socket is quiet too: out of the netpoller, and a read that
// waits gets the packet sent to it.
func TestQuietSocketRawIP(t *testing.T) {
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	a, err := ListenIP(IPConfig{Addr: lo})
	if errors.Is(err, ErrNeedRaw) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, ok := a.c.(*quietSocket)
	if !ok {
		t.Fatalf("the socket of a batched IPConn is a %T, want a quietSocket", a.c)
	}
	if w := quietWatchers(t, s); len(w) != 2 {
		t.Fatalf("raw socket %d watched by epoll instances %v, want its own two", s.fd, w)
	}
	got := make(chan error, 1)
	go func() {
		pkts := newPackets(8, 2048)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			// Every SCTP packet on the host reaches a raw socket: look
			// for ours.
			n, err := a.ReadBatch(pkts)
			if err != nil {
				got <- err
				return
			}
			for _, p := range pkts[:n] {
				if p.N == 100 && seqOf(p.Buf) == 7 {
					got <- nil
					return
				}
			}
		}
		got <- errors.New("the packet never came")
	}()
	awaitMask(t, s, "armed", armed)
	out := newPackets(1, 100)
	fill(out, 7, 100, netip.AddrPortFrom(lo, 0))
	if _, err := a.WriteBatch(out); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("ReadBatch: %v", err)
	}
}

// A quiet socket is in no epoll instance but its own two: the runtime's
// netpoller, which would wake a thread for every datagram and every send
// completion, does not watch it.
func TestQuietSocketOutOfNetpoller(t *testing.T) {
	a, _ := udpPair(t, false, UDPConfig{})
	s := quietOf(t, a)
	rd, wr := epollFd(t, s.rdRC), epollFd(t, s.wrRC)
	watchers := quietWatchers(t, s)
	if len(watchers) != 2 || !(watchers[0] == rd && watchers[1] == wr || watchers[0] == wr && watchers[1] == rd) {
		t.Fatalf("socket %d is watched by epoll instances %v, want only its own %d and %d", s.fd, watchers, rd, wr)
	}
	for _, ep := range []int{rd, wr} {
		if m, _ := epollWatches(t, ep, s.fd); !disarmed(m) {
			t.Errorf("idle socket: instance %d armed (events %#x)", ep, m)
		}
	}
}

// A reader that waits arms the input registration; once it has read, the
// registration is disarmed again, and datagrams that arrive while nobody
// waits make nothing readable to the netpoller (they wake no thread), yet
// are read at once by the next call.
func TestQuietSocketArmsOnlyWhileWaiting(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {GRO: true}} {
		t.Run(fmt.Sprintf("gro=%v", cfg.GRO), func(t *testing.T) {
			a, b := udpPair(t, false, cfg)
			s := quietOf(t, b)
			got := make(chan error, 1)
			go func() {
				pkts := newPackets(8, 2048)
				_, err := b.ReadBatch(pkts)
				got <- err
			}()
			awaitMask(t, s, "armed", armed)
			out := newPackets(1, 100)
			fill(out, 0, 100, b.LocalAddr())
			if _, err := a.WriteBatch(out); err != nil {
				t.Fatal(err)
			}
			if err := <-got; err != nil {
				t.Fatalf("ReadBatch: %v", err)
			}
			ep := epollFd(t, s.rdRC)
			if m, _ := epollWatches(t, ep, s.fd); !disarmed(m) {
				t.Fatalf("after the read: input registration armed (events %#x)", m)
			}
			out = newPackets(4, 100)
			fill(out, 1, 100, b.LocalAddr())
			if _, err := a.WriteBatch(out); err != nil {
				t.Fatal(err)
			}
			// Loopback delivers in the sender's call: the datagrams
			// are queued now.
			pfd := []unix.PollFd{{Fd: int32(ep), Events: unix.POLLIN}}
			if n, err := unix.Poll(pfd, 0); err != nil || n != 0 {
				t.Fatalf("with nobody waiting the input instance polls readable (%d, %v): a thread would wake", n, err)
			}
			recvAll(t, b, 4, 100, a.LocalAddr())
		})
	}
}

// A deadline that ends a wait, and Close during one, leave the
// registration disarmed and return the errors a net.Conn's would.
func TestQuietSocketWaitEnds(t *testing.T) {
	_, b := udpPair(t, false, UDPConfig{})
	s := quietOf(t, b)
	got := make(chan error, 1)
	read := func() {
		_, err := b.ReadBatch(newPackets(4, 2048))
		got <- err
	}
	go read()
	awaitMask(t, s, "armed", armed)
	b.SetReadDeadline(time.Now().Add(-time.Second))
	if err := <-got; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("ReadBatch interrupted by its deadline: %v", err)
	}
	awaitMask(t, s, "disarmed after the deadline", disarmed)

	b.SetReadDeadline(time.Time{})
	go read()
	awaitMask(t, s, "armed", armed)
	b.Close()
	if err := <-got; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("ReadBatch during Close: %v", err)
	}
	out := newPackets(1, 100)
	fill(out, 0, 100, b.LocalAddr())
	if _, err := b.WriteBatch(out); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("WriteBatch after Close: %v", err)
	}
	if err := b.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

// A write that would block waits on the output registration, armed for
// the wait, and goes on when the socket has room.
func TestQuietSocketWriteWaits(t *testing.T) {
	a, _ := udpPair(t, false, UDPConfig{})
	s := quietOf(t, a)
	rc, err := s.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	tries := 0
	err = rc.Write(func(fd uintptr) bool {
		tries++
		if fd != uintptr(s.fd) {
			t.Errorf("Write ran on descriptor %d, want the socket's %d", fd, s.fd)
		}
		return tries == 2 // the first try "would block"
	})
	if err != nil || tries != 2 {
		t.Fatalf("Write: %v after %d tries, want 2", err, tries)
	}
	if m, _ := epollWatches(t, epollFd(t, s.wrRC), s.fd); !disarmed(m) {
		t.Errorf("after the write: output registration armed (events %#x)", m)
	}
}
