package sctp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mountBPFFS mounts bpffs at /sys/fs/bpf when nothing is mounted there
// and the process may, so that the tests' processes can share UDP ports
// (best effort: the tests that need it skip without it).
func mountBPFFS() {
	var st unix.Statfs_t
	if unix.Statfs("/sys/fs/bpf", &st) == nil && st.Type != unix.BPF_FS_MAGIC {
		_ = unix.Mount("bpf", "/sys/fs/bpf", "bpf", 0, "")
	}
}

// needHostGroups skips the test unless this process may share UDP ports
// with other processes: its own Listen shows it.
func needHostGroups(t *testing.T) {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs("/sys/fs/bpf", &st); err != nil || st.Type != unix.BPF_FS_MAGIC {
		t.Skip("bpffs is not mounted at /sys/fs/bpf, and the test may not mount it: processes cannot share a UDP port")
	}
	if unix.Geteuid() != 0 {
		// CAP_BPF alone may do, but bpffs is usually root's.
		t.Skip("not root: processes may not load the BPF program that shares a UDP port")
	}
}

// The two test addresses: loopback addresses of their own, so that other
// programs on the default UDP port of 127.0.0.1 do not get in the way.
const (
	groupAddr   = "127.3.0.1"
	noPrivAddr  = "127.3.0.2"
	noPrivAddr2 = "127.3.0.3"
)

// TestTwoServerProcessesOneUDPPort: two server processes listen on one
// address with the default UDP port (9899), each on its SCTP port, and
// one client process reaches both, as with the kernel's SCTP; an INIT to
// an SCTP port neither serves is answered with an ABORT (RFC 9260
// section 8.4), and so is one to the port of a server that exited.
func TestTwoServerProcessesOneUDPPort(t *testing.T) {
	needHostGroups(t)
	a, err := startServer(t, groupAddr+":5071", nil)
	if err != nil && strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("UDP %s:9899, the default this test is about, is taken by another program: %v", groupAddr, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startServer(t, groupAddr+":5072", nil); err != nil {
		t.Fatalf("second server process: %v", err)
	}
	if _, err := startServer(t, groupAddr+":5072", nil); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("third server process on the second's SCTP port: %v, want EADDRINUSE", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, port := range []int{5071, 5072} {
		addr := fmt.Sprintf("%s:%d", groupAddr, port)
		c, err := Dial(ctx, addr, nil)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		defer c.Close()
		for i := range 20 {
			echoVia(t, c, fmt.Sprintf("%s #%d", addr, i))
		}
	}
	refused := func(addr string) {
		t.Helper()
		start := time.Now()
		_, err := Dial(ctx, addr, nil)
		if !errors.Is(err, ErrConnRefused) {
			t.Fatalf("dial %s: %v, want ErrConnRefused", addr, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("dial %s refused after %v", addr, d)
		}
	}
	refused(groupAddr + ":5073")
	a.stop() // the first server, whose socket is the default
	refused(groupAddr + ":5071")
	refused(groupAddr + ":5073")
}

// TestUDPPortSharingNeedsPrivilege: a server process that may not load BPF
// programs (run in a user namespace of its own) fails to listen on an
// address and port another server process holds with an error that says
// why and what to do, whichever started first; processes that may share
// go on working.
func TestUDPPortSharingNeedsPrivilege(t *testing.T) {
	needHostGroups(t)
	unprivileged := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	if _, err := startServer(t, noPrivAddr+":5081", nil); err != nil {
		t.Skipf("server process: %v", err)
	}
	_, err := startServer(t, noPrivAddr+":5082", unprivileged)
	if errors.Is(err, errNoServer) {
		t.Skipf("a process in a user namespace of its own: %v", err)
	}
	if err == nil {
		t.Fatal("an unprivileged process listens beside a privileged one")
	}
	t.Logf("unprivileged after privileged: %v", err)
	for _, want := range []string{"UDP " + noPrivAddr + ":9899 is held by another process", "CAP_BPF",
		"use another UDP port or address", "address already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	if _, err := startServer(t, noPrivAddr2+":5083", unprivileged); err != nil {
		t.Skipf("unprivileged server process: %v", err)
	}
	_, err = startServer(t, noPrivAddr2+":5084", nil)
	if err == nil {
		t.Fatal("a privileged process listens beside an unprivileged one")
	}
	t.Logf("privileged after unprivileged: %v", err)
	for _, want := range []string{"UDP " + noPrivAddr2 + ":9899 is held by a socket that does not share it",
		"CAP_BPF", "use another UDP port or address", "address already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, addr := range []string{noPrivAddr + ":5081", noPrivAddr2 + ":5083"} {
		c, err := Dial(ctx, addr, nil)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		echoVia(t, c, "still served")
		c.Close()
	}
}
