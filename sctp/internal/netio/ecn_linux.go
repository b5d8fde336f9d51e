//go:build linux

package netio

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// setECT0 sets the socket's outgoing ECN field to ECT(0), keeping the
// DSCP bits: IP_TOS for IPv4 (and the IPv4 traffic of a dual-stack
// socket), IPV6_TCLASS for IPv6.
func setECT0(rc syscall.RawConn) error {
	v6, err := socketIsV6(rc)
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		set := func(level, opt int) error {
			v, err := unix.GetsockoptInt(int(fd), level, opt)
			if err != nil {
				return err
			}
			return unix.SetsockoptInt(int(fd), level, opt, v&^3|ECT0)
		}
		if v6 {
			if serr = set(unix.IPPROTO_IPV6, unix.IPV6_TCLASS); serr != nil {
				return
			}
			_ = set(unix.IPPROTO_IP, unix.IP_TOS) // an IPv6-only socket may refuse
			return
		}
		serr = set(unix.IPPROTO_IP, unix.IP_TOS)
	})
	if err == nil {
		err = serr
	}
	return err
}
