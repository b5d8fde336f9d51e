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
	t.Logf("kernel %s: schedulers accepted %v, refused %v", vm.Guest().Release, ok, refused)
	if len(ok) < 3 || ok[0] != "fcfs" || ok[1] != "prio" || ok[2] != "rr" {
		t.Errorf("schedulers accepted: %v, want at least fcfs, prio and rr", ok)
	}
	if strings.HasPrefix(vm.Guest().Release, "6.12") && len(ok) != 5 {
		t.Errorf("kernel %s accepted %v, want all five", vm.Guest().Release, ok)
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

// TestKernel612 boots the Debian 6.12 cloud kernel (bookworm-security), which the
// scheduler interop tests need for fc and wfq, with listeners using both, and checks
// its handshake over transport A.
func TestKernel612(t *testing.T) {
	vm := Boot(t, Config{Kernel: "6.12", Commands: []string{
		"listen id=wfq port=5003 sched=wfq",
		"listen id=fc port=5004 sched=fc",
	}})
	t.Logf("kernel %s: boot to ready %v", vm.Guest().Release, vm.BootTime.Round(time.Millisecond))
	if !strings.HasPrefix(vm.Guest().Release, "6.12") {
		t.Fatalf("guest kernel %s, want 6.12", vm.Guest().Release)
	}
	ctx := ctxFor(t, 2*time.Minute)
	for _, want := range []string{"READY id=wfq port=5003", "READY id=fc port=5004"} {
		if _, err := vm.WaitLine(ctx, want); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tag := uint32(0x612612)
	buf := make([]byte, 2048)
	p, err := retry(ctx, func() ([]byte, error) {
		if _, err := conn.WriteToUDP(sctpInit(40612, 5003, tag, 1), vm.UDPAddr()); err != nil {
			return nil, err
		}
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _, err := conn.ReadFromUDP(buf)
		return buf[:n], err
	})
	if err != nil {
		t.Fatal(err)
	}
	checkInitAck(t, p, 5003, 40612, tag)
	writeSeed(t, "init-ack-udp-6.12.bin", p)
}
