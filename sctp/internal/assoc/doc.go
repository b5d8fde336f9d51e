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
//	a, err := ep.ConnectAddrs(now, peers, lport, pport)  // or a COOKIE ECHO creates one
//	ep.Receive(now, from, packet, ecn)                   // a packet from the network
//	ep.Expire(now)                                       // when now reaches ep.Deadline()
//	p, ok := ep.Poll(now, buf)                           // packets to send, until !ok
//	ev := ep.NextEvent()                                 // events, until nil
//	for _, a := range ep.Changed() { ... }               // the associations to look at
//
// Receive returns the association a packet reached; BeginBatch and
// EndBatch around the packets of one read let the associations answer the
// batch with one SACK. ReceiveRun takes packets that came in a row from one
// source (a GRO buffer's) and returns how many it processed: it stops
// after one that left the owner something to poll. After every input the owner polls the packets and
// events it caused, looks at the associations Changed lists (their
// readers and writers), and re-arms its one timer at Deadline.
//
// A Packet carries what sending it takes: its destination, its ECN
// codepoint and whether it may be fragmented. An Event is a user event as
// package sctp shows it (api.Event: EventUp, EventDown, EventSendFailed,
// EventStreamReset, ...), the answer to a request (Op), or room for a
// stream's writers; the last event of an association (EventDown or
// EventShutdown) carries its End: why, its final counters and the
// messages it did not send.
//
// # An association
//
// An Assoc is a handle with the user's primitives: Send, Read and
// ReadStream (with WindowUpdate after reads), Shutdown, Abort,
// ResetStreams, AddStreams and ResetAssoc (RFC 6525), SetScheduler and
// SetStreamValue, and what the user may ask: Streams, Peer,
// AppendPeerAddrs, Stats. The errors it returns are package api's, which
// package sctp declares as its own, but for ErrClosed.
package assoc
