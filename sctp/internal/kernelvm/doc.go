// Package kernelvm is the kernel interop rig: it boots a Debian cloud kernel, which has
// SCTP, in QEMU under TCG (no KVM and no SCTP in the host kernel are assumed) and runs
// cmd/kpeer in it, so that tests can talk to Linux's SCTP over two transports.
//
// # The guest
//
// .ci/guest.sh prepares the guest once and caches it: QEMU and busybox from Debian, the
// kernel package downloaded and unpacked (never installed), the uncompressed vmlinux cut
// from the bzImage (QEMU boots it through its PVH entry) and the sctp and virtio-net
// modules with their dependencies. .ci/test.sh runs it and exports USCTP_GUEST_DIR;
// FindGuest runs it when the variable is unset. Start writes an initramfs of its own
// (newc cpio, uncompressed: busybox, the modules, kpeer built with CGO_ENABLED=0, an /init that
// loads the modules, sets net.sctp.udp_port=9899, intl_enable=1 and reconf_enable=1
// before any socket exists, configures the network and starts kpeer) and boots it with
// one vCPU and 256 MB.
//
// kpeer's control channel is the guest's second serial port, which QEMU connects to its
// standard input and output: the test writes commands ("listen", "dial", "send",
// "close", "abort", "prio", "sysctl") and reads machine-readable lines ("READY",
// "ACCEPT", "CONNECTED", "MSG sid=… ppid=… len=… crc=…", "EVENT", "DONE", "ERR"). The
// kernel console goes to a file of its own (ConsoleTail), so kernel messages never mix
// with kpeer's lines. Config.Commands run before kpeer reports BOOTED, which Start waits
// for: the listeners a package needs are up when Start returns, with no fixed sleep.
//
// # Transports
//
// Transport A, SCTP over UDP (RFC 6951), needs no privilege: QEMU's user network forwards
// UDPAddr (127.0.0.1 and a port chosen at start) to the guest's port 9899, and the
// kernel's answers come back from that address. A guest client reaches the host's
// loopback as HostUserIP; kpeer's dial takes encap=PORT (SCTP_REMOTE_UDP_ENCAPS_PORT) to
// name the host's UDP port, and the host sees the guest's packets come from a NAT port.
//
// Transport B, SCTP directly over IP, needs root: Start creates an anonymous network
// namespace with a tap device (HostTapIP; the guest is GuestTapIP) whose descriptor QEMU
// inherits, and holds a raw protocol-132 socket in it so that the host kernel does not
// answer the guest with ICMP protocol unreachable. InNetns runs a function inside the
// namespace to open the host side's sockets. The namespace vanishes with the VM, even if
// the test process dies.
//
// Config.Tap2 adds a second tap in that namespace on a second subnet (HostTap2IP, the
// guest GuestTap2IP on a second NIC): two paths for multi-homing. SetLink
// brings the host side of either tap down and up again, to cut a path and restore it.
//
// # Usage
//
// One VM serves a whole test package:
//
//	var kvm = kernelvm.Shared{Config: kernelvm.Config{
//		Commands: []string{"listen id=echo port=5001 mode=echo"},
//		Tap:      os.Geteuid() == 0,
//	}}
//
//	func TestMain(m *testing.M) { code := m.Run(); kvm.Close(); os.Exit(code) }
//
//	func TestKernelEcho(t *testing.T) {
//		vm := kvm.Get(t) // boots on first use; skips outside CI if no guest, never in CI
//		// ... dial vm.UDPAddr() with SCTP port 5001, send on stream 3 with PPID 7 ...
//		l, err := vm.WaitLine(ctx, "MSG id=echo ")
//		// l.Int("sid") == 3, l.Int("ppid") == 7
//	}
//
// Config.Kernel = "6.12" selects the Debian 6.12 cloud kernel, which also has the fc and
// wfq stream schedulers. QEMU is killed by its process group on Close and by a
// parent-death signal if the test binary dies.
//
// Environment: USCTP_GUEST_DIR (the guest), USCTP_KVM_VERBOSE (log kpeer's lines),
// USCTP_KVM_CMDLINE (extra kernel arguments), USCTP_KVM_BIOS (firmware; default qboot),
// USCTP_KEEP_VM_DIR (keep the console log), USCTP_PCAP_DIR (where PcapFor writes),
// USCTP_WRITE_SEEDS (refresh testdata/*.bin, the kernel's packets kept as seeds for the
// codec's fuzz corpus).
package kernelvm
