//go:build linux

package sctp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// The process's side of the exit watchdog (exitwatch.go has the design).

// exitWatch is a running watchdog as the process sees it: the process's
// end of the socket pair and the messages waiting for room in it.
type exitWatch struct {
	conn *net.UnixConn
	raw  syscall.RawConn
	cmd  *exec.Cmd
	done chan struct{} // closed once the watchdog exited and was reaped

	mu sync.Mutex
	// queue holds the messages that found the pair full (or others
	// waiting), in order; queue[0] is being written by drain.
	queue   []exitMsg
	gone    bool                     // the watchdog exited: messages are dropped
	nextID  uint32                   // the last socket id given
	sockets int                      // sockets registered and not closed
	acks    map[uint32]chan struct{} // closeSocket calls waiting for their answer
	idle    *time.Timer              // ends the watchdog when no socket is left
}

// exitMsg is a message for the watchdog, with a descriptor to attach (or
// -1), which is closed once sent.
type exitMsg struct {
	b  []byte
	fd int
}

// maxExitQueue bounds the messages waiting for room in the socket pair;
// more are dropped (a watchdog that reads nothing: stopped, or gone).
const maxExitQueue = 1 << 16

// exitWatchdog is the process's watchdog, started by the first endpoint
// with Config.AbortOnExit and again after it ended.
var exitWatchdog struct {
	mu  sync.Mutex
	w   *exitWatch
	err error // why the last start failed
}

// Timings of the watchdog, variables for the tests.
var (
	// exitIdle is how long a watchdog with no socket left lives on, so
	// that a program dialing one association after another does not
	// start one each time.
	exitIdle = 5 * time.Second
	// exitAckWait bounds the wait for the watchdog to close its copy of
	// a socket that the endpoint closes. Close returns only then, so
	// that the port is free once it does (a program that closes and
	// listens again on the port relies on it); the answer takes well
	// under a millisecond, and seconds on a host whose CPUs are all
	// busy. Only a watchdog that lives and does not answer (stopped by
	// a signal) makes Close wait this long, and then leaves the port
	// held until it resumes.
	exitAckWait = 10 * time.Second
)

// exitRegister registers the socket of conn with the process's watchdog,
// starting one if none runs. It returns the zero exitReg, and the
// endpoint goes unwatched, when conn has no socket of its own (a
// PacketConn, a pair of raw sockets) or the watchdog cannot start.
func exitRegister(conn netio.Conn) exitReg {
	fd, err := netio.DupSocket(conn)
	if err != nil {
		return exitReg{}
	}
	exitWatchdog.mu.Lock()
	defer exitWatchdog.mu.Unlock()
	w := exitWatchdog.w
	if w == nil {
		if w, err = startExitWatch(); err != nil {
			exitWatchdog.err = err
			syscall.Close(fd)
			return exitReg{}
		}
		exitWatchdog.w = w
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idle != nil {
		w.idle.Stop()
		w.idle = nil
	}
	w.nextID++
	w.sockets++
	msg := binary.BigEndian.AppendUint32([]byte{exitMsgSocket}, w.nextID)
	w.sendLocked(exitMsg{msg, fd})
	return exitReg{w: w, sock: w.nextID}
}

// exitClose closes the watchdog's copy of the endpoint's socket, before the
// endpoint closes its own, so that the port is free when Close returns.
func (e *Endpoint) exitClose() {
	if e.exit.w != nil {
		e.exit.w.closeSocket(e.exit.sock)
	}
}

// startExitWatch starts a watchdog process: the program's own binary,
// which package sctp's init turns into the watchdog (runExitWatchdog).
func startExitWatch() (*exitWatch, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sctp: exit watchdog: socketpair: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "exit watchdog"), os.NewFile(uintptr(fds[1]), "exit watchdog")
	defer theirs.Close()
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, fmt.Errorf("sctp: exit watchdog: %w", err)
	}
	uc := c.(*net.UnixConn)
	raw, err := uc.SyscallConn()
	if err != nil {
		uc.Close()
		return nil, err
	}
	// Its standard error is the process's, for a panic's report; its
	// input and output are /dev/null.
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{os.Args[0]}, ExtraFiles: []*os.File{theirs}, Stderr: os.Stderr}
	cmd.Env = append(cmd.Env, exitWatchEnv+"=v1:3", "GOMAXPROCS=1")
	// The process's environment but for the watchdog's own settings;
	// without GOCOVERDIR a coverage build writes no profile for it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, exitWatchEnv+"=") && !strings.HasPrefix(kv, "GOMAXPROCS=") && !strings.HasPrefix(kv, "GOCOVERDIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if err := cmd.Start(); err != nil {
		uc.Close()
		return nil, fmt.Errorf("sctp: exit watchdog: %w", err)
	}
	w := &exitWatch{conn: uc, raw: raw, cmd: cmd, done: make(chan struct{}), acks: make(map[uint32]chan struct{})}
	go w.read()
	return w, nil
}

// send sends msg (with descriptor fd, unless -1) to the watchdog, or
// queues it behind those waiting for room.
func (w *exitWatch) send(msg []byte, fd int) {
	w.mu.Lock()
	w.sendLocked(exitMsg{msg, fd})
	w.mu.Unlock()
}

// sendLocked is send with w.mu held. A message that finds the socket
// pair full, or others queued, goes to the queue, which drain writes in
// order.
func (w *exitWatch) sendLocked(m exitMsg) {
	switch {
	case w.gone:
		m.close()
	case len(w.queue) == 0 && w.trySend(m):
		m.close()
	case len(w.queue) >= maxExitQueue:
		m.close() // a watchdog stuck for that long: the process goes on without it
	default:
		w.queue = append(w.queue, m)
		if len(w.queue) == 1 {
			go w.drain()
		}
	}
}

// close closes the descriptor the message carried.
func (m exitMsg) close() {
	if m.fd >= 0 {
		syscall.Close(m.fd)
	}
}

// rights returns the control message that attaches m's descriptor.
func (m exitMsg) rights() []byte {
	if m.fd < 0 {
		return nil
	}
	return syscall.UnixRights(m.fd)
}

// trySend sends m without waiting. It reports false when the socket pair
// is full; other errors mean the watchdog is gone, which read notices.
func (w *exitWatch) trySend(m exitMsg) bool {
	var err error
	if cerr := w.raw.Write(func(fd uintptr) bool {
		err = syscall.Sendmsg(int(fd), m.b, m.rights(), nil, syscall.MSG_DONTWAIT)
		return true
	}); cerr != nil {
		return true
	}
	return err != syscall.EAGAIN
}

// drain writes the queued messages, waiting for room, until the queue is
// empty.
func (w *exitWatch) drain() {
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		if w.gone {
			for _, m := range w.queue {
				m.close()
			}
			w.queue = nil
			w.mu.Unlock()
			return
		}
		m := w.queue[0]
		w.mu.Unlock()
		_, _, err := w.conn.WriteMsgUnix(m.b, m.rights(), nil)
		m.close()
		w.mu.Lock()
		w.queue[0] = exitMsg{}
		w.queue = w.queue[1:]
		if err != nil {
			w.gone = true
		}
		w.mu.Unlock()
	}
}

// closeSocket has the watchdog close its copy of socket id and forget
// the socket's associations, and waits for it to answer (at most
// exitAckWait). The last socket closed ends the watchdog after exitIdle.
func (w *exitWatch) closeSocket(id uint32) {
	ch := make(chan struct{})
	w.mu.Lock()
	w.acks[id] = ch
	w.sendLocked(exitMsg{binary.BigEndian.AppendUint32([]byte{exitMsgClose}, id), -1})
	w.mu.Unlock()
	t := time.NewTimer(exitAckWait)
	select {
	case <-ch:
	case <-w.done:
	case <-t.C:
	}
	t.Stop()
	w.mu.Lock()
	delete(w.acks, id)
	if w.sockets--; w.sockets == 0 && !w.gone {
		w.idle = time.AfterFunc(exitIdle, w.endIdle)
	}
	w.mu.Unlock()
}

// endIdle ends a watchdog that no socket was registered with for
// exitIdle: closing the process's end makes it exit.
func (w *exitWatch) endIdle() {
	exitWatchdog.mu.Lock()
	defer exitWatchdog.mu.Unlock()
	w.mu.Lock()
	idle := w.sockets == 0 && w.idle != nil
	w.mu.Unlock()
	if !idle {
		return
	}
	if exitWatchdog.w == w {
		exitWatchdog.w = nil
	}
	w.conn.Close()
}

// read takes the watchdog's answers until it is gone, then reaps it.
func (w *exitWatch) read() {
	buf := make([]byte, 64)
	for {
		n, err := w.conn.Read(buf)
		if err != nil || n == 0 {
			break
		}
		if n == 5 && buf[0] == exitMsgClose {
			id := binary.BigEndian.Uint32(buf[1:])
			w.mu.Lock()
			if ch := w.acks[id]; ch != nil {
				close(ch)
				delete(w.acks, id)
			}
			w.mu.Unlock()
		}
	}
	w.mu.Lock()
	w.gone = true
	w.mu.Unlock()
	w.conn.Close()
	w.cmd.Wait()
	close(w.done)
	exitWatchdog.mu.Lock()
	if exitWatchdog.w == w {
		exitWatchdog.w = nil
	}
	exitWatchdog.mu.Unlock()
}

// errNotWatchdog is parseExitWatchEnv's error for a value that is not
// the watchdog's.
var errNotWatchdog = errors.New("not an exit watchdog")

// parseExitWatchEnv parses exitWatchEnv's value: the descriptor of the
// watchdog's end of the socket pair.
func parseExitWatchEnv(v string) (fd int, err error) {
	f, ok := strings.CutPrefix(v, "v1:")
	if !ok {
		return 0, errNotWatchdog
	}
	if fd, err = strconv.Atoi(f); err != nil || fd < 3 {
		return 0, errNotWatchdog
	}
	return fd, nil
}
