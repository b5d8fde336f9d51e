package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// -netns MTU runs the client and the spawned server in two network
// namespaces of their own joined by a veth pair of that MTU, with GRO on
// at both ends (GSO is on by default on veth): a real link with the
// kernel's per-packet costs, where -mtu on loopback only caps the packet
// size. The parent sets the namespaces up, runs itself again in the
// client's namespace (the child finds the server's namespace in
// netnsEnv) and deletes both when the child ends. It needs root and ip(8).

// netnsEnv names, in the client's environment, the server's namespace.
const netnsEnv = "SCTPPERF_NETNS_SERVER"

// The veth pair's addresses: the server's end and the client's.
const (
	netnsServerIP = "10.199.0.1"
	netnsClientIP = "10.199.0.2"
)

// netnsPair is the two namespaces of a -netns run and their veth ends.
type netnsPair struct {
	server, client         string // namespace names
	serverLink, clientLink string // veth ends, before they move
}

// runInNetns sets up the namespaces for a veth pair of the given MTU,
// runs this program with args again in the client's namespace with the
// given standard streams, and tears the namespaces down.
func runInNetns(ctx context.Context, mtu int, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if mtu < 1280 || mtu > 65535 {
		return fmt.Errorf("-netns %d: the MTU must be between 1280 and 65535", mtu)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("-netns needs root (it creates network namespaces)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("-netns needs ip(8) (Debian's iproute2): %w", err)
	}
	pid := os.Getpid()
	ns := netnsPair{
		server:     fmt.Sprintf("sctpperf-%d-server", pid),
		client:     fmt.Sprintf("sctpperf-%d-client", pid),
		serverLink: fmt.Sprintf("spf%ds", pid),
		clientLink: fmt.Sprintf("spf%dc", pid),
	}
	defer ns.delete()
	if err := ns.create(mtu); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.client, exe}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(), netnsEnv+"="+ns.server)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the run in network namespace %s: %w", ns.client, err)
	}
	return nil
}

// create makes the two namespaces and the veth pair between them.
func (ns netnsPair) create(mtu int) error {
	m := strconv.Itoa(mtu)
	steps := [][]string{
		{"netns", "add", ns.server},
		{"netns", "add", ns.client},
		{"link", "add", ns.serverLink, "mtu", m, "type", "veth", "peer", "name", ns.clientLink, "mtu", m},
	}
	if err := ipSteps(steps); err != nil {
		return err
	}
	// GRO before the move (the features travel with the device): veth
	// receives through NAPI, and so coalesces, only with GRO on.
	for _, link := range []string{ns.serverLink, ns.clientLink} {
		if err := setGRO(link); err != nil {
			return fmt.Errorf("-netns: GRO on %s: %w", link, err)
		}
	}
	steps = [][]string{
		{"link", "set", ns.serverLink, "netns", ns.server},
		{"link", "set", ns.clientLink, "netns", ns.client},
		{"-n", ns.server, "addr", "add", netnsServerIP + "/24", "dev", ns.serverLink},
		{"-n", ns.client, "addr", "add", netnsClientIP + "/24", "dev", ns.clientLink},
		{"-n", ns.server, "link", "set", "lo", "up"},
		{"-n", ns.client, "link", "set", "lo", "up"},
		{"-n", ns.server, "link", "set", ns.serverLink, "up"},
		{"-n", ns.client, "link", "set", ns.clientLink, "up"},
	}
	return ipSteps(steps)
}

// delete removes both namespaces, and with them the veth pair; what was
// never made is skipped quietly.
func (ns netnsPair) delete() {
	exec.Command("ip", "link", "del", ns.serverLink).Run()
	exec.Command("ip", "netns", "del", ns.server).Run()
	exec.Command("ip", "netns", "del", ns.client).Run()
}

func ipSteps(steps [][]string) error {
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			return fmt.Errorf("-netns: ip %s: %v: %s", strings.Join(s, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// setGRO turns generic receive offload on for the named link with the
// ethtool ioctl (ETHTOOL_SGRO), so that no ethtool(8) is needed.
func setGRO(link string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	const ethtoolSGRO = 0x2c                             // ETHTOOL_SGRO, linux/ethtool.h
	value := &struct{ cmd, data uint32 }{ethtoolSGRO, 1} // on the heap: it does not move
	var ifr struct {
		name [unix.IFNAMSIZ]byte
		data uintptr
		_    [16]byte // the rest of struct ifreq's union
	}
	copy(ifr.name[:], link)
	ifr.data = uintptr(unsafe.Pointer(value))
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(value)
	if errno != 0 {
		return syscall.Errno(errno)
	}
	return nil
}
