package sctp

// ZeroChecksum reports how the association uses the zero checksum of RFC
// 9653 (Config.Extensions.ZeroChecksumDTLS): send, its packets go with a
// zero checksum (the peer announced the DTLS method too; INIT and COOKIE
// ECHO packets keep the CRC32c); recv, this end announced it and accepts
// packets with a zero checksum.
func (as *Association) ZeroChecksum() (send, recv bool) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.ZeroChecksum()
}
