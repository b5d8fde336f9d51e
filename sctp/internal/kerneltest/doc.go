// Package kerneltest holds usctp's interop tests against the Linux kernel's SCTP
// (issue 7): the public API of package sctp on the host against cmd/kpeer in the guest
// of sctp/internal/kernelvm, over UDP encapsulation through QEMU's port forward
// (transport A) and over plain IP on the tap device (transport B).
//
// The tests are all named TestKernel...; the package has no other code. Run them with
//
//	go test -run Kernel ./sctp/internal/kerneltest
//
// Every association writes a pcap of usctp's side (kernelvm.PcapFor's directory:
// $USCTP_PCAP_DIR or $TMPDIR/usctp-pcap) that cmd/sctpdump and, when installed, tshark
// must decode without a malformed packet or a bad checksum.
package kerneltest
