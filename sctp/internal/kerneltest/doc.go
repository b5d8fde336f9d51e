// Package kerneltest holds usctp's interop tests against the Linux kernel's SCTP:
// the public API of package sctp on the host against cmd/kpeer in the guests
// of sctp/internal/kernelvm (Debian's 6.1 cloud kernel, and 6.12 for the fc and wfq
// schedulers), over UDP encapsulation through QEMU's port forward (transport A) and
// over plain IP on the tap device (transport B, root only).
//
// The tests are all named TestKernel...; the package has no other code. Run them with
//
//	go test -race -run Kernel ./sctp/internal/kerneltest
//
// TestMain boots the guests the selected tests need in the background; each test opens
// its own kpeer listeners. Outside CI a missing guest skips the tests (run .ci/guest.sh);
// with CI=true they fail instead.
//
// Every association writes a pcap of usctp's side (in $USCTP_PCAP_DIR, default
// $TMPDIR/usctp-pcap-PID, named after the test) that cmd/sctpdump and, when installed,
// tshark (-o sctp.checksum:CRC-32C) must decode without a malformed packet or a bad
// checksum; the pcaps of passing tests are removed unless USCTP_KEEP_PCAPS is set.
// USCTP_KERNEL_BULK_MB sets the size of each bulk transfer (default 16).
package kerneltest
