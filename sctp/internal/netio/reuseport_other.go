//go:build !linux

package netio

import (
	"errors"
	"syscall"
)

// reusePortControl: SO_REUSEPORT load balancing is Linux's.
func reusePortControl(network, address string, c syscall.RawConn) error {
	return errors.New("sctp: ReusePort is supported on Linux only")
}
