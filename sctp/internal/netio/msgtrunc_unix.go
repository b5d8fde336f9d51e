//go:build unix

package netio

import "syscall"

// msgTrunc is the recvmsg flag of a datagram cut short by the buffer.
const msgTrunc = syscall.MSG_TRUNC
