package sctp

// ecnECT0 is the ECT(0) codepoint of the IP ECN field (RFC 3168 section
// 5), set on the packets of associations that use ECN where the transport
// sets the field per packet (netio.Packet.ECN).
const ecnECT0 = 2

// ECN reports whether the association uses Explicit Congestion
// Notification (RFC 9260 appendix A): both endpoints offered it (see
// Config.Extensions.DisableECN), so its packets go ECN-capable, CE marks it receives
// are echoed to the peer, and the peer's echoes reduce its window.
func (as *Association) ECN() bool {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.a.ECN()
}
