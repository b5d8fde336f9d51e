package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// needNetns skips a test that creates network namespaces where it cannot:
// not root, or no ip(8).
func needNetns(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creating network namespaces needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip(8): install iproute2")
	}
}

// gro reads the GRO state of a link with ETHTOOL_GGRO.
func gro(t *testing.T, link string) bool {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	value := &struct{ cmd, data uint32 }{0x2b, 0} // ETHTOOL_GGRO
	var ifr struct {
		name [unix.IFNAMSIZ]byte
		data uintptr
		_    [16]byte
	}
	copy(ifr.name[:], link)
	ifr.data = uintptr(unsafe.Pointer(value))
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(value)
	if errno != 0 {
		t.Fatalf("ETHTOOL_GGRO %s: %v", link, errno)
	}
	return value.data != 0
}

// TestSetGRO: setGRO turns GRO on on a veth end, where it starts off.
func TestSetGRO(t *testing.T) {
	needNetns(t)
	a, b := fmt.Sprintf("tgro%da", os.Getpid()), fmt.Sprintf("tgro%db", os.Getpid())
	if out, err := exec.Command("ip", "link", "add", a, "type", "veth", "peer", "name", b).CombinedOutput(); err != nil {
		t.Fatalf("ip link add: %v: %s", err, out)
	}
	defer exec.Command("ip", "link", "del", a).Run()
	if gro(t, a) {
		t.Logf("GRO already on for a new veth")
	}
	if err := setGRO(a); err != nil {
		t.Fatal(err)
	}
	if !gro(t, a) {
		t.Errorf("GRO off on %s after setGRO", a)
	}
}

// TestNetnsCompare runs sctpperf -netns as a user does: usctp beside the
// kernel's TCP over a 1500-byte veth link between two namespaces, which
// are gone afterwards.
func TestNetnsCompare(t *testing.T) {
	needNetns(t)
	t.Setenv("SCTPPERF_TEST_MAIN", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	for _, test := range []string{"SCTP_STREAM", "SCTP_RR"} {
		out.Reset()
		errb.Reset()
		args := strings.Fields("-netns 1500 -l 0.3 -rounds 1 -compare usctp,tcp -t " + test)
		if err := run(ctx, args, strings.NewReader(""), &out, &errb); err != nil {
			t.Fatalf("%s: %v\n%s", test, err, errb.String())
		}
		if !strings.Contains(out.String(), "usctp/tcp = ") {
			t.Errorf("%s output:\n%s\n%s", test, out.String(), errb.String())
		}
	}
	nss, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	if prefix := fmt.Sprintf("sctpperf-%d-", os.Getpid()); strings.Contains(string(nss), prefix) {
		t.Errorf("namespaces left behind:\n%s", nss)
	}
	if _, err := parseFlags(strings.Fields("-netns 1500"), &bytes.Buffer{}); err != nil {
		t.Error(err)
	}
	if err := run(ctx, strings.Fields("-netns 1500 -H 192.0.2.1"), strings.NewReader(""), &out, &errb); err == nil {
		t.Error("-netns with -H: no error")
	}
	if err := run(ctx, strings.Fields("-netns 576"), strings.NewReader(""), &out, &errb); err == nil {
		t.Error("-netns 576: no error")
	}
}
