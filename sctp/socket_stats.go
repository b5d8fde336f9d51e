package sctp

import "github.com/usctp/usctp/sctp/internal/transport"

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
}

// SocketStats returns the counters of the endpoint's socket.
func (e *Endpoint) SocketStats() SocketStats {
	c, ok := e.conn.(interface{ Stats() transport.Stats })
	if !ok {
		return SocketStats{}
	}
	s := c.Stats()
	return SocketStats{
		RecvCalls: s.RecvCalls, RecvMessages: s.RecvMessages, GROCoalesced: s.GROCoalesced,
		SendCalls: s.SendCalls, SendMessages: s.SendMessages, SendPackets: s.SendPackets,
		GSOSends: s.GSOSends, Dropped: s.Dropped,
	}
}

// Endpoint returns the endpoint the association belongs to.
func (as *Association) Endpoint() *Endpoint { return as.ep }
