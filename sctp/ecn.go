package sctp

// ECN reports whether the association uses Explicit Congestion
// Notification (RFC 9260 appendix A): both endpoints offered it (see
// Config.Extensions.DisableECN), so its packets go ECN-capable, CE marks
// it receives are echoed to the peer, and the peer's echoes reduce its
// window.
func (as *Association) ECN() bool {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.ECN()
}
