package sctp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// pcapDirEnv names the environment variable that makes every association
// record its packets: when it holds a directory, each association writes
// its SCTP packets (before DTLS encrypts them, after it decrypts them) to
// a pcap file of its own there, association-PID-N.pcap, which Wireshark,
// tshark and usctp's sctpdump decode (usctp's Config.Pcap). Packets sent
// with a zero checksum (WithEnableZeroChecksum) show as bad checksums
// unless the decoder is told to accept them.
const pcapDirEnv = "USCTP_PCAP_DIR"

var pcapSeq atomic.Uint64

// pcapFile returns the pcap file of a new association, or "" when
// USCTP_PCAP_DIR is not set.
func pcapFile() string {
	dir := os.Getenv(pcapDirEnv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("association-%d-%d.pcap", os.Getpid(), pcapSeq.Add(1)))
}
