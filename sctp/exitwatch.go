package sctp

import (
	"encoding/binary"
	"net/netip"
	"sync/atomic"
)

// The exit watchdog (Config.AbortOnExit).
//
// A process that ends without closing its associations (os.Exit from a
// signal handler, SIGKILL, a crash) sends nothing: its peers learn of it
// only when their heartbeats go unanswered, tens of seconds later. The
// kernel's SCTP sends SHUTDOWN or ABORT as it closes the dead process's
// sockets; a userspace stack has nobody left to do it, and nothing in
// the process can run after os.Exit. So a second process does it: the
// first endpoint with AbortOnExit re-executes the program's own binary
// (/proc/self/exe) with the environment variable exitWatchEnv set, and
// package sctp's init turns that process into the watchdog before the
// program's main package is initialized (exitwatchdog_linux.go). The two
// are joined by a Unix socket pair: over it the watchdog receives a duplicate
// of each endpoint's socket (SCM_RIGHTS) and, for each association, the
// ABORT packet that ends it (assoc.Assoc.AppendAbortPacket) and where to
// send it; when the process ends, however it ends, the kernel closes its
// end of the pair and the watchdog reads EOF, sends every ABORT it holds
// from the endpoints' own sockets, and exits.
//
// The messages, each one SOCK_SEQPACKET datagram from the process:
//
//	'S' sock:u32                        a socket (its descriptor attached)
//	'A' id:u64 sock:u32 n:u8 dest*n pkt an association's ABORT, to each dest
//	'D' id:u64                          the association ended
//	'C' sock:u32                        the socket closes: answered 'C' sock
//
// A dest is the peer's address as netip.AddrPort's binary form and the
// source address to send from (netip.Addr's; empty: the kernel chooses),
// each after a length byte. An 'A' for an id already listed replaces it
// (the peer restarted: new tags; a peer address changed; another AUTH
// key).

// exitWatchEnv is the environment variable that makes a process the exit
// watchdog of its parent: "v1:FD", FD its end of the socket pair.
const exitWatchEnv = "USCTP_EXIT_WATCHDOG"

// exitReason is the Upper Layer Abort Reason of the watchdog's ABORTs.
const exitReason = "process exited"

// The kinds of message to the watchdog.
const (
	exitMsgSocket = 'S'
	exitMsgAssoc  = 'A'
	exitMsgDelete = 'D'
	exitMsgClose  = 'C'
)

// maxExitDests bounds the destinations of one association's ABORT.
const maxExitDests = 16

// exitAssocIDs numbers the associations the watchdog is told of.
var exitAssocIDs atomic.Uint64

// exitReg is an endpoint's socket as registered with the exit watchdog.
type exitReg struct {
	w    *exitWatch // nil: not registered
	sock uint32
}

// exitNoteAssoc tells the watchdog how to abort as, established, after a
// restart or a change of the peer's addresses. Called with e.mu held.
func (e *Endpoint) exitNoteAssoc(as *Association) {
	if e.exit.w == nil || as.closed {
		return
	}
	if as.exitID == 0 {
		as.exitID = exitAssocIDs.Add(1)
	}
	msg := []byte{exitMsgAssoc}
	msg = binary.BigEndian.AppendUint64(msg, as.exitID)
	msg = binary.BigEndian.AppendUint32(msg, e.exit.sock)
	at := len(msg)
	msg = append(msg, 0)
	n := 0
	for _, p := range as.core.Paths(nil) {
		if n == maxExitDests {
			break
		}
		dst := p.Addr
		if !e.rawIP && dst.Port() == 0 {
			dst = netip.AddrPortFrom(dst.Addr(), e.cfg.RemoteUDPPort)
		}
		var src netip.Addr
		if e.multihome.choosesSource() {
			src = e.multihome.source(dst.Addr())
		}
		msg = appendExitAddr(msg, dst.AppendBinary)
		msg = appendExitAddr(msg, src.AppendBinary)
		n++
	}
	msg[at] = byte(n)
	before := len(msg)
	if msg = as.core.AppendAbortPacket(msg, []byte(exitReason)); len(msg) == before || n == 0 {
		return
	}
	e.exit.w.send(msg, -1)
}

// appendExitAddr appends an address in binary form after its length.
func appendExitAddr(b []byte, appendBinary func([]byte) ([]byte, error)) []byte {
	at := len(b)
	b, _ = appendBinary(append(b, 0))
	b[at] = byte(len(b) - at - 1)
	return b
}

// exitForget tells the watchdog that as ended. Called with e.mu held.
func (e *Endpoint) exitForget(as *Association) {
	if e.exit.w == nil || as.exitID == 0 {
		return
	}
	msg := binary.BigEndian.AppendUint64([]byte{exitMsgDelete}, as.exitID)
	as.exitID = 0
	e.exit.w.send(msg, -1)
}

// exitAssoc is an association as the watchdog holds it.
type exitAssoc struct {
	sock  uint32
	dests []exitDest
	pkt   []byte
}

// exitDest is where the watchdog sends an association's ABORT.
type exitDest struct {
	to  netip.AddrPort
	src netip.Addr
}

// parseExitAssoc parses the body of an 'A' message (after its kind): the
// association's id and what to send where. ok is false for a malformed
// message.
func parseExitAssoc(b []byte) (id uint64, a exitAssoc, ok bool) {
	if len(b) < 13 {
		return 0, a, false
	}
	id, a.sock = binary.BigEndian.Uint64(b), binary.BigEndian.Uint32(b[8:])
	n := int(b[12])
	b = b[13:]
	for range n {
		var d exitDest
		var to, src []byte
		if to, b, ok = cutExitAddr(b); !ok {
			return 0, a, false
		}
		if src, b, ok = cutExitAddr(b); !ok {
			return 0, a, false
		}
		if d.to.UnmarshalBinary(to) != nil || d.src.UnmarshalBinary(src) != nil {
			return 0, a, false
		}
		a.dests = append(a.dests, d)
	}
	a.pkt = b
	return id, a, len(b) > 0
}

// cutExitAddr returns the address in binary form at the start of b (after
// its length byte) and the rest of b.
func cutExitAddr(b []byte) (addr, rest []byte, ok bool) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return nil, nil, false
	}
	n := int(b[0])
	return b[1 : 1+n], b[1+n:], true
}
