// Package sctp is github.com/ishidawataru/sctp's API over usctp, a
// userspace SCTP stack: a module that one replace directive in a
// program's go.mod puts in the original's place, so that the program runs
// unchanged where the kernel has no SCTP.
//
//	replace github.com/ishidawataru/sctp => /path/to/usctp/sctp/compat/ishidawataru
//	replace github.com/usctp/usctp => /path/to/usctp
//
// The second line names usctp itself while it is not published.
//
// Every name is the one of package github.com/usctp/usctp/sctp/compat
// (types are aliases, functions call compat's), whose documentation says
// how each behaves and where it differs from the kernel's; compat's
// settings (compat.DefaultTransport, compat.UDPPort, the environment
// variables USCTP_TRANSPORT and USCTP_UDP_PORT) apply.
//
// # Differences from the original's API
//
// The package exports what the original exports on Linux, with the same
// types, signatures, constant values and struct layouts, and nothing more
// at the package level: a test compares the two with go/types and fails on
// any difference not listed here. The aliased SCTPConn brings compat's
// methods for what the original leaves to raw socket options
// (SCTP_PRIMARY_ADDR, SCTP_GET_PEER_ADDR_INFO, SCTP_PEER_ADDR_PARAMS,
// SCTP_PEER_ADDR_THLDS); their parameter types are compat's
// (compat.PeerAddrParams, compat.PeerAddrThlds):
//
//	added: method (*SCTPConn) GetPeerAddrInfo(*SCTPAddr) (*PeerAddrinfo, error)
//	added: method (*SCTPConn) GetPeerAddrParams(*SCTPAddr) (*PeerAddrParams, error)
//	added: method (*SCTPConn) GetPeerAddrThlds(*SCTPAddr) (*PeerAddrThlds, error)
//	added: method (*SCTPConn) SCTPSetPrimaryPeerAddr(*SCTPAddr) error
//	added: method (*SCTPConn) SetPeerAddrParams(*PeerAddrParams) error
//	added: method (*SCTPConn) SetPeerAddrThlds(*PeerAddrThlds) error
package sctp
