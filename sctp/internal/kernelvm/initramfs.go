package kernelvm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Guest network addresses. Transport A is QEMU's user network (slirp): the guest is
// GuestUserIP and reaches the host's loopback as HostUserIP. Transport B is a tap device
// in a network namespace of the test's own: the host side is HostTapIP, the guest
// GuestTapIP (198.18.0.0/15 is the benchmarking range of RFC 2544, never routed).
const (
	GuestUserIP = "10.0.2.15"
	HostUserIP  = "10.0.2.2"
	HostTapIP   = "198.18.0.1"
	GuestTapIP  = "198.18.0.2"
	tapPrefix   = 24
	// HostTap2IP and GuestTap2IP are the second tap's (Config.Tap2), on a second subnet.
	HostTap2IP  = "198.19.0.1"
	GuestTap2IP = "198.19.0.2"
	// GuestUDPPort is the guest kernel's SCTP-over-UDP port (net.sctp.udp_port).
	GuestUDPPort = 9899
	macUser      = "52:54:00:12:34:01"
	macTap       = "52:54:00:12:34:02"
	macTap2      = "52:54:00:12:34:03"
)

// initScript is the guest's /init: it mounts the pseudo file systems, loads the modules,
// sets the SCTP sysctls before any SCTP socket exists, configures the network, and runs
// kpeer on the second serial port (the first is the kernel console).
const initScript = `#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox --install -s /bin
echo 4 > /proc/sys/kernel/printk
for m in $(cat /etc/modules.order); do
	insmod /lib/modules/$m || echo "init: insmod $m failed"
done
sysctl -q -w net.sctp.udp_port={{udpport}}
sysctl -q -w net.sctp.intl_enable=1
sysctl -q -w net.sctp.reconf_enable=1
sysctl -q -w net.core.wmem_max=16777216
sysctl -q -w net.core.rmem_max=16777216
{{sysctls}}
ip link set lo up
for d in /sys/class/net/*; do
	i=${d##*/}
	case "$(cat $d/address)" in
	{{macuser}})
		ip addr add {{guestuser}}/24 dev $i
		ip link set $i up
		ip route add default via {{hostuser}} ;;
	{{mactap}})
		ip addr add {{guesttap}}/{{tapprefix}} dev $i
		ip link set $i up ;;
	{{mactap2}})
		ip addr add {{guesttap2}}/{{tapprefix}} dev $i
		ip link set $i up ;;
	esac
done
echo "init: network: $(ip -o -4 addr show | awk '{print $2, $4}' | tr '\n' ' ')"
echo "init: starting kpeer"
/kpeer -ctl /dev/ttyS1 -conf /etc/kpeer.conf
echo "init: kpeer exited: $?"
poweroff -f
`

// builds holds the guest programs built by this process, by package path: each is built
// once per process (buildProgram).
var builds struct {
	mu    sync.Mutex
	byPkg map[string]*programBuild
}

type programBuild struct {
	once sync.Once
	path string
	err  error
}

// buildProgram builds the module's command pkg ("./cmd/kpeer") as a static guest program
// (CGO_ENABLED=0, linux/amd64) into a directory that lives as long as the process (vmDir
// removes it after the process), once per process.
func buildProgram(ctx context.Context, pkg string) (string, error) {
	builds.mu.Lock()
	if builds.byPkg == nil {
		builds.byPkg = map[string]*programBuild{}
	}
	b := builds.byPkg[pkg]
	if b == nil {
		b = &programBuild{}
		builds.byPkg[pkg] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			b.err = err
			return
		}
		name := filepath.Base(pkg)
		dir, err := vmDir(name)
		if err != nil {
			b.err = err
			return
		}
		out := filepath.Join(dir, name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("kernelvm: go build %s: %w\n%s", pkg, err, out)
			return
		}
		b.path = out
	})
	return b.path, b.err
}

// buildPrograms builds kpeer and the programs cfg asks for, at the same time, and returns
// their paths by the name they get in the guest's root directory.
func buildPrograms(ctx context.Context, cfg *Config) (map[string]string, error) {
	pkgs := append([]string{"./cmd/kpeer"}, cfg.Programs...)
	paths := make([]string, len(pkgs))
	errs := make([]error, len(pkgs))
	var wg sync.WaitGroup
	for i, pkg := range pkgs {
		wg.Go(func() { paths[i], errs[i] = buildProgram(ctx, pkg) })
	}
	wg.Wait()
	byName := map[string]string{}
	for i, pkg := range pkgs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		byName[filepath.Base(pkg)] = paths[i]
	}
	return byName, nil
}

// writeInitramfs writes the guest's newc initramfs to path, uncompressed: the kernel
// unpacks a plain cpio with a memory copy, while gunzip under TCG costs the guest
// seconds of boot.
func writeInitramfs(path string, g *Guest, programs map[string]string, cfg *Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	c := newCPIOWriter(f)
	for _, d := range []string{"bin", "sbin", "etc", "lib", "lib/modules", "dev", "proc", "sys", "tmp", "usr", "usr/bin", "usr/sbin"} {
		c.dir(d, 0o755)
	}
	add := func(name, src string, perm uint32) {
		b, err := os.ReadFile(src)
		if err != nil {
			c.err = err
			return
		}
		c.file(name, perm, b)
	}
	add("bin/busybox", g.Busybox, 0o755)
	for name, src := range programs {
		add(name, src, 0o755)
	}
	var order []string
	for _, m := range g.Modules {
		add("lib/modules/"+filepath.Base(m), m, 0o644)
		order = append(order, filepath.Base(m))
	}
	c.file("etc/modules.order", 0o644, []byte(strings.Join(order, "\n")+"\n"))
	c.file("etc/kpeer.conf", 0o644, []byte(strings.Join(cfg.Commands, "\n")+"\n"))

	var sysctls []string
	for _, kv := range cfg.Sysctls {
		sysctls = append(sysctls, "sysctl -q -w "+kv)
	}
	script := strings.NewReplacer(
		"{{udpport}}", fmt.Sprint(GuestUDPPort),
		"{{sysctls}}", strings.Join(sysctls, "\n"),
		"{{macuser}}", macUser, "{{mactap}}", macTap, "{{mactap2}}", macTap2, "{{guesttap2}}", GuestTap2IP,
		"{{guestuser}}", GuestUserIP, "{{hostuser}}", HostUserIP,
		"{{guesttap}}", GuestTapIP, "{{tapprefix}}", fmt.Sprint(tapPrefix),
	).Replace(initScript)
	c.file("init", 0o755, []byte(script))
	if err := c.close(); err != nil {
		return err
	}
	return f.Close()
}
