package netio

import "errors"

// Host groups: the processes of a host share a UDP encapsulation address
// and port, as the kernel serves the SCTP sockets of every process from
// one stack. Each process's socket of the address and port (the one its
// endpoints share, shared.go) is a member of the group, registers the
// SCTP ports its endpoints serve, and gets the datagrams of those ports;
// the datagrams of ports nobody serves go to the group's default member,
// whose endpoints answer them as the RFC says (an ABORT to an INIT for a
// port nobody listens on, RFC 9260 section 8.4). Linux only, and only for
// processes that may load BPF programs (portgroup_linux.go); the others
// bind their address and port alone, as before.

// bpffsRoot is where bpffs is mounted, and the host groups' maps pinned.
const bpffsRoot = "/sys/fs/bpf"

var (
	// errNoGroup is wrapped by groupAvailable's error when the process
	// cannot join host groups.
	errNoGroup = errors.New("this process cannot share a UDP port with other processes")
	// errServedElsewhere is hostGroup.claim's error for an SCTP port
	// another process of the group serves.
	errServedElsewhere = errors.New("served by another process")
)
