//go:build linux

package sctp

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// TestSharedSocketSendsECT0: an endpoint on a shared socket (a listener on
// a fixed UDP port, netio.SharedConn) sends ECT(0) as one on a socket of its
// own does (ECN is negotiated by default): its INIT ACK to a plain UDP
// socket arrives with the IP header's ECN field 2, and its capture
// records that.
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
	pcap := filepath.Join(t.TempDir(), "l.pcap")
	l, port := onFreeUDPPort(t, "127.0.0.1", func(port uint16) (*Endpoint, error) {
		return Listen("127.0.0.1:7000", &Config{UDPPort: port, Pcap: pcap})
	})
	defer l.Close()
	if _, ok := l.ports.(*netio.SharedConn); !ok {
		t.Fatal("listener not on a shared socket")
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
	l.Close()
	f, err := os.Open(pcap)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		pk := gopacket.NewPacket(data, layers.LayerTypeIPv4, gopacket.Default)
		ip, _ := pk.NetworkLayer().(*layers.IPv4)
		udp, _ := pk.TransportLayer().(*layers.UDP)
		if ip == nil || udp == nil || uint16(udp.SrcPort) != port {
			continue // not sent by the listener
		}
		sent++
		if ip.TOS&3 != 2 {
			t.Errorf("capture: packet sent with ECN field %d", ip.TOS&3)
		}
	}
	if sent == 0 {
		t.Error("capture: no packet sent")
	}
}
