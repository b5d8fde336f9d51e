package netio

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// needHostGroups skips the test unless the process may join host groups,
// mounting bpffs at /sys/fs/bpf first when it is not mounted and the
// process may mount it.
func needHostGroups(t *testing.T) {
	t.Helper()
	var st unix.Statfs_t
	if unix.Statfs(bpffsRoot, &st) == nil && st.Type != unix.BPF_FS_MAGIC {
		if err := unix.Mount("bpf", bpffsRoot, "bpf", 0, ""); err == nil {
			groupProbe.once = sync.Once{} // probe again, with bpffs
		}
	}
	if err := groupAvailable(); err != nil {
		t.Skipf("host groups unavailable: %v", err)
	}
}

// groupSocket opens a UDP socket on addr with SO_REUSEPORT that joins the
// host group of addr, as another process's would.
func groupSocket(t *testing.T, addr netip.AddrPort) (*UDPConn, *hostGroup) {
	t.Helper()
	u, err := ListenUDP(UDPConfig{Addr: addr, ReusePort: true})
	if err != nil {
		t.Fatal(err)
	}
	return u, groupJoin(t, u)
}

// firstGroupSocket is groupSocket on 127.0.0.1 and a port free a moment
// before, tried again on another when another program took it; it
// returns the address too.
func firstGroupSocket(t *testing.T) (*UDPConn, *hostGroup, netip.AddrPort) {
	t.Helper()
	u, addr := onFreeLoopbackPort(t, func(addr netip.AddrPort) (*UDPConn, error) {
		return ListenUDP(UDPConfig{Addr: addr, ReusePort: true})
	})
	return u, groupJoin(t, u), addr
}

// groupJoin has u join the host group of its address.
func groupJoin(t *testing.T, u *UDPConn) *hostGroup {
	t.Helper()
	rc, err := u.c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	g, err := joinGroup(rc, u.LocalAddr(), netnsID())
	if err != nil {
		u.Close()
		t.Fatal(err)
	}
	return g
}

// onFreeLoopbackPort calls open with 127.0.0.1 and a UDP port free a
// moment before, until open binds it: another program may take the port
// in between, and then open fails with EADDRINUSE and another port is
// tried. It returns open's result and the address, which it then holds.
func onFreeLoopbackPort[T any](t *testing.T, open func(netip.AddrPort) (T, error)) (T, netip.AddrPort) {
	t.Helper()
	for try := 1; ; try++ {
		addr := freeLoopbackPort(t)
		v, err := open(addr)
		if err == nil {
			return v, addr
		}
		if !errors.Is(err, syscall.EADDRINUSE) || try == 10 {
			t.Fatalf("UDP %v: %v", addr, err)
		}
	}
}

// freeLoopbackPort returns 127.0.0.1 and a UDP port free now.
func freeLoopbackPort(t *testing.T) netip.AddrPort {
	t.Helper()
	probe, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	return probe.LocalAddr().(*net.UDPAddr).AddrPort()
}

// TestHostGroupSteersBySCTPPort: two members of the host group of one
// address and port, as two processes' sockets, each get the datagrams of
// the SCTP ports they registered; the datagrams of a port nobody
// registered go to the default member (the first), and to the other one
// once the first leaves; a port is registered once in the group; the last
// member to leave removes the pins.
func TestHostGroupSteersBySCTPPort(t *testing.T) {
	needHostGroups(t)
	a, ga, addr := firstGroupSocket(t)
	b, gb := groupSocket(t, addr)
	defer b.Close()
	if ga.slot != 0 || gb.slot != 1 {
		t.Fatalf("member slots %d and %d, want 0 and 1", ga.slot, gb.slot)
	}
	for _, c := range []struct {
		g    *hostGroup
		port uint16
	}{{ga, 5001}, {gb, 5002}, {gb, 5003}} {
		if err := c.g.claim(c.port); err != nil {
			t.Fatalf("claim %d: %v", c.port, err)
		}
	}
	if err := ga.claim(5002); !errors.Is(err, errServedElsewhere) {
		t.Fatalf("claim of the other member's port: %v", err)
	}
	if !ga.servedElsewhere(5002) || ga.servedElsewhere(5001) || ga.servedElsewhere(6000) {
		t.Fatal("servedElsewhere wrong")
	}

	peer, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	send := func(dst uint16, tag byte) {
		if _, err := peer.Write(sctpTo(dst, tag)); err != nil {
			t.Fatal(err)
		}
	}
	send(5001, 1)
	send(5002, 2)
	send(6000, 3) // nobody's: the default's
	send(5003, 4)
	if _, err := peer.Write([]byte{1, 2, 3}); err != nil { // too short for a port
		t.Fatal(err)
	}
	if got := readTags(t, a, 3); string(got) != "\x01\x03\x03" {
		t.Fatalf("first member read %v, want [1 3 3]", got)
	}
	if got := readTags(t, b, 2); string(got) != "\x02\x04" {
		t.Fatalf("second member read %v, want [2 4]", got)
	}

	// A released port is nobody's; another member may take it.
	gb.release(5003)
	send(5003, 5)
	if got := readTags(t, a, 1); string(got) != "\x05" {
		t.Fatalf("first member read %v, want [5]", got)
	}
	if err := ga.claim(5003); err != nil {
		t.Fatal(err)
	}

	// The first member leaves: its entries are stale, its port free for
	// a claim, and nobody's packets go to the remaining member.
	if err := ga.leave(a.Close); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gb.pin + "_members"); err != nil {
		t.Fatalf("pins removed while a member remains: %v", err)
	}
	if gb.servedElsewhere(5001) {
		t.Fatal("a closed member's port is served elsewhere")
	}
	send(6000, 6)
	send(5001, 7)
	if got := readTags(t, b, 2); string(got) != "\x06\x07" {
		t.Fatalf("remaining member read %v, want [6 7]", got)
	}
	if err := gb.claim(5001); err != nil {
		t.Fatalf("claim of a closed member's port: %v", err)
	}
	if err := gb.leave(b.Close); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(gb.pin + "*"); len(m) != 0 {
		t.Fatalf("pins left after the last member: %v", m)
	}
}

// TestHostGroupStaleSlot: a member joining on the slot of a member that
// died without withdrawing its ports removes their entries.
func TestHostGroupStaleSlot(t *testing.T) {
	needHostGroups(t)
	a, ga, addr := firstGroupSocket(t)
	b, gb := groupSocket(t, addr)
	defer gb.leave(b.Close)
	if err := ga.claim(5001); err != nil {
		t.Fatal(err)
	}
	a.Close() // as a process that dies: no release, no leave
	ga.closeMaps()
	c, gc := groupSocket(t, addr)
	defer gc.leave(c.Close)
	if gc.slot != ga.slot {
		t.Fatalf("new member on slot %d, want the dead one's %d", gc.slot, ga.slot)
	}
	var e portEntry
	if err := gc.ports.Lookup(uint32(5001), &e); err == nil {
		t.Fatalf("stale entry %+v kept", e)
	}
}

// TestHostGroupRefusesForeignReusePort: a socket does not found a host
// group on an address and port that sockets outside any group share with
// SO_REUSEPORT (ListenShards'), whose datagrams the selection program
// would take; they keep getting them.
func TestHostGroupRefusesForeignReusePort(t *testing.T) {
	needHostGroups(t)
	shard, addr := onFreeLoopbackPort(t, func(addr netip.AddrPort) (*UDPConn, error) {
		return ListenUDP(UDPConfig{Addr: addr, ReusePort: true})
	})
	defer shard.Close()
	if n, err := UDPBound(addr); err != nil || n != 1 {
		t.Fatalf("UDPBound(%v) = %d, %v, want 1", addr, n, err)
	}
	_, err := OpenSharedUDP(UDPConfig{Addr: addr}, 5001)
	if !errors.Is(err, unix.EADDRINUSE) || !strings.Contains(err.Error(), "outside a host group") {
		t.Fatalf("group beside a shard: %v", err)
	}
	if m, _ := filepath.Glob(pinPrefix(addr, netnsID()) + "*"); len(m) != 0 {
		t.Fatalf("pins left by a group that was not founded: %v", m)
	}
	peer, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	for i := range 4 {
		if _, err := peer.Write(sctpTo(5001, byte(i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := readTags(t, shard, 4); string(got) != "\x00\x01\x02\x03" {
		t.Fatalf("shard read %v", got)
	}
}

// TestHostGroupDropsOthersPackets: a datagram of another member's SCTP
// port that reaches a member (a GSO send mixing two associations reaches
// the socket of its first datagram whole) is dropped, not handed to the
// member's default endpoint, which would answer it as out of the blue.
func TestHostGroupDropsOthersPackets(t *testing.T) {
	needHostGroups(t)
	a, addr := onFreeLoopbackPort(t, func(addr netip.AddrPort) (*SharedConn, error) {
		return OpenSharedUDP(UDPConfig{Addr: addr}, 5001)
	})
	defer a.Close()
	if a.s.group == nil {
		t.Fatal("the shared socket is in no host group")
	}
	b, gb := groupSocket(t, addr) // another process's
	defer gb.leave(b.Close)
	if err := gb.claim(5002); err != nil {
		t.Fatal(err)
	}
	peer, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	rc, err := peer.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	payload := append(sctpTo(5001, 1), sctpTo(5002, 2)...)
	oob := make([]byte, unix.CmsgSpace(2))
	putSegmentCmsg(oob, 16)
	var serr error
	if err := rc.Write(func(fd uintptr) bool {
		_, serr = unix.SendmsgN(int(fd), payload, oob, nil, 0)
		return true
	}); err != nil || serr != nil {
		t.Skipf("no UDP GSO send: %v %v", err, serr)
	}
	if _, err := peer.Write(sctpTo(5001, 3)); err != nil {
		t.Fatal(err)
	}
	if got := readTags(t, a, 2); string(got) != "\x01\x03" {
		t.Fatalf("member read %v, want [1 3]", got)
	}
	if n := a.s.foreign.Load(); n != 1 {
		t.Fatalf("%d packets of another member's port dropped, want 1", n)
	}
}
