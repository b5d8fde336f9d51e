package netio

import "syscall"

// netnsID identifies the network namespace of the calling thread (the
// inode of /proc/thread-self/ns/net), so that sockets opened in different
// namespaces (tests, or a program that setns's a locked thread) are never
// taken for one another by the shared socket registry. 0 if unknown.
func netnsID() uint64 {
	var st syscall.Stat_t
	if syscall.Stat("/proc/thread-self/ns/net", &st) != nil {
		return 0
	}
	return st.Ino
}
