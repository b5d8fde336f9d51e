//go:build !linux

package netio

import (
	"errors"
	"syscall"
)

// errReusePort: SO_REUSEPORT's load balancing and overlapping binds are
// Linux's.
var errReusePort = errors.New("sctp: ReusePort is supported on Linux only")

// reusePortControl: SO_REUSEPORT load balancing is Linux's.
func reusePortControl(network, address string, c syscall.RawConn) error { return errReusePort }

// setReusePort: overlapping binds are Linux's.
func setReusePort(c syscall.RawConn, on bool) error { return errReusePort }
