//go:build linux

package netio

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// reusePortControl sets SO_REUSEPORT on a socket before it binds, so that
// several sockets share one port and the kernel spreads the datagrams
// over them by a hash of their addresses and ports.
func reusePortControl(network, address string, c syscall.RawConn) error {
	return setReusePort(c, true)
}

// setReusePort sets or clears SO_REUSEPORT on a socket. On a bound socket
// it rules whether a socket bound later may share or overlap its address
// and port: the kernel lets a bind through only when both sockets have it.
func setReusePort(c syscall.RawConn, on bool) error {
	v := 0
	if on {
		v = 1
	}
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, v)
	})
	if err != nil {
		return err
	}
	return serr
}
