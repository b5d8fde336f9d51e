//go:build linux

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/ishidawataru/sctp"
	"golang.org/x/sys/unix"
)

// opts are the socket and traffic options of a listen or dial command.
type opts struct {
	mode               string // echo, sink or source
	ostreams, istreams int
	sched              int
	hasSched           bool
	intl, reset        bool
	buf                int
	encap              int
	log                bool
	count, streams     int
	sizes              []int
	ppid               uint32
	unordered          string // 0, 1 or alt
	expect             int
	then               string   // wait, close or abort
	pr                 []prInfo // partial reliability of the messages sent (message i: pr[i%len])
	auth               authOpts // AUTH chunks, HMACs and key (auth.go)
	paddr              bool     // report SCTP_PEER_ADDR_CHANGE notifications (multihome.go)
}

func parseOpts(a *args, defMode string) opts {
	o := opts{
		mode:      a.str("mode", defMode),
		ostreams:  a.int("ostreams", 65535, 1, 65535),
		istreams:  a.int("istreams", 65535, 1, 65535),
		intl:      a.str("intl", "0") == "1",
		reset:     a.str("reset", "0") == "1",
		buf:       a.int("buf", 0, 0, 1<<30),
		encap:     a.int("encap", 0, 0, 65535),
		log:       a.str("log", "1") != "0",
		count:     a.int("count", 0, 0, 1<<30),
		streams:   a.int("streams", 1, 1, 65535),
		sizes:     a.ints("size", []int{100}, 0, 64<<20),
		ppid:      uint32(a.int("ppid", 0, 0, 1<<31-1)),
		unordered: a.str("unordered", "0"),
		expect:    a.int("expect", 0, 0, 1<<30),
		then:      a.str("then", "wait"),
		paddr:     a.str("paddr", "0") == "1",
	}
	o.sched, o.hasSched = a.sched()
	o.pr = a.prinfo()
	o.auth = parseAuthOpts(a)
	switch o.mode {
	case "echo", "sink", "source":
	default:
		if a.err == nil {
			a.err = fmt.Errorf("mode=%q: want echo, sink or source", o.mode)
		}
	}
	return o
}

// control sets the options that must be in place before bind, listen or connect.
func (o *opts) control(fd int) error {
	if o.buf > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, o.buf); err != nil {
			return err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, o.buf); err != nil {
			return err
		}
	}
	if err := subscribeEvents(fd, o.paddr); err != nil {
		return err
	}
	if o.intl {
		if err := setInterleaving(fd); err != nil {
			return err
		}
	}
	if o.reset {
		if err := setAssocValue(fd, optEnableStreamReset, sctpEnableStreamResetAllOn); err != nil {
			return fmt.Errorf("SCTP_ENABLE_STREAM_RESET: %w", err)
		}
	}
	if o.hasSched {
		if err := setAssocValue(fd, optStreamScheduler, uint32(o.sched)); err != nil {
			return fmt.Errorf("SCTP_STREAM_SCHEDULER %d: %w", o.sched, err)
		}
	}
	if err := o.auth.set(fd); err != nil {
		return err
	}
	if o.encap > 0 {
		if err := setRemoteEncapsPort(fd, uint16(o.encap)); err != nil {
			return fmt.Errorf("SCTP_REMOTE_UDP_ENCAPS_PORT: %w", err)
		}
	}
	return nil
}

func (o *opts) socketConfig() sctp.SocketConfig {
	return sctp.SocketConfig{
		InitMsg: sctp.InitMsg{NumOstreams: uint16(o.ostreams), MaxInstreams: uint16(o.istreams)},
		Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			if cerr := c.Control(func(fd uintptr) { err = o.control(int(fd)) }); cerr != nil {
				return cerr
			}
			return err
		},
	}
}

func (p *peer) listen(id string, a *args) error {
	o := parseOpts(a, "echo")
	laddr, err := sctpAddrs(a.str("addr", "0.0.0.0"), a.int("port", 0, 0, 65535))
	if a.err != nil || err != nil {
		return errors.Join(a.err, err)
	}
	cfg := o.socketConfig()
	ln, err := cfg.Listen("sctp4", laddr)
	if err != nil {
		return fmt.Errorf("listen %v: %w", laddr, err)
	}
	port := laddr.Port
	if la, ok := ln.Addr().(*sctp.SCTPAddr); ok && la != nil {
		port = la.Port
	}
	p.printf("READY id=%s port=%d", id, port)
	go func() {
		for {
			c, err := ln.AcceptSCTP()
			if err != nil {
				p.printf("ERR id=%s cmd=accept err=%q", id, err.Error())
				return
			}
			p.start(id, "ACCEPT", c, o)
		}
	}()
	return nil
}

func (p *peer) dial(id string, a *args) error {
	o := parseOpts(a, "source")
	raddr, err := sctpAddrs(a.str("addr", ""), a.int("port", 0, 1, 65535))
	var laddr *sctp.SCTPAddr
	if b := a.str("bind", ""); b != "" && err == nil {
		laddr, err = sctpAddrs(b, 0)
	}
	if a.err != nil || err != nil {
		return errors.Join(a.err, err)
	}
	cfg := o.socketConfig()
	c, err := cfg.Dial("sctp4", laddr, raddr)
	if err != nil {
		return fmt.Errorf("dial %v: %w", raddr, err)
	}
	p.start(id, "CONNECTED", c, o)
	return nil
}

// conn is one association (a one-to-one style socket).
type conn struct {
	p    *peer
	id   string
	n    int
	c    *sctp.SCTPConn
	fd   int
	o    opts
	mu   sync.Mutex
	got  int // messages received
	cond *sync.Cond
	// shutdownDone is set by the SHUTDOWN_COMP notification: the association ended
	// gracefully, and the ENOTCONN that follows is the end of the stream.
	shutdownDone bool
	aborted      bool // abort was asked for: the reader's close sends the ABORT
}

func (p *peer) start(id, verb string, c *sctp.SCTPConn, o opts) {
	fd := -1
	if rc, err := c.SyscallConn(); err == nil {
		rc.Control(func(f uintptr) { fd = int(f) })
	}
	p.mu.Lock()
	cn := &conn{p: p, id: id, n: len(p.conns[id]) + 1, c: c, fd: fd, o: o}
	cn.cond = sync.NewCond(&cn.mu)
	p.conns[id] = append(p.conns[id], cn)
	p.mu.Unlock()
	subscribeEvents(fd, o.paddr)
	st, err := getStatus(fd)
	peerAddr := "?"
	if ra := c.RemoteAddr(); ra != nil {
		peerAddr = ra.String()
	}
	if err != nil {
		p.printf("%s id=%s conn=%d peer=%s err=%q", verb, id, cn.n, peerAddr, err.Error())
	} else {
		p.printf("%s id=%s conn=%d peer=%s ostreams=%d istreams=%d", verb, id, cn.n, peerAddr, st.outStreams, st.inStreams)
	}
	go cn.read()
	if o.mode == "source" {
		go cn.source()
	}
}

func (p *peer) find(id string, a *args) (*conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := p.conns[id]
	if len(cs) == 0 {
		return nil, fmt.Errorf("no connection %q", id)
	}
	n := a.int("conn", len(cs), 1, len(cs))
	return cs[n-1], nil
}

// payload fills b with message i's deterministic content.
func payload(b []byte, i int) {
	for j := range b {
		b[j] = byte(i*7 + j)
	}
}

// write sends b as one message; i picks its partial reliability (opts.pr).
func (cn *conn) write(b []byte, sid uint16, ppid uint32, unordered bool, i int) error {
	pr := cn.o.pr[i%len(cn.o.pr)]
	info := &sctp.SndRcvInfo{Stream: sid, PPID: ppid, Flags: pr.policy, TTL: pr.value}
	if unordered {
		info.Flags |= sctpUnordered
	}
	_, err := cn.c.SCTPWrite(b, info)
	return err
}

// source sends the configured messages, waits for the expected replies, then closes,
// aborts or keeps the association as configured.
func (cn *conn) source() {
	o := cn.o
	var buf []byte
	total := 0
	for i := 0; i < o.count; i++ {
		size := o.sizes[i%len(o.sizes)]
		if cap(buf) < size {
			buf = make([]byte, size)
		}
		b := buf[:size]
		payload(b, i)
		sid := uint16(i % o.streams)
		unordered := o.unordered == "1" || (o.unordered == "alt" && i%2 == 1)
		if err := cn.write(b, sid, o.ppid+uint32(sid), unordered, i); err != nil {
			cn.p.printf("ERR id=%s conn=%d cmd=source msg=%d err=%q", cn.id, cn.n, i, err.Error())
			return
		}
		total += size
	}
	cn.p.printf("SENT id=%s conn=%d msgs=%d bytes=%d", cn.id, cn.n, o.count, total)
	cn.mu.Lock()
	for cn.got < o.expect && cn.fd >= 0 {
		cn.cond.Wait()
	}
	cn.mu.Unlock()
	switch o.then {
	case "close":
		cn.shutdown()
	case "abort":
		cn.abort()
	}
}

func (cn *conn) shutdown() error { return unix.Shutdown(cn.fd, unix.SHUT_WR) }

// abort ends the association with an ABORT. A one-to-one socket refuses sendmsg's
// SCTP_ABORT flag, and closing the descriptor under the reader's recvmsg would wait for
// it, so abort sets a zero linger time (close then aborts, RFC 6458 section 8.1.4) and
// shuts the receiving side down, which wakes the reader; the reader closes.
func (cn *conn) abort() error {
	if err := unix.SetsockoptLinger(cn.fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0}); err != nil {
		return err
	}
	cn.mu.Lock()
	cn.aborted = true
	cn.mu.Unlock()
	return unix.Shutdown(cn.fd, unix.SHUT_RD)
}

// partial is a message being received in parts (MSG_EOR not yet seen).
type partial struct {
	msg []byte // the message so far, kept only in echo mode
	n   int    // its length so far
	crc uint32 // CRC32 of the message so far
}

// partKey names the message a part belongs to: with fragment interleave (level 2,
// I-DATA) Linux hands out parts of messages of different streams, and of a stream's
// ordered and unordered messages, interleaved.
type partKey struct {
	sid       uint16
	unordered bool
}

// read receives messages until the association ends, logging each (MSG) and echoing
// it in echo mode.
func (cn *conn) read() {
	buf := make([]byte, 256<<10)
	oob := make([]byte, 256)
	parts := map[partKey]*partial{}
	var msgs, bytes int
	var all uint32 // CRC32 of every byte received
	end := "eof"
	for {
		n, oobn, flags, _, err := unix.Recvmsg(cn.fd, buf, oob, 0)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			if err == unix.ENOTCONN && cn.shutdownDone {
				break
			}
			end = "error err=" + fmt.Sprintf("%q", err.Error())
			break
		}
		if flags&msgNotification != 0 {
			cn.event(buf[:n])
			continue
		}
		if n == 0 && oobn == 0 {
			break
		}
		sid, ssn, ppid, unordered := sndRcvInfo(oob[:oobn])
		k := partKey{sid, unordered}
		pt := parts[k]
		if pt == nil {
			pt = &partial{}
			parts[k] = pt
		}
		pt.n += n
		pt.crc = crc32.Update(pt.crc, crc32.IEEETable, buf[:n])
		all = crc32.Update(all, crc32.IEEETable, buf[:n])
		if cn.o.mode == "echo" {
			pt.msg = append(pt.msg, buf[:n]...)
		}
		if flags&unix.MSG_EOR == 0 {
			continue
		}
		if cn.o.log {
			u := 0
			if unordered {
				u = 1
			}
			cn.p.printf("MSG id=%s conn=%d sid=%d ppid=%d len=%d unordered=%d crc=%08x ssn=%d",
				cn.id, cn.n, sid, ppid, pt.n, u, pt.crc, ssn)
		}
		if cn.o.mode == "echo" {
			if err := cn.write(pt.msg, sid, ppid, unordered, 0); err != nil {
				cn.p.printf("ERR id=%s conn=%d cmd=echo err=%q", cn.id, cn.n, err.Error())
			}
		}
		msgs++
		bytes += pt.n
		delete(parts, k)
		cn.mu.Lock()
		cn.got++
		cn.cond.Broadcast()
		cn.mu.Unlock()
	}
	cn.mu.Lock()
	if cn.aborted {
		end = "abort"
	}
	cn.mu.Unlock()
	cn.p.printf("DONE id=%s conn=%d msgs=%d bytes=%d crc=%08x end=%s", cn.id, cn.n, msgs, bytes, all, end)
	cn.mu.Lock()
	unix.Close(cn.fd)
	cn.fd = -1
	cn.cond.Broadcast()
	cn.mu.Unlock()
}

// sndRcvInfo reads stream id, SSN, PPID and the unordered flag from the SCTP_SNDRCV
// ancillary data (struct sctp_sndrcvinfo; the PPID is kept in network byte order).
func sndRcvInfo(oob []byte) (sid, ssn uint16, ppid uint32, unordered bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, 0, 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == solSCTP && m.Header.Type == sctpCmsgSndRcv && len(m.Data) >= sizeofSndRcvInfo {
			d := m.Data
			return binary.NativeEndian.Uint16(d[0:]), binary.NativeEndian.Uint16(d[2:]),
				binary.BigEndian.Uint32(d[8:]), binary.NativeEndian.Uint16(d[4:])&sctpUnordered != 0
		}
	}
	return 0, 0, 0, false
}

var assocStates = []string{"comm_up", "comm_lost", "restart", "shutdown_comp", "cant_start"}

// event prints a notification.
func (cn *conn) event(b []byte) {
	if len(b) < 8 {
		return
	}
	typ := binary.NativeEndian.Uint16(b)
	switch typ {
	case sctpAssocChange:
		if len(b) < 16 {
			return
		}
		st := int(binary.NativeEndian.Uint16(b[8:]))
		name := fmt.Sprint(st)
		if st == 3 {
			cn.shutdownDone = true
		}
		if st < len(assocStates) {
			name = assocStates[st]
		}
		cn.p.printf("EVENT id=%s conn=%d type=assoc_change state=%s error=%d ostreams=%d istreams=%d",
			cn.id, cn.n, name, binary.NativeEndian.Uint16(b[10:]),
			binary.NativeEndian.Uint16(b[12:]), binary.NativeEndian.Uint16(b[14:]))
	case sctpShutdownEvent:
		cn.p.printf("EVENT id=%s conn=%d type=shutdown", cn.id, cn.n)
	case sctpPeerAddrChange:
		cn.paddrEvent(b)
	case sctpRemoteError:
		cn.p.printf("EVENT id=%s conn=%d type=remote_error", cn.id, cn.n)
	case sctpSendFailed:
		cn.p.printf("EVENT id=%s conn=%d type=send_failed", cn.id, cn.n)
	case sctpPartialDeliveryEvent:
		cn.p.printf("EVENT id=%s conn=%d type=partial_delivery", cn.id, cn.n)
	case sctpStreamResetEvent: // flags: 1 incoming, 2 outgoing, 4 denied, 8 failed
		cn.p.printf("EVENT id=%s conn=%d type=stream_reset flags=%#x", cn.id, cn.n, binary.NativeEndian.Uint16(b[2:]))
	case sctpAssocResetEvent: // struct sctp_assoc_reset_event; flags: 4 denied, 8 failed
		if len(b) < 20 {
			return
		}
		cn.p.printf("EVENT id=%s conn=%d type=assoc_reset flags=%#x local_tsn=%d remote_tsn=%d", cn.id, cn.n,
			binary.NativeEndian.Uint16(b[2:]), binary.NativeEndian.Uint32(b[12:]), binary.NativeEndian.Uint32(b[16:]))
	case sctpStreamChangeEvent: // struct sctp_stream_change_event
		if len(b) < 16 {
			return
		}
		cn.p.printf("EVENT id=%s conn=%d type=stream_change flags=%#x istreams=%d ostreams=%d", cn.id, cn.n,
			binary.NativeEndian.Uint16(b[2:]), binary.NativeEndian.Uint16(b[12:]), binary.NativeEndian.Uint16(b[14:]))
	default:
		cn.p.printf("EVENT id=%s conn=%d type=%#x", cn.id, cn.n, typ)
	}
}

func (p *peer) send(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	sid := a.int("sid", 0, 0, 65535)
	ppid := uint32(a.int("ppid", 0, 0, 1<<31-1))
	n := a.int("len", 1, 0, 64<<20)
	seq := a.int("seq", 0, 0, 1<<30)
	if a.err != nil {
		return a.err
	}
	b := make([]byte, n)
	payload(b, seq)
	if err := cn.write(b, uint16(sid), ppid, a.str("unordered", "0") == "1", 0); err != nil {
		return err
	}
	p.printf("SENT id=%s conn=%d msgs=1 bytes=%d crc=%08x", id, cn.n, n, crc32.ChecksumIEEE(b))
	return nil
}

func (p *peer) closeConn(id, verb string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	if verb == "abort" {
		if err := cn.abort(); err != nil {
			return err
		}
		p.printf("ABORTED id=%s conn=%d", id, cn.n)
		return nil
	}
	if err := cn.shutdown(); err != nil {
		return err
	}
	p.printf("CLOSED id=%s conn=%d", id, cn.n)
	return nil
}

// status reports the association's SCTP_STATUS: its unacknowledged and pending DATA
// chunks and its primary path's congestion window, smoothed RTT and MTU.
func (p *peer) status(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	st, err := getStatus(cn.fd)
	if err != nil {
		return err
	}
	p.printf("STATUS id=%s conn=%d unack=%d pending=%d cwnd=%d srtt=%d mtu=%d", id, cn.n, st.unack, st.pending, st.cwnd, st.srtt, st.mtu)
	return nil
}

func (p *peer) prio(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	sid, v := a.int("sid", 0, 0, 65535), a.int("value", 0, 0, 65535)
	if a.err != nil {
		return a.err
	}
	if err := setStreamValue(cn.fd, uint16(sid), uint16(v)); err != nil {
		return err
	}
	p.printf("OK cmd=prio id=%s", id)
	return nil
}

// resetStreams asks for a stream reset (RFC 6525, SCTP_RESET_STREAMS): struct
// sctp_reset_streams with the flags SCTP_STREAM_RESET_INCOMING (1) and _OUTGOING (2).
func (p *peer) resetStreams(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	sids := a.ints("sids", nil, 0, 65535)
	var flags uint16
	switch a.str("dir", "out") {
	case "in":
		flags = 1
	case "out":
		flags = 2
	case "both":
		flags = 3
	default:
		return fmt.Errorf("dir=%q: want in, out or both", a.str("dir", ""))
	}
	if a.err != nil {
		return a.err
	}
	b := make([]byte, 8+2*len(sids))
	binary.NativeEndian.PutUint16(b[4:], flags)
	binary.NativeEndian.PutUint16(b[6:], uint16(len(sids)))
	for i, s := range sids {
		binary.NativeEndian.PutUint16(b[8+2*i:], uint16(s))
	}
	if err := setRawRetry(cn.fd, optResetStreams, unsafe.Pointer(&b[0]), uintptr(len(b))); err != nil {
		return err
	}
	p.printf("OK cmd=reset id=%s conn=%d", id, cn.n)
	return nil
}

// setRawRetry is setRaw for the RFC 6525 requests, which Linux refuses for a while:
// with EINPROGRESS while a reconfiguration request of its own is outstanding (one
// answering ours, for example), and SCTP_RESET_ASSOC with EAGAIN while its data is
// unacknowledged. kpeer tries again for up to 5 seconds.
func setRawRetry(fd, opt int, v unsafe.Pointer, n uintptr) error {
	for try := 0; ; try++ {
		err := setRaw(fd, opt, v, n)
		if err == nil || !(errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINPROGRESS)) || try == 500 {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// resetAssoc asks for an SSN/TSN reset (RFC 6525 section 5.1.4,
// SCTP_RESET_ASSOC; the value is the association id, ignored on a
// one-to-one socket).
func (p *peer) resetAssoc(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	if a.err != nil {
		return a.err
	}
	var assoc int32
	if err := setRawRetry(cn.fd, optResetAssoc, unsafe.Pointer(&assoc), unsafe.Sizeof(assoc)); err != nil {
		return err
	}
	p.printf("OK cmd=resetassoc id=%s conn=%d", id, cn.n)
	return nil
}

// addStreams asks for more streams (RFC 6525, SCTP_ADD_STREAMS): struct sctp_add_streams.
func (p *peer) addStreams(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	in, out := a.int("in", 0, 0, 65535), a.int("out", 0, 0, 65535)
	if a.err != nil {
		return a.err
	}
	var b [8]byte
	binary.NativeEndian.PutUint16(b[4:], uint16(in))
	binary.NativeEndian.PutUint16(b[6:], uint16(out))
	if err := setRawRetry(cn.fd, optAddStreams, unsafe.Pointer(&b[0]), 8); err != nil {
		return err
	}
	p.printf("OK cmd=addstreams id=%s conn=%d", id, cn.n)
	return nil
}
