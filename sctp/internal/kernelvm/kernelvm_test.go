package kernelvm

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// One VM serves the whole package, as it will for the association's interop tests.
var kvm = Shared{Config: Config{
	Commands: []string{
		"listen id=srv port=5001 mode=echo",                            // for the host
		"listen id=self addr=127.0.0.1 port=5002 mode=echo ostreams=7", // for the guest's own client
	},
	Tap: os.Geteuid() == 0,
}}

func TestMain(m *testing.M) {
	code := m.Run()
	kvm.Close()
	os.Exit(code)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestKernelBoot boots the guest and has kpeer's client talk to kpeer's server inside
// it: every message's stream id, PPID, length, ordering flag and payload checksum is
// checked on both sides from the lines kpeer reports.
func TestKernelBoot(t *testing.T) {
	vm := kvm.Get(t)
	t.Logf("guest %s; first Get %v: initramfs %v, boot to ready %v", vm.Guest().Package,
		kvm.StartTime.Round(time.Millisecond), vm.PrepTime.Round(time.Millisecond), vm.BootTime.Round(time.Millisecond))
	ctx := ctxFor(t, 2*time.Minute)
	if _, err := vm.WaitLine(ctx, "READY id=srv port=5001"); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.WaitLine(ctx, "READY id=self port=5002"); err != nil {
		t.Fatal(err)
	}

	const count, streams, ppid = 24, 5, 100
	sizes := []int{1, 1000, 70000} // 70000 > the 64 KiB path MTU: fragmented
	type want struct {
		sid, ppid, len, unordered int
	}
	wants := map[string]want{} // by payload CRC
	for i := 0; i < count; i++ {
		b := make([]byte, sizes[i%len(sizes)])
		for j := range b {
			b[j] = byte(i*7 + j)
		}
		sid := i % streams
		wants[fmt.Sprintf("%08x", crc32.ChecksumIEEE(b))] = want{sid, ppid + sid, len(b), i % 2}
	}
	if len(wants) != count {
		t.Fatalf("payload checksums collide: %d distinct of %d", len(wants), count)
	}
	cmd := fmt.Sprintf("dial id=cli addr=127.0.0.1 port=5002 mode=source count=%d streams=%d ppid=%d "+
		"size=1,1000,70000 unordered=alt expect=%d then=close ostreams=9 istreams=6", count, streams, ppid, count)
	c, err := vm.Do(ctx, cmd, "CONNECTED id=cli")
	if err != nil {
		t.Fatal(err)
	}
	// The client asks for 9 out and at most 6 in; the server offers 7 out and takes
	// up to 65535 in: 9 streams one way, min(7, 6) = 6 the other.
	if c.Int("ostreams") != 9 || c.Int("istreams") != 6 {
		t.Errorf("client: %s, want ostreams=9 istreams=6", c)
	}
	if a, err := vm.WaitLine(ctx, "ACCEPT id=self"); err != nil {
		t.Fatal(err)
	} else if a.Int("ostreams") != 6 || a.Int("istreams") != 9 {
		t.Errorf("server: %s, want ostreams=6 istreams=9", a)
	}
	for _, side := range []string{"self", "cli"} {
		seen := map[string]bool{}
		for i := 0; i < count; i++ {
			l, err := vm.WaitLine(ctx, "MSG id="+side+" ")
			if err != nil {
				t.Fatal(err)
			}
			crc := l.Get("crc")
			w, ok := wants[crc]
			got := want{l.Int("sid"), l.Int("ppid"), l.Int("len"), l.Int("unordered")}
			if !ok || seen[crc] || got != w {
				t.Fatalf("%s got %s; want one of the %d sent messages once (for this payload: %+v)", side, l, count, w)
			}
			seen[crc] = true
		}
	}
	for _, side := range []string{"self", "cli"} {
		l, err := vm.WaitLine(ctx, "DONE id="+side+" ")
		if err != nil {
			t.Fatal(err)
		}
		if l.Int("msgs") != count || l.Get("end") != "eof" {
			t.Errorf("%s", l)
		}
	}
}

// TestKernelUDPInit is transport A: a hand-built INIT over UDP to the forwarded port gets
// the kernel's INIT ACK back on the same socket, with our initiate tag as its
// verification tag.
func TestKernelUDPInit(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 2*time.Minute)
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	pcap := PcapFor(t)
	local, remote := conn.LocalAddr().(*net.UDPAddr).AddrPort(), vm.UDPAddr().AddrPort()
	start := time.Now()
	tag := rand.Uint32() | 1
	init := sctpInit(40000, 5001, tag, 12345)
	buf := make([]byte, 2048)
	p, err := retry(ctx, func() ([]byte, error) {
		pcap.WriteSCTP(time.Now(), local, remote, true, init)
		if _, err := conn.WriteToUDP(init, vm.UDPAddr()); err != nil {
			return nil, err
		}
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, from, err := conn.ReadFromUDP(buf)
		if err != nil {
			return nil, err
		}
		pcap.WriteSCTP(time.Now(), from.AddrPort(), local, true, buf[:n])
		if from.Port != vm.UDPAddr().Port {
			return nil, fmt.Errorf("reply from %v, want %v", from, vm.UDPAddr())
		}
		return buf[:n], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkInitAck(t, p, 5001, 40000, tag)
	pcap.Close()
	CheckPcap(t, pcap.Path)
	t.Logf("INIT -> INIT ACK over UDP in %v", time.Since(start).Round(time.Millisecond))
	writeSeed(t, "init-ack-udp.bin", p)
}

// TestKernelRawInit is transport B: the same over plain IP through the tap device in the
// test's network namespace, with a raw protocol-132 socket.
func TestKernelRawInit(t *testing.T) {
	vm := kvm.Get(t)
	if !vm.HasTap() {
		Unavailable(t, fmt.Errorf("transport B needs root for its network namespace"))
	}
	ctx := ctxFor(t, 2*time.Minute)
	var fd int
	err := vm.InNetns(func() (err error) {
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_SCTP)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	tv := unix.NsecToTimeval((2 * time.Second).Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	guest := &unix.SockaddrInet4{Addr: [4]byte(net.ParseIP(GuestTapIP).To4())}
	start := time.Now()
	tag := rand.Uint32() | 1
	init := sctpInit(40001, 5001, tag, 777)
	buf := make([]byte, 2048)
	p, err := retry(ctx, func() ([]byte, error) {
		if err := unix.Sendto(fd, init, 0, guest); err != nil {
			return nil, err
		}
		for {
			n, _, err := unix.Recvfrom(fd, buf, 0)
			if err != nil {
				return nil, err
			}
			// A raw IPv4 socket receives the IP header too.
			ihl := int(buf[0]&0x0f) * 4
			if n < ihl+12 || net.IP(buf[12:16]).String() != GuestTapIP {
				continue
			}
			if binary.BigEndian.Uint16(buf[ihl+2:]) != 40001 {
				continue // not for us
			}
			return buf[ihl:n], nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkInitAck(t, p, 5001, 40001, tag)
	t.Logf("INIT -> INIT ACK over raw IP in %v", time.Since(start).Round(time.Millisecond))
	writeSeed(t, "init-ack-raw.bin", p)
}

func checkInitAck(t *testing.T, p []byte, src, dst uint16, tag uint32) {
	t.Helper()
	a, err := parseInitAck(p)
	if err != nil {
		t.Fatalf("kernel's answer (%d bytes %x): %v", len(p), p, err)
	}
	if a.vtag != tag || a.src != src || a.dst != dst || a.initiateTag == 0 || a.outStreams != 10 || a.inMax == 0 {
		t.Fatalf("INIT ACK %+v: want ports %d->%d, verification tag %#x, a nonzero initiate tag, 10 outbound streams",
			a, src, dst, tag)
	}
}

// retry is Retry for a try that returns a packet.
func retry(ctx context.Context, try func() ([]byte, error)) ([]byte, error) {
	var p []byte
	err := Retry(ctx, 500*time.Millisecond, func() (err error) {
		p, err = try()
		return err
	})
	return p, err
}

// writeSeed keeps a real kernel packet for the codec's fuzz corpus when
// USCTP_WRITE_SEEDS is set.
func writeSeed(t *testing.T, name string, p []byte) {
	if os.Getenv("USCTP_WRITE_SEEDS") == "" {
		return
	}
	if err := os.WriteFile(filepath.Join("testdata", name), p, 0o644); err != nil {
		t.Error(err)
	}
}

// TestKernelDiagnose: the report a failed interop test gets shows a guest that reaches
// the host through QEMU's user network, the guest kernel's log, and QEMU's indexes of
// the virtio-net queues.
func TestKernelDiagnose(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 2*time.Minute)
	d := vm.Diagnose(ctx)
	for _, want := range []string{
		"3 packets transmitted, 3 packets received", // the ping of HostUserIP
		"dmesg, last lines (exit 0)",
		"eth0:",            // /proc/net/dev
		"virtio",           // /proc/interrupts
		"Udp: InDatagrams", // /proc/net/snmp
		`"last-avail-idx"`, // QEMU's queue status
		"virtio-net-pci",   // info network
	} {
		if !strings.Contains(d, want) {
			t.Errorf("Diagnose: no %q in\n%s", want, d)
		}
	}
}

// TestKernelPossibleCPUs: the guest runs on one CPU with room for a second, the setting
// under which QEMU keeps the guest's memory barriers that virtio needs (see boot).
func TestKernelPossibleCPUs(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, time.Minute)
	for file, want := range map[string]string{"possible": "0-1", "online": "0"} {
		res, err := vm.Run(ctx, "cpus-"+file, "/bin/cat", "/sys/devices/system/cpu/"+file)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Stdout, ""); got != want {
			t.Errorf("/sys/devices/system/cpu/%s = %q, want %q", file, got, want)
		}
	}
}
