package sctp

import (
	"os"
	"syscall"
)

// netnsID returns the inode of the calling thread's network namespace (0
// if it cannot be read): the sockets the thread opens are in it.
func netnsID() uint64 {
	fi, err := os.Stat("/proc/thread-self/ns/net")
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
