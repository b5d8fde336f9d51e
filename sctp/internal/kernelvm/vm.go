package kernelvm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config describes a guest VM.
type Config struct {
	// Guest is the prepared kernel; nil means FindGuest(Kernel).
	Guest *Guest
	// Kernel is the kernel line when Guest is nil: "" (the default, 6.1) or "6.12",
	// which also has the fc and wfq stream schedulers.
	Kernel string
	// Commands are kpeer commands (see cmd/kpeer) run at boot, before the VM reports
	// ready: typically the listeners a test package needs ("listen id=echo port=5001").
	Commands []string
	// Sysctls are extra "net.sctp.NAME=VALUE" settings applied at boot, after
	// net.sctp.udp_port=9899, intl_enable=1 and reconf_enable=1.
	Sysctls []string
	// Programs are more of the module's commands ("./cmd/sctpperf") to build like kpeer
	// (static) and put in the guest's root directory ("/sctpperf"), for kpeer's run command.
	Programs []string
	// Tap adds transport B: a tap device in a new network namespace (needs root).
	Tap bool
	// Tap2 adds a second tap in that namespace, on a second subnet (HostTap2IP, the
	// guest GuestTap2IP), on a second NIC of the guest: two paths for multi-homing.
	// It implies Tap. SetLink cuts and restores either.
	Tap2 bool
	// MemoryMB is the guest's memory (default 256).
	MemoryMB int
	// BootTimeout bounds the boot up to kpeer's BOOTED line (default 3 minutes: TCG on
	// a loaded two-core machine).
	BootTimeout time.Duration
	// Logf, if not nil, receives every line kpeer prints and the rig's progress.
	Logf func(format string, args ...any)
}

// VM is a running guest: QEMU under TCG with the kernel, the modules and kpeer.
// Its methods may be called from several goroutines.
type VM struct {
	cfg     Config
	guest   *Guest
	dir     string
	cmd     *exec.Cmd
	ctl     io.WriteCloser // kpeer's control channel (QEMU's standard input)
	udpPort int
	ns      *netns

	mu      sync.Mutex
	lines   []Line
	used    []bool
	changed chan struct{} // closed and replaced whenever lines or exited change
	exited  bool
	exitErr error
	waited  chan struct{}

	// PrepTime is the time Start took to build kpeer and the initramfs; BootTime the
	// time from QEMU's start to kpeer's BOOTED line.
	PrepTime, BootTime time.Duration

	closeOnce sync.Once
}

// ErrExited is wrapped by the errors of a VM whose QEMU has exited.
var ErrExited = errors.New("kernelvm: QEMU exited")

// Start builds the initramfs, boots the guest and waits for kpeer's BOOTED line, which it
// prints after the boot commands (Config.Commands) have run. The VM must be closed; its
// QEMU also dies with the calling process (parent-death signal).
func Start(ctx context.Context, cfg Config) (*VM, error) {
	if cfg.MemoryMB == 0 {
		cfg.MemoryMB = 256
	}
	if cfg.BootTimeout == 0 {
		cfg.BootTimeout = 3 * time.Minute
	}
	g := cfg.Guest
	if g == nil {
		var err error
		if g, err = FindGuest(ctx, cfg.Kernel, nil); err != nil {
			return nil, err
		}
	}
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		return nil, fmt.Errorf("kernelvm: %w (run .ci/guest.sh)", err)
	}
	prep := time.Now()
	programs, err := buildPrograms(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	dir, err := vmDir("vm")
	if err != nil {
		return nil, err
	}
	vm := &VM{cfg: cfg, guest: g, dir: dir, changed: make(chan struct{})}
	initrd := filepath.Join(dir, "initramfs.cpio")
	if err := writeInitramfs(initrd, g, programs, &cfg); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("kernelvm: initramfs: %w", err)
	}
	vm.PrepTime = time.Since(prep)
	vm.logf("kernelvm: programs and initramfs in %v", vm.PrepTime.Round(time.Millisecond))
	if cfg.Tap || cfg.Tap2 {
		if vm.ns, err = newNetns(cfg.Tap2); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	// The host forward's port is chosen now and may be taken by the time QEMU binds it:
	// a QEMU that fails at once is started again with another port.
	for attempt := 1; ; attempt++ {
		err = vm.boot(ctx, qemu, initrd)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "host forwarding") {
			break
		}
		vm.logf("kernelvm: retrying QEMU: %v", err)
		vm.mu.Lock()
		vm.exited, vm.lines, vm.used = false, nil, nil
		vm.mu.Unlock()
	}
	if err != nil {
		vm.Close()
		return nil, err
	}
	return vm, nil
}

func (vm *VM) logf(format string, args ...any) {
	if vm.cfg.Logf != nil {
		vm.cfg.Logf(format, args...)
	}
}

// boot starts QEMU once and waits for BOOTED.
func (vm *VM) boot(ctx context.Context, qemu, initrd string) error {
	port, err := freeUDPPort()
	if err != nil {
		return err
	}
	vm.udpPort = port
	args := []string{
		"-accel", "tcg", "-nodefaults", "-no-reboot", "-no-user-config", "-display", "none",
		// One vCPU, but room for two: QEMU before 8.1 translates a guest with at most one
		// CPU without its memory barriers (no CF_PARALLEL), yet its I/O thread reads the
		// virtqueues in parallel, and a virtio-net notification lost that way stops the
		// guest's transmit queue for good. maxcpus=2 makes QEMU keep the barriers.
		"-m", fmt.Sprint(vm.cfg.MemoryMB), "-smp", "1,maxcpus=2",
		"-kernel", vm.guest.Vmlinux, "-initrd", initrd,
		"-append", "console=ttyS0 cryptomgr.notests mitigations=off nokaslr quiet panic=-1 " +
			"i8042.noaux i8042.nokbd i8042.nopnp tsc=reliable no_timer_check " + os.Getenv("USCTP_KVM_CMDLINE"),
		"-chardev", "file,id=con,path=" + filepath.Join(vm.dir, "console.log"),
		"-serial", "chardev:con",
		"-chardev", "stdio,id=ctl,signal=off",
		"-serial", "chardev:ctl",
		"-qmp", "unix:" + filepath.Join(vm.dir, "qmp.sock") + ",server=on,wait=off",
		"-netdev", fmt.Sprintf("user,id=n0,net=10.0.2.0/24,hostfwd=udp:127.0.0.1:%d-:%d", port, GuestUDPPort),
		"-device", "virtio-net-pci,netdev=n0,mac=" + macUser + ",romfile=",
	}
	if bios := firmware(); bios != "" {
		args = append(args, "-bios", bios)
	}
	cmd := exec.Command(qemu)
	if vm.ns != nil {
		args = append(args, "-netdev", "tap,id=n1,fd=3",
			"-device", "virtio-net-pci,netdev=n1,mac="+macTap+",romfile=")
		cmd.ExtraFiles = []*os.File{vm.ns.tap}
		if vm.ns.tap2 != nil {
			args = append(args, "-netdev", "tap,id=n2,fd=4",
				"-device", "virtio-net-pci,netdev=n2,mac="+macTap2+",romfile=")
			cmd.ExtraFiles = append(cmd.ExtraFiles, vm.ns.tap2)
		}
	}
	cmd.Args = append(cmd.Args, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := os.Create(filepath.Join(vm.dir, "qemu.log"))
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if vm.ctl, err = cmd.StdinPipe(); err != nil {
		return err
	}
	waited := make(chan struct{})
	vm.waited = waited
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("kernelvm: %w", err)
	}
	vm.cmd = cmd
	vm.logf("kernelvm: qemu pid %d, %s -> guest udp %d", cmd.Process.Pid, vm.UDPAddr(), GuestUDPPort)
	go vm.readLines(stdout)
	go func() {
		err := cmd.Wait()
		vm.mu.Lock()
		vm.exited, vm.exitErr = true, err
		vm.notifyLocked()
		vm.mu.Unlock()
		close(waited)
	}()
	bctx, cancel := context.WithTimeout(ctx, vm.cfg.BootTimeout)
	defer cancel()
	if _, err := vm.WaitLine(bctx, "BOOTED"); err != nil {
		return fmt.Errorf("kernelvm: boot: %w\nqemu: %s\nconsole:\n%s", err, vm.file("qemu.log"), vm.ConsoleTail(40))
	}
	vm.BootTime = time.Since(start)
	vm.logf("kernelvm: booted in %v", vm.BootTime.Round(time.Millisecond))
	return nil
}

// vmDir makes a working directory, $TMPDIR/usctp-kernelvm/<pid>-<kind>-<n>, and removes
// those of processes that are gone (test timeouts and panics skip Close).
func vmDir(kind string) (string, error) {
	root := filepath.Join(os.TempDir(), "usctp-kernelvm")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		pid, _, _ := strings.Cut(e.Name(), "-")
		n, err := strconv.Atoi(pid)
		if err == nil && n != os.Getpid() && syscall.Kill(n, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
	return os.MkdirTemp(root, fmt.Sprintf("%d-%s-", os.Getpid(), kind))
}

// firmware returns qboot, QEMU's minimal firmware, where QEMU ships it: it reaches the
// kernel sooner than SeaBIOS under TCG. USCTP_KVM_BIOS names another file, or "default"
// for SeaBIOS.
func firmware() string {
	switch b := os.Getenv("USCTP_KVM_BIOS"); b {
	case "default":
		return ""
	case "":
	default:
		return b
	}
	for _, f := range []string{"/usr/share/qemu/qboot.rom", "/usr/share/seabios/qboot.rom"} {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	return ""
}

func freeUDPPort() (int, error) {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port, nil
}

func (vm *VM) readLines(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		raw := strings.TrimRight(sc.Text(), "\r")
		if raw == "" {
			continue
		}
		vm.logf("kpeer: %s", raw)
		vm.mu.Lock()
		vm.lines = append(vm.lines, parseLine(raw))
		vm.used = append(vm.used, false)
		vm.notifyLocked()
		vm.mu.Unlock()
	}
}

func (vm *VM) notifyLocked() {
	close(vm.changed)
	vm.changed = make(chan struct{})
}

// Wait returns the first line kpeer printed, since boot, that match accepts and that no
// earlier Wait or WaitLine returned; it waits for one until ctx is done or QEMU exits.
func (vm *VM) Wait(ctx context.Context, match func(Line) bool) (Line, error) {
	for {
		vm.mu.Lock()
		for i, l := range vm.lines {
			if !vm.used[i] && match(l) {
				vm.used[i] = true
				vm.mu.Unlock()
				return l, nil
			}
		}
		ch, exited, exitErr := vm.changed, vm.exited, vm.exitErr
		vm.mu.Unlock()
		if exited {
			return Line{}, fmt.Errorf("%w (%v)", ErrExited, exitErr)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return Line{}, ctx.Err()
		}
	}
}

// WaitLine is Wait for the first line that starts with prefix, for example
// "READY id=echo" or "DONE id=c1".
func (vm *VM) WaitLine(ctx context.Context, prefix string) (Line, error) {
	l, err := vm.Wait(ctx, func(l Line) bool { return strings.HasPrefix(l.Raw, prefix) })
	if err != nil {
		return l, fmt.Errorf("kernelvm: waiting for %q: %w", prefix, err)
	}
	return l, nil
}

// Lines returns every line kpeer printed so far.
func (vm *VM) Lines() []Line {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return append([]Line(nil), vm.lines...)
}

// Command sends one command line to kpeer; its answer comes as a line (see cmd/kpeer).
func (vm *VM) Command(line string) error {
	if strings.ContainsAny(line, "\r\n") {
		return errors.New("kernelvm: a command is one line")
	}
	vm.mu.Lock()
	exited := vm.exited
	vm.mu.Unlock()
	if exited {
		return ErrExited
	}
	_, err := io.WriteString(vm.ctl, line+"\n")
	return err
}

// Do sends a command and waits for the line that answers it: the first new line that
// starts with want, or an ERR line with the same id.
func (vm *VM) Do(ctx context.Context, line, want string) (Line, error) {
	if err := vm.Command(line); err != nil {
		return Line{}, err
	}
	id := parseLine("X " + line).Get("id")
	l, err := vm.Wait(ctx, func(l Line) bool {
		return strings.HasPrefix(l.Raw, want) || (l.Verb == "ERR" && l.Get("id") == id && id != "")
	})
	if err != nil {
		return l, fmt.Errorf("kernelvm: %q: waiting for %q: %w", line, want, err)
	}
	if l.Verb == "ERR" && !strings.HasPrefix(want, "ERR") {
		return l, fmt.Errorf("kernelvm: %q: %s", line, l.Raw)
	}
	return l, nil
}

// UDPAddr is the host address (127.0.0.1 and a port chosen at start) that QEMU forwards
// to the guest kernel's SCTP-over-UDP port: transport A. Replies come back from it.
func (vm *VM) UDPAddr() *net.UDPAddr {
	return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: vm.udpPort}
}

// Guest returns the guest the VM runs (Release names the kernel).
func (vm *VM) Guest() *Guest { return vm.guest }

// HasTap reports whether the VM has transport B.
func (vm *VM) HasTap() bool { return vm.ns != nil }

// InNetns runs fn on an OS thread inside the network namespace of transport B, where
// HostTapIP is local and GuestTapIP is the guest. Sockets fn creates stay in that
// namespace and can be used from any goroutine afterwards.
func (vm *VM) InNetns(fn func() error) error {
	if vm.ns == nil {
		return errors.New("kernelvm: the VM has no tap (Config.Tap)")
	}
	return vm.ns.do(fn)
}

// SetLink brings the host side of tap i (0: HostTapIP's, 1: HostTap2IP's) up or
// down: down, the host's packets on it fail (no route) and the guest's are dropped, as
// when a cable is pulled; up again, its address and route come back.
func (vm *VM) SetLink(i int, up bool) error {
	if vm.ns == nil || i == 1 && vm.ns.tap2 == nil || i < 0 || i > 1 {
		return fmt.Errorf("kernelvm: no tap %d (Config.Tap, Tap2)", i)
	}
	return vm.ns.do(func() error { return vm.ns.setLink(tapNames[i], up) })
}

// Exited reports whether QEMU has exited (the guest kernel panicked, QEMU
// failed, or Close), with the error its wait returned; a guest whose
// QEMU exited does not answer on UDPAddr, whose port is then closed.
func (vm *VM) Exited() (bool, error) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.exited, vm.exitErr
}

// Dir is the VM's working directory (initramfs, console.log, qemu.log); Close removes it.
func (vm *VM) Dir() string { return vm.dir }

func (vm *VM) file(name string) string {
	b, _ := os.ReadFile(filepath.Join(vm.dir, name))
	return strings.TrimSpace(string(b))
}

// ConsoleTail returns the last n lines of the guest kernel's console.
func (vm *VM) ConsoleTail(n int) string {
	lines := strings.Split(vm.file("console.log"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Close kills QEMU (its whole process group), waits for it, and removes the network
// namespace and the working directory. It is safe to call more than once.
func (vm *VM) Close() error {
	vm.closeOnce.Do(func() {
		if vm.cmd != nil && vm.cmd.Process != nil {
			pid := vm.cmd.Process.Pid
			syscall.Kill(-pid, syscall.SIGKILL)
			vm.cmd.Process.Kill()
			select {
			case <-vm.waited:
			case <-time.After(10 * time.Second):
			}
		}
		if vm.ctl != nil {
			vm.ctl.Close()
		}
		if vm.ns != nil {
			vm.ns.close()
		}
		if os.Getenv("USCTP_KEEP_VM_DIR") == "" {
			os.RemoveAll(vm.dir)
		}
	})
	return nil
}
