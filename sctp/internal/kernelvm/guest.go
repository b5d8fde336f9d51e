package kernelvm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Guest is a prepared guest directory, the output of .ci/guest.sh: an uncompressed Debian
// cloud kernel, its sctp and virtio-net modules in load order, and a static busybox.
type Guest struct {
	Dir     string   // the directory
	Vmlinux string   // path of the uncompressed kernel
	Busybox string   // path of the static busybox
	Modules []string // module paths in load order (dependencies first)
	Release string   // the kernel release, as uname -r prints it
	Package string   // "<package> <version>" of the kernel package
}

// LoadGuest reads a guest directory prepared by .ci/guest.sh.
func LoadGuest(dir string) (*Guest, error) {
	g := &Guest{
		Dir:     dir,
		Vmlinux: filepath.Join(dir, "vmlinux"),
		Busybox: filepath.Join(dir, "busybox"),
	}
	order, err := os.ReadFile(filepath.Join(dir, "modules.order"))
	if err != nil {
		return nil, fmt.Errorf("kernelvm: guest %s: %w", dir, err)
	}
	for _, m := range strings.Fields(string(order)) {
		g.Modules = append(g.Modules, filepath.Join(dir, "modules", m))
	}
	for _, f := range append([]string{g.Vmlinux, g.Busybox}, g.Modules...) {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("kernelvm: guest %s incomplete: %w", dir, err)
		}
	}
	rel, _ := os.ReadFile(filepath.Join(dir, "release"))
	pkg, _ := os.ReadFile(filepath.Join(dir, "package"))
	g.Release = strings.TrimSpace(string(rel))
	g.Package = strings.TrimSpace(string(pkg))
	return g, nil
}

// FindGuest returns a guest with the given kernel line ("" for the default, "6.1", or
// "6.12" for the fc and wfq stream schedulers). The USCTP_GUEST_DIR environment variable,
// which .ci/test.sh sets, names the default guest; otherwise, or for another kernel line,
// FindGuest runs the module's .ci/guest.sh with USCTP_GUEST_KERNEL=kernel (it installs
// QEMU and downloads the kernel the first time, then answers from its cache in
// milliseconds) and loads its result. The script's log goes to logw when not nil.
func FindGuest(ctx context.Context, kernel string, logw func(string)) (*Guest, error) {
	if dir := os.Getenv("USCTP_GUEST_DIR"); dir != "" {
		g, err := LoadGuest(dir)
		if err != nil || kernel == "" || strings.HasPrefix(g.Release, kernel+".") || strings.HasPrefix(g.Release, kernel+"-") {
			return g, err
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(root, ".ci", "guest.sh")
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "USCTP_GUEST_KERNEL="+kernel)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if logw != nil && stderr.Len() > 0 {
		logw(strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return nil, fmt.Errorf("kernelvm: %s: %w\n%s", script, err, stderr.Bytes())
	}
	return LoadGuest(strings.TrimSpace(stdout.String()))
}

// moduleRoot finds the directory of go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("kernelvm: no go.mod above the working directory")
		}
		dir = parent
	}
}
