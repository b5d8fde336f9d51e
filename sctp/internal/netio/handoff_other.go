//go:build !linux

package netio

import (
	"errors"
	"net/netip"
)

// DupSocket returns an error matching errors.ErrUnsupported outside
// Linux: no socket is handed to another process there.
func DupSocket(c Conn) (int, error) {
	return -1, errors.ErrUnsupported
}

// SendOnSocket returns an error matching errors.ErrUnsupported outside
// Linux.
func SendOnSocket(fd int, pkt []byte, dst netip.AddrPort, src netip.Addr) error {
	return errors.ErrUnsupported
}
