package kernelvm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rawPeer is a hand-driven SCTP endpoint on a raw IP socket in transport B's namespace.
type rawPeer struct {
	t     *testing.T
	fd    int
	guest *unix.SockaddrInet4
	port  uint16
	buf   []byte
	pcap  *Pcap
}

var (
	hostTap  = netip.MustParseAddrPort(HostTapIP + ":0")
	guestTap = netip.MustParseAddrPort(GuestTapIP + ":0")
)

func newRawPeer(t *testing.T, vm *VM, port uint16) *rawPeer {
	t.Helper()
	r := &rawPeer{t: t, port: port, buf: make([]byte, 65536), pcap: PcapFor(t),
		guest: &unix.SockaddrInet4{Addr: [4]byte(net.ParseIP(GuestTapIP).To4())}}
	err := vm.InNetns(func() (err error) {
		r.fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_SCTP)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(r.fd) })
	tv := unix.NsecToTimeval((3 * time.Second).Nanoseconds())
	unix.SetsockoptTimeval(r.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return r
}

func (r *rawPeer) send(p []byte) {
	r.t.Helper()
	r.pcap.WriteSCTP(time.Now(), hostTap, guestTap, false, p)
	if err := unix.Sendto(r.fd, p, 0, r.guest); err != nil {
		r.t.Fatal(err)
	}
}

// recv returns the next packet from the guest to our port, without its IP header.
func (r *rawPeer) recv() ([]byte, error) {
	for {
		n, _, err := unix.Recvfrom(r.fd, r.buf, 0)
		if err != nil {
			return nil, err
		}
		ihl := int(r.buf[0]&0x0f) * 4
		if n < ihl+12 || net.IP(r.buf[12:16]).String() != GuestTapIP ||
			binary.BigEndian.Uint16(r.buf[ihl+2:]) != r.port {
			continue
		}
		p := append([]byte(nil), r.buf[ihl:n]...)
		r.pcap.WriteSCTP(time.Now(), guestTap, hostTap, false, p)
		if err := checkCRC(p); err != nil {
			return nil, fmt.Errorf("kernel packet %x: %v", p, err)
		}
		return p, nil
	}
}

// TestKernelRawAssociation drives a whole association with the guest kernel over raw IP
// (transport B) from hand-built packets: INIT, COOKIE ECHO, one DATA message on stream
// 1 that kpeer's echo server returns, SACK, ABORT. It checks the kernel's side through
// kpeer's lines and keeps the kernel's packets as seeds for the codec's fuzz corpus.
func TestKernelRawAssociation(t *testing.T) {
	vm := kvm.Get(t)
	if !vm.HasTap() {
		Unavailable(t, fmt.Errorf("transport B needs root for its network namespace"))
	}
	ctx := ctxFor(t, 2*time.Minute)
	const lport, kport = 40002, 5001
	r := newRawPeer(t, vm, lport)
	myTag, myTSN := uint32(0x0badcafe), uint32(1000)

	// INIT -> INIT ACK
	ack, err := retry(ctx, func() ([]byte, error) {
		r.send(sctpInit(lport, kport, myTag, myTSN))
		return r.recv()
	})
	if err != nil {
		t.Fatal(err)
	}
	ia, err := parseInitAck(ack)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := chunks(ack)
	if err != nil {
		t.Fatal(err)
	}
	cookie := param(cs[0].value[16:], 7) // State Cookie
	if len(cookie) == 0 || ia.vtag != myTag {
		t.Fatalf("INIT ACK %x: want our tag %#x and a State Cookie", ack, myTag)
	}

	// COOKIE ECHO -> COOKIE ACK
	r.send(packet(lport, kport, ia.initiateTag, 10, 0, cookie))
	cack := r.expect(ctx, myTag, 11)
	if _, err := vm.WaitLine(ctx, "ACCEPT id=srv "); err != nil {
		t.Fatal(err)
	}

	// DATA on stream 1, PPID 42 -> SACK and the echo.
	msg := []byte("hello, kernel")
	r.send(packet(lport, kport, ia.initiateTag, 0, 0x03, dataValue(myTSN, 1, 0, 42, msg)))
	var data, sack []byte
	for data == nil || sack == nil {
		p := r.expect(ctx, myTag, 0, 3)
		cs, _ := chunks(p)
		for _, c := range cs {
			switch c.typ {
			case 0:
				data = p
				v := c.value
				if len(v) < 12 || binary.BigEndian.Uint32(v[0:]) != ia.tsn ||
					binary.BigEndian.Uint16(v[4:]) != 1 || binary.BigEndian.Uint32(v[8:]) != 42 ||
					!bytes.Equal(v[12:], msg) || c.flags&0x03 != 0x03 {
					t.Fatalf("kernel DATA %x: want TSN %d, stream 1, PPID 42, %q in one fragment", v, ia.tsn, msg)
				}
			case 3:
				sack = p
				if cum := binary.BigEndian.Uint32(c.value); cum != myTSN {
					t.Fatalf("kernel SACK cumulative TSN %d, want %d", cum, myTSN)
				}
			}
		}
	}
	l, err := vm.WaitLine(ctx, "MSG id=srv ")
	if err != nil {
		t.Fatal(err)
	}
	if l.Int("sid") != 1 || l.Int("ppid") != 42 || l.Int("len") != len(msg) {
		t.Fatalf("kpeer got %s, want sid=1 ppid=42 len=%d", l, len(msg))
	}

	// SACK the echo, then ABORT.
	r.send(packet(lport, kport, ia.initiateTag, 3, 0, sackValue(ia.tsn, 65536)))
	r.send(packet(lport, kport, ia.initiateTag, 6, 0, nil))
	if _, err := vm.Wait(ctx, func(l Line) bool {
		return l.Verb == "EVENT" && l.Get("id") == "srv" && l.Get("state") == "comm_lost"
	}); err != nil {
		t.Fatal(err)
	}
	r.pcap.Close()
	CheckPcap(t, r.pcap.Path)
	writeSeed(t, "cookie-ack-raw.bin", cack)
	writeSeed(t, "data-raw.bin", data)
	if !bytes.Equal(sack, data) {
		writeSeed(t, "sack-raw.bin", sack)
	}
}

// expect returns the next kernel packet with verification tag vtag whose first chunk has
// one of the types; it fails the test on anything else but HEARTBEAT.
func (r *rawPeer) expect(ctx interface{ Err() error }, vtag uint32, types ...uint8) []byte {
	r.t.Helper()
	for ctx.Err() == nil {
		p, err := r.recv()
		if err != nil {
			r.t.Fatalf("waiting for chunk types %v: %v", types, err)
		}
		if len(p) < 16 {
			continue
		}
		for _, typ := range types {
			if p[12] == typ {
				if got := binary.BigEndian.Uint32(p[4:]); got != vtag {
					r.t.Fatalf("packet %x: verification tag %#x, want %#x", p, got, vtag)
				}
				return p
			}
		}
		if p[12] != 4 { // HEARTBEAT may come at any time
			r.t.Fatalf("packet %x: want chunk types %v", p, types)
		}
	}
	r.t.Fatal(ctx.Err())
	return nil
}
