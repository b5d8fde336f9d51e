package kernelvm

import (
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestKernelSocketOptions checks that kpeer's raw socket options reach the kernel: every
// scheduler the guest kernel knows (6.1: fcfs, prio, rr; 6.12 also fc and wfq), I-DATA
// and stream reconfiguration on a listener.
func TestKernelSocketOptions(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 2*time.Minute)
	var ok, refused []string
	for _, s := range []string{"fcfs", "prio", "rr", "fc", "wfq"} {
		l, err := vm.Do(ctx, fmt.Sprintf("listen id=sched-%s port=0 sched=%s", s, s), "READY id=sched-"+s+" ")
		switch {
		case err == nil && l.Int("port") > 0:
			ok = append(ok, s)
		case err != nil && strings.Contains(err.Error(), "ERR id=sched-"):
			refused = append(refused, s)
		default:
			t.Fatal(err)
		}
	}
	t.Logf("kernel %s: schedulers accepted %v, refused %v", vm.guest.Release, ok, refused)
	if len(ok) < 3 || ok[0] != "fcfs" || ok[1] != "prio" || ok[2] != "rr" {
		t.Errorf("schedulers accepted: %v, want at least fcfs, prio and rr", ok)
	}
	if strings.HasPrefix(vm.guest.Release, "6.12") && len(ok) != 5 {
		t.Errorf("kernel %s accepted %v, want all five", vm.guest.Release, ok)
	}
	if _, err := vm.Do(ctx, "listen id=opts port=0 intl=1 reset=1 buf=4194304 ostreams=65535 istreams=65535", "READY id=opts "); err != nil {
		t.Fatal(err)
	}
}

// TestKernelUDPGuestClient is transport A the other way: kpeer dials the host through
// QEMU's user network with SCTP_REMOTE_UDP_ENCAPS_PORT naming a host UDP port; the
// host gets the kernel's INIT (I-DATA and reconfiguration offered) and refuses it with an
// ABORT that reaches the kernel through the NAT.
func TestKernelUDPGuestClient(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 2*time.Minute)
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	port := conn.LocalAddr().(*net.UDPAddr).Port
	cmd := fmt.Sprintf("dial id=out addr=%s port=6001 encap=%d intl=1 reset=1 ostreams=300 istreams=200 mode=sink",
		HostUserIP, port)
	if err := vm.Command(cmd); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(90 * time.Second))
	buf := make([]byte, 2048)
	n, from, err := conn.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no INIT from the guest: %v", err)
	}
	p := buf[:n]
	if err := checkCRC(p); err != nil || len(p) < 32 || p[12] != 1 {
		t.Fatalf("from %v: %x: want an INIT with a good checksum (%v)", from, p, err)
	}
	if dst := binary.BigEndian.Uint16(p[2:]); dst != 6001 {
		t.Errorf("INIT for SCTP port %d, want 6001", dst)
	}
	if os, mis := binary.BigEndian.Uint16(p[12+12:]), binary.BigEndian.Uint16(p[12+14:]); os != 300 || mis != 200 {
		t.Errorf("INIT streams out %d in %d, want 300 and 200", os, mis)
	}
	t.Logf("guest INIT from %v (%d bytes)", from, n)
	writeSeed(t, "init-udp.bin", p)

	// ABORT with the T bit clear carries the INIT's initiate tag (RFC 9260 section 8.4).
	abort := make([]byte, 16)
	binary.BigEndian.PutUint16(abort[0:], binary.BigEndian.Uint16(p[2:]))
	binary.BigEndian.PutUint16(abort[2:], binary.BigEndian.Uint16(p[0:]))
	copy(abort[4:8], p[16:20])
	abort[12] = 6
	binary.BigEndian.PutUint16(abort[14:], 4)
	setCRC(abort)
	if _, err := conn.WriteToUDP(abort, from); err != nil {
		t.Fatal(err)
	}
	l, err := vm.WaitLine(ctx, "ERR id=out cmd=dial")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel: %s", l)
}
