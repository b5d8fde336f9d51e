//go:build linux

package netio

import (
	"errors"
	"net/netip"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// HostAddrs keeps the list of the host's IP addresses, as a wildcard-bound
// socket receives on them: those of every interface, in the network
// namespace the list was opened in (a netlink socket belongs to the
// namespace that made it), whichever thread asks later. The list is read
// with an RTM_GETADDR dump when opened, and again only after the kernel
// announced a change: the socket is subscribed to the address groups, so
// Addrs costs one non-blocking read every hostAddrsRecheck while nothing
// changes (the socket is non-blocking; a dump waits in poll).
type HostAddrs struct {
	mu      sync.Mutex
	fd      int
	seq     uint32
	addrs   []netip.Addr
	stale   bool // a change was announced: dump again
	closed  bool
	buf     []byte
	dumps   int       // dumps done (tests)
	checked time.Time // when the notifications were last read
}

// hostAddrsRecheck is how long Addrs trusts its list before it reads the
// notifications again: under a flood of INITs a system call each would
// double the cost of an answer, and a change shows within this time.
const hostAddrsRecheck = 50 * time.Millisecond

// NewHostAddrs opens the list in the calling thread's network namespace.
func NewHostAddrs() (*HostAddrs, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: unix.RTMGRP_IPV4_IFADDR | unix.RTMGRP_IPV6_IFADDR}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, err
	}
	h := &HostAddrs{fd: fd, stale: true, buf: make([]byte, 64<<10)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.refresh(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return h, nil
}

// Addrs returns the host's addresses (IPv6 link-local ones with their
// interface index as zone, as netio's packets carry them). The slice is
// the list's own until the next call: the caller does not modify it.
func (h *HostAddrs) Addrs() []netip.Addr {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	if now := time.Now(); h.stale || now.Sub(h.checked) >= hostAddrsRecheck {
		h.checked = now
		h.drain()
	}
	if h.stale {
		h.refresh() // on failure the old list stays, marked stale
	}
	return h.addrs
}

// Dumps returns how many times the list was read from the kernel.
func (h *HostAddrs) Dumps() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dumps
}

// Close closes the netlink socket.
func (h *HostAddrs) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	return unix.Close(h.fd)
}

// drain reads the notifications queued on the socket: any address change
// (or a lost one: ENOBUFS) makes the list stale.
func (h *HostAddrs) drain() {
	for {
		n, err := unix.Read(h.fd, h.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if err != unix.EAGAIN {
				h.stale = true // ENOBUFS: notifications were lost
			}
			return
		}
		if n > 0 {
			h.stale = true
		}
	}
}

// refresh reads the whole list with an RTM_GETADDR dump.
func (h *HostAddrs) refresh() error {
	h.seq++
	h.dumps++
	req := struct {
		hdr unix.NlMsghdr
		msg unix.IfAddrmsg
	}{
		hdr: unix.NlMsghdr{Type: unix.RTM_GETADDR, Flags: unix.NLM_F_REQUEST | unix.NLM_F_DUMP, Seq: h.seq},
		msg: unix.IfAddrmsg{Family: unix.AF_UNSPEC},
	}
	req.hdr.Len = uint32(unsafe.Sizeof(req))
	b := (*[unsafe.Sizeof(req)]byte)(unsafe.Pointer(&req))[:]
	if err := unix.Sendto(h.fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	h.stale = false
	var addrs []netip.Addr
	for {
		n, err := unix.Read(h.fd, h.buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			// The kernel writes a dump's parts as they are read; wait
			// for the next (a second at most).
			fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
			if k, perr := unix.Poll(fds, 1000); perr == unix.EINTR || k > 0 {
				continue
			} else if perr == nil {
				err = unix.ETIMEDOUT
			} else {
				err = perr
			}
		}
		if err != nil {
			h.stale = true
			return err
		}
		done, err := h.parse(h.buf[:n], &addrs)
		if err != nil {
			h.stale = true
			return err
		}
		if done {
			h.addrs = addrs
			return nil
		}
	}
}

// parse reads one datagram of the socket: the dump's addresses into
// addrs, reporting the dump's end; a notification makes the list stale.
func (h *HostAddrs) parse(b []byte, addrs *[]netip.Addr) (done bool, err error) {
	for len(b) >= unix.SizeofNlMsghdr {
		hdr := (*unix.NlMsghdr)(unsafe.Pointer(&b[0]))
		l := int(hdr.Len)
		if l < unix.SizeofNlMsghdr || l > len(b) {
			return false, errors.New("netio: malformed netlink message")
		}
		m := b[unix.SizeofNlMsghdr:l]
		b = b[min(len(b), (l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)):]
		if hdr.Seq != h.seq || hdr.Pid == 0 && hdr.Seq == 0 {
			h.stale = true // a notification, not the dump's
			continue
		}
		switch hdr.Type {
		case unix.NLMSG_DONE:
			return true, nil
		case unix.NLMSG_ERROR:
			if len(m) >= 4 {
				if e := *(*int32)(unsafe.Pointer(&m[0])); e != 0 {
					return false, unix.Errno(-e)
				}
			}
			return true, nil
		case unix.RTM_NEWADDR:
			if ip, ok := parseIfAddr(m); ok {
				*addrs = append(*addrs, ip)
			}
		}
	}
	return false, nil
}

// parseIfAddr returns the local address of an RTM_NEWADDR message body,
// unless it cannot be used yet (tentative: duplicate address detection is
// running) or at all (DAD failed).
func parseIfAddr(m []byte) (netip.Addr, bool) {
	if len(m) < unix.SizeofIfAddrmsg {
		return netip.Addr{}, false
	}
	ifa := (*unix.IfAddrmsg)(unsafe.Pointer(&m[0]))
	flags := uint32(ifa.Flags)
	var local, addr netip.Addr
	for a := m[unix.SizeofIfAddrmsg:]; len(a) >= unix.SizeofRtAttr; {
		rta := (*unix.RtAttr)(unsafe.Pointer(&a[0]))
		l := int(rta.Len)
		if l < unix.SizeofRtAttr || l > len(a) {
			break
		}
		v := a[unix.SizeofRtAttr:l]
		switch rta.Type {
		case unix.IFA_LOCAL:
			local, _ = netip.AddrFromSlice(v)
		case unix.IFA_ADDRESS:
			addr, _ = netip.AddrFromSlice(v)
		case unix.IFA_FLAGS:
			if len(v) >= 4 {
				flags = *(*uint32)(unsafe.Pointer(&v[0]))
			}
		}
		a = a[min(len(a), (l+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1)):]
	}
	// IFA_LOCAL is the interface's own address (IFA_ADDRESS the peer's
	// on a point-to-point link); IPv6 gives only IFA_ADDRESS.
	ip := local
	if !ip.IsValid() {
		ip = addr
	}
	if !ip.IsValid() || flags&(unix.IFA_F_TENTATIVE|unix.IFA_F_DADFAILED) != 0 {
		return netip.Addr{}, false
	}
	ip = ip.Unmap()
	if ip.Is6() && ip.IsLinkLocalUnicast() {
		ip = ip.WithZone(strconv.FormatUint(uint64(ifa.Index), 10))
	}
	return ip, true
}
