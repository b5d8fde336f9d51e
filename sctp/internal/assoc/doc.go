// Package assoc is the sans-I/O SCTP association and endpoint (RFC 9260
// and the extensions usctp implements): every protocol decision of an
// association, and none of its I/O. It owns no socket, goroutine, lock or
// clock (the layering tests check it); package sctp wraps it with all
// four.
//
// # Driving an endpoint
//
// An Endpoint is a state machine fed with the current time by its one
// owner, which serializes every call:
//
//	ep := assoc.NewEndpoint(cfg, now)
//	a, err := ep.Connect(now, peer, localPort, peerPort) // or a COOKIE ECHO creates one
//	ep.Receive(now, from, packet)                        // a packet from the network
//	ep.Expire(now)                                       // when now reaches ep.Deadline()
//	to, pkt, ok := ep.Poll(now, buf)                     // packets to send, until !ok
//	ev, ok := ep.NextEvent()                             // events for the user, until !ok
//
// Receive returns the association a packet reached; BeginBatch and
// EndBatch around the packets of one read let the associations answer the
// batch with one SACK. After every input the owner polls the packets and
// events it caused and re-arms its one timer at Deadline.
//
// # An association
//
// An Assoc is a handle with the user's primitives: Send, Read and
// ReadStream (with WindowUpdate after reads), Shutdown, Abort,
// Reconfigure and ResetAssoc (RFC 6525), SetScheduler and SetStreamValue,
// and what the user may ask: Streams, Peer, AppendPeerAddrs, Stats. Its
// events (EventCommUp, EventCommLost, EventReconf, ...) come from its
// Endpoint's NextEvent. The core's errors are its own sentinels (ErrClosed,
// ErrReconfigDenied, ...); package sctp maps them to the public ones.
package assoc
