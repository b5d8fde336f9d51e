//go:build linux

package netio

import (
	"net/netip"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestHostAddrs: the list opened in a namespace has that namespace's
// addresses (whichever thread asks later), IPv6 link-local ones with their
// interface index as zone; it is read again only after the kernel
// announced a change, and then has the change (within hostAddrsRecheck).
func TestHostAddrs(t *testing.T) {
	a, _ := netnsPair(t)
	var h *HostAddrs
	var err error
	inNetns(t, a, func() { h, err = NewHostAddrs() })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got := h.Addrs()
	for _, want := range []string{"127.0.0.1", "::1", "10.201.0.1", "fd00:201::1"} {
		if !slices.Contains(got, netip.MustParseAddr(want)) {
			t.Errorf("%v missing from %v", want, got)
		}
	}
	if slices.Contains(got, netip.MustParseAddr("10.201.0.2")) {
		t.Errorf("the other namespace's address in %v", got)
	}
	// The veth's link-local address (it may still be in duplicate
	// address detection: wait for it).
	ll := func() bool {
		for _, ip := range h.Addrs() {
			if ip.IsLinkLocalUnicast() && ip.Is6() {
				if ip.Zone() == "" {
					t.Fatalf("link-local %v without zone", ip)
				}
				return true
			}
		}
		return false
	}
	for end := time.Now().Add(10 * time.Second); !ll(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no link-local address in %v", h.Addrs())
		}
	}
	n := h.Dumps()
	for range 3 {
		h.Addrs()
	}
	if h.Dumps() != n {
		t.Errorf("%d dumps without a change", h.Dumps()-n)
	}
	if out, err := exec.Command("ip", "-n", a, "addr", "add", "10.202.0.7/24", "dev", "usctp0").CombinedOutput(); err != nil {
		t.Fatalf("ip addr add: %v\n%s", err, out)
	}
	waitAddrs(t, h, func(got []netip.Addr) bool { return slices.Contains(got, netip.MustParseAddr("10.202.0.7")) })
	if h.Dumps() == n {
		t.Error("no dump after the change")
	}
	if out, err := exec.Command("ip", "-n", a, "addr", "del", "10.202.0.7/24", "dev", "usctp0").CombinedOutput(); err != nil {
		t.Fatalf("ip addr del: %v\n%s", err, out)
	}
	waitAddrs(t, h, func(got []netip.Addr) bool { return !slices.Contains(got, netip.MustParseAddr("10.202.0.7")) })
}

// waitAddrs polls h until ok accepts its list (a change shows within
// hostAddrsRecheck) or 5 s pass.
func waitAddrs(t *testing.T, h *HostAddrs, ok func([]netip.Addr) bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !ok(h.Addrs()); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("list %v never as wanted", h.Addrs())
		}
	}
}

// BenchmarkHostAddrs: the list read while nothing changes (one
// non-blocking read of the netlink socket).
func BenchmarkHostAddrs(b *testing.B) {
	h, err := NewHostAddrs()
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ReportAllocs()
	for b.Loop() {
		h.Addrs()
	}
	if h.Dumps() > 2 {
		b.Logf("%d dumps: the host's addresses changed meanwhile", h.Dumps())
	}
}

// FuzzHostAddrsParse: whatever a netlink datagram holds, parsing it never
// panics, and addresses come out only of RTM_NEWADDR messages of the dump.
func FuzzHostAddrsParse(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Add([]byte{40, 0, 0, 0, 20, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 24, 0, 0, 3, 0, 0, 0, 8, 0, 2, 0, 10, 0, 0, 1, 8, 0, 1, 0, 10, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		h := &HostAddrs{seq: 1}
		var addrs []netip.Addr
		h.parse(b, &addrs)
		for _, a := range addrs {
			if !a.IsValid() {
				t.Errorf("invalid address from %x", b)
			}
		}
		parseIfAddr(b)
	})
}
