package sctp

import "github.com/usctp/usctp/sctp/internal/netio"

// SocketStats counts what an endpoint's socket did: system calls, the
// datagrams they moved and the offloads used. The counters are zero on
// transports that do not keep them (net.PacketConn and net.Conn adapters,
// or a capturing endpoint).
type SocketStats struct {
	RecvCalls    uint64 // recvmmsg calls that returned data
	RecvMessages uint64 // datagrams or GRO buffers those returned
	GROCoalesced uint64 // GRO buffers that held more than one datagram
	SendCalls    uint64 // sendmmsg calls
	SendMessages uint64 // datagrams or GSO sends those took
	SendPackets  uint64 // SCTP packets in them
	GSOSends     uint64 // sends of several packets with UDP_SEGMENT
	Dropped      uint64 // received datagrams dropped by the transport
	BusyPolls    uint64 // reads that busy-polled the empty socket (Config.BusyPoll)
	BusyPollHits uint64 // busy polls that found data before their budget ran out
	// OwnerWakes counts the wake-ups of the endpoint's goroutine that
	// runs the timers and sends what calls queued: each is a hand-off
	// between goroutines. Kept on every transport.
	OwnerWakes uint64
	// ReaderYields counts the batches after which the endpoint's reader
	// goroutine let the ReadMsg callers the batch woke run before it read
	// the socket again. Kept on every transport.
	ReaderYields uint64
}

// SocketStats returns the counters of the endpoint's socket.
func (e *Endpoint) SocketStats() SocketStats {
	c, ok := e.conn.(interface{ Stats() netio.Stats })
	if !ok {
		return SocketStats{OwnerWakes: e.nOwnerWakes.Load(), ReaderYields: e.nYields.Load()}
	}
	s := c.Stats()
	return SocketStats{
		RecvCalls: s.RecvCalls, RecvMessages: s.RecvMessages, GROCoalesced: s.GROCoalesced,
		SendCalls: s.SendCalls, SendMessages: s.SendMessages, SendPackets: s.SendPackets,
		GSOSends: s.GSOSends, Dropped: s.Dropped, OwnerWakes: e.nOwnerWakes.Load(), ReaderYields: e.nYields.Load(),
		BusyPolls: s.BusyPolls, BusyPollHits: s.BusyPollHits,
	}
}
