package sctp

import (
	"net"
	"sync"
	"syscall"

	usctp "github.com/usctp/usctp/sctp"
)

// SCTPListener accepts associations on an SCTP address.
type SCTPListener struct {
	ep      *usctp.Endpoint
	handler NotificationHandler
	init    InitMsg
	network string
	host    string
	port    int

	mu     sync.Mutex
	live   int  // accepted conns not yet closed
	closed bool // Close was called: the endpoint closes with the last accepted conn
}

// AcceptSCTP waits for the next association and returns it.
func (ln *SCTPListener) AcceptSCTP() (*SCTPConn, error) {
	ln.mu.Lock()
	closed := ln.closed
	ln.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	as, err := ln.ep.Accept()
	if err != nil {
		return nil, err
	}
	ln.mu.Lock()
	if ln.closed {
		ln.mu.Unlock()
		as.Abort("listener closed")
		return nil, net.ErrClosed
	}
	ln.live++
	ln.mu.Unlock()
	c := newConn(as, nil, ln.handler, ln.init)
	c.ln = ln
	return c, nil
}

// connClosed is called when an accepted conn closes.
func (ln *SCTPListener) connClosed() {
	ln.mu.Lock()
	ln.live--
	last := ln.closed && ln.live == 0
	ln.mu.Unlock()
	if last {
		ln.ep.Close()
	}
}

// Accept waits for the next association and returns it (an *SCTPConn).
func (ln *SCTPListener) Accept() (net.Conn, error) {
	c, err := ln.AcceptSCTP()
	if err != nil {
		return nil, err // not a typed nil
	}
	return c, nil
}

// Addr returns the listening address: the addresses given to Listen (the
// wildcard when none were) and the SCTP port.
func (ln *SCTPListener) Addr() net.Addr {
	a := &SCTPAddr{Port: ln.port}
	if ips, err := listHosts(ln.host); err == nil && len(ips) > 0 {
		a.IPAddrs = ips // IPv6 ones unbracketed: listHosts parses each
	} else if ln.network == "sctp4" {
		a.IPAddrs = []net.IPAddr{{IP: net.IPv4zero}}
	} else {
		a.IPAddrs = []net.IPAddr{{IP: net.IPv6zero}}
	}
	return a
}

// listHosts parses a host list of package usctp ("10.0.0.1,10.0.1.1").
func listHosts(host string) ([]net.IPAddr, error) {
	var ips []net.IPAddr
	for host != "" {
		h, rest, _ := cutComma(host)
		ip := net.ParseIP(h)
		if ip == nil {
			return nil, syscall.EINVAL
		}
		ips = append(ips, net.IPAddr{IP: ip})
		host = rest
	}
	return ips, nil
}

// Close stops accepting: associations that arrive from now on are
// aborted. Accepted ones stay open, as accepted kernel sockets do: the
// listener's endpoint closes with the last of them.
func (ln *SCTPListener) Close() error {
	ln.mu.Lock()
	if ln.closed {
		ln.mu.Unlock()
		return syscall.EBADF
	}
	ln.closed = true
	live := ln.live
	ln.mu.Unlock()
	if live == 0 {
		return ln.ep.Close()
	}
	go func() {
		for {
			as, err := ln.ep.Accept()
			if err != nil {
				return // the endpoint closed with its last conn
			}
			as.Abort("listener closed")
		}
	}()
	return nil
}

// SyscallConn fails with ErrUnsupported: there is no file descriptor.
func (ln *SCTPListener) SyscallConn() (syscall.RawConn, error) { return nil, ErrUnsupported }
