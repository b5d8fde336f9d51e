//go:build linux

package sctp

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/sctp/chunk"
)

// TestSharedSocketSendsECT0: an endpoint on a shared socket (a listener on
// a fixed UDP port, sharedsock.go) sends ECT(0) as one on a socket of its
// own does (ECN is negotiated by default): its INIT ACK to a plain UDP
// socket arrives with the IP header's ECN field 2.
func TestSharedSocketSendsECT0(t *testing.T) {
	rc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sc, err := rc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	sc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVTOS, 1) })
	if serr != nil {
		t.Skip("IP_RECVTOS:", serr)
	}
	port := freeUDPPort(t, "127.0.0.1")
	l, err := Listen("127.0.0.1:7000", &Config{UDPPort: port})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, ok := l.conn.(*portConn); !ok {
		t.Fatalf("listener on %T, not a shared socket", l.conn)
	}
	m := chunk.Init{Tag: 0x01020304, ARwnd: 65536, OutStreams: 1, InStreams: 1, InitialTSN: 1}
	b := chunk.Header{SrcPort: 6000, DstPort: 7000}.Append(nil)
	if b, err = m.Append(b); err != nil {
		t.Fatal(err)
	}
	chunk.SetChecksum(b)
	if _, err := rc.WriteToUDPAddrPort(b, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 2048), make([]byte, 64)
	rc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, oobn, _, _, err := rc.ReadMsgUDP(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		t.Fatal(err)
	}
	tos := -1
	for _, m := range msgs {
		if m.Header.Level == unix.IPPROTO_IP && m.Header.Type == unix.IP_TOS && len(m.Data) > 0 {
			tos = int(m.Data[0])
		}
	}
	if tos&3 != 2 {
		t.Errorf("INIT ACK's TOS %#x, want ECN field ECT(0)", tos)
	}
}
