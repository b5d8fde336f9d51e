//go:build linux

package sctp

import (
	"encoding/binary"
	"os"
	"os/signal"
	"syscall"

	"github.com/usctp/usctp/sctp/internal/netio"
	"golang.org/x/sys/unix"
)

// The watchdog process (exitwatch.go has the design). Go initializes a
// package after the packages it imports and before every package that
// imports it: a process started as the watchdog never runs the program's
// main, nor the init of any package that imports package sctp (those
// that do not, and come earlier in import path order, have run:
// docs/transports.md says so).

func init() {
	v, ok := os.LookupEnv(exitWatchEnv)
	if !ok {
		return
	}
	fd, err := parseExitWatchEnv(v)
	if err != nil || !isSeqPacket(fd) {
		// Not what a watchdog's parent sets: the program runs.
		os.Unsetenv(exitWatchEnv)
		return
	}
	os.Exit(runExitWatchdog(fd))
}

// isSeqPacket reports whether fd is a SOCK_SEQPACKET socket (the
// watchdog's end of the socket pair).
func isSeqPacket(fd int) bool {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	return err == nil && typ == unix.SOCK_SEQPACKET
}

// runExitWatchdog is the watchdog of the process at the other end of
// the socket pair end fd: it takes the process's sockets and associations
// until the process is gone, then sends each association's ABORT, and
// returns the exit status. What the process sent stays readable after it
// is gone, also when that happened before the watchdog got this far.
func runExitWatchdog(fd int) int {
	// The signals that end the process's group (a terminal's ^C, a
	// service manager's SIGTERM to every process of the service) must
	// not end the watchdog before it has done its work.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	os.WriteFile("/proc/self/comm", []byte("usctp-watchdog"), 0) // its name in ps and top
	unix.SetNonblock(fd, false)
	d := exitDog{fd: fd, socks: make(map[uint32]int), assocs: make(map[uint64]exitAssoc)}
	d.serve()
	d.abortAll()
	return 0
}

// exitDog is the watchdog's state: the sockets and associations of its
// process.
type exitDog struct {
	fd     int
	socks  map[uint32]int // socket id -> descriptor
	assocs map[uint64]exitAssoc
}

// serve takes the process's messages until it is gone.
func (d *exitDog) serve() {
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(d.fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return // EOF: the process's end closed
		}
		fds := receivedFDs(oob[:oobn])
		if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
			closeAll(fds)
			continue
		}
		d.handle(buf[:n], fds)
	}
}

// receivedFDs returns the descriptors attached to a message.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if f, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// handle acts on one message of the process, fds its attached descriptors.
func (d *exitDog) handle(m []byte, fds []int) {
	switch {
	case m[0] == exitMsgSocket && len(m) == 5 && len(fds) == 1:
		id := binary.BigEndian.Uint32(m[1:])
		if old, ok := d.socks[id]; ok {
			unix.Close(old)
		}
		d.socks[id] = fds[0]
		return
	case m[0] == exitMsgAssoc:
		if id, a, ok := parseExitAssoc(m[1:]); ok {
			a.pkt = append([]byte(nil), a.pkt...)
			d.assocs[id] = a
		}
	case m[0] == exitMsgDelete && len(m) == 9:
		delete(d.assocs, binary.BigEndian.Uint64(m[1:]))
	case m[0] == exitMsgClose && len(m) == 5:
		id := binary.BigEndian.Uint32(m[1:])
		if fd, ok := d.socks[id]; ok {
			unix.Close(fd)
			delete(d.socks, id)
		}
		for aid, a := range d.assocs {
			if a.sock == id {
				delete(d.assocs, aid)
			}
		}
		unix.Write(d.fd, m)
	}
	closeAll(fds)
}

// abortAll sends the ABORT of every association still listed.
func (d *exitDog) abortAll() {
	for _, a := range d.assocs {
		fd, ok := d.socks[a.sock]
		if !ok {
			continue
		}
		for _, dst := range a.dests {
			netio.SendOnSocket(fd, a.pkt, dst.to, dst.src)
		}
	}
}
