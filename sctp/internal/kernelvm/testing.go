package kernelvm

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// InCI reports whether the tests run in CI (CI=true), where the kernel interop tests
// must never skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// Unavailable ends a test that cannot get its guest: it fails in CI and skips, with the
// reason, elsewhere.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("kernel interop guest unavailable (CI=true: never skipped): %v", err)
	}
	t.Skipf("kernel interop guest unavailable (run .ci/guest.sh as root, or set USCTP_GUEST_DIR): %v", err)
}

// Boot starts a VM for one test and closes it when the test ends; see Shared for one VM
// per test package.
func Boot(t testing.TB, cfg Config) *VM {
	t.Helper()
	if cfg.Logf == nil && os.Getenv("USCTP_KVM_VERBOSE") != "" {
		cfg.Logf = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if cfg.Guest == nil {
		g, err := FindGuest(ctx, cfg.Kernel, nil)
		if err != nil {
			Unavailable(t, err)
		}
		cfg.Guest = g
	}
	vm, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.Close() })
	return vm
}

// Shared is one VM for a whole test package, booted by the first test that asks for it
// and closed by TestMain:
//
//	var kvm = kernelvm.Shared{Config: kernelvm.Config{Commands: []string{"listen id=echo port=5001"}}}
//
//	func TestMain(m *testing.M) { code := m.Run(); kvm.Close(); os.Exit(code) }
//
//	func TestKernelX(t *testing.T) { vm := kvm.Get(t); ... }
//
// If the test binary dies (panic, test timeout), QEMU dies with it (parent-death signal).
type Shared struct {
	Config Config

	once      sync.Once
	vm        *VM
	err       error
	guestErr  bool
	StartTime time.Duration // how long the first Get took (guest preparation and boot)
}

// Get returns the package's VM, starting it on first use. A test that cannot have it
// fails in CI and skips elsewhere (Unavailable).
func (s *Shared) Get(t testing.TB) *VM {
	t.Helper()
	s.once.Do(func() {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cfg := s.Config
		if cfg.Logf == nil && os.Getenv("USCTP_KVM_VERBOSE") != "" {
			cfg.Logf = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
		}
		if cfg.Guest == nil {
			g, err := FindGuest(ctx, cfg.Kernel, nil)
			if err != nil {
				s.err, s.guestErr = err, true
				return
			}
			cfg.Guest = g
		}
		s.vm, s.err = Start(ctx, cfg)
		s.StartTime = time.Since(start)
	})
	if s.guestErr {
		Unavailable(t, s.err)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.vm
}

// Close closes the VM if one was started.
func (s *Shared) Close() {
	if s.vm != nil {
		s.vm.Close()
	}
}
