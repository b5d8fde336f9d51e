package interop

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/logging"
	pion "github.com/pion/sctp"

	"github.com/usctp/usctp/sctp"
)

// udpTo is a net.Conn over an unconnected UDP socket that sends to one
// fixed address, for pion's Association.
type udpTo struct {
	*net.UDPConn
	to *net.UDPAddr
}

func (u udpTo) Write(p []byte) (int, error) { return u.WriteToUDP(p, u.to) }
func (u udpTo) Read(p []byte) (int, error) {
	n, _, err := u.ReadFromUDP(p)
	return n, err
}
func (u udpTo) RemoteAddr() net.Addr { return u.to }

// connPair returns the two ends of a datagram connection over loopback
// UDP, as two WebRTC peers' SCTP stacks have one over DTLS: usctp's
// (Config.Conn, connected) and pion's. Pion's socket closes when the test
// ends; usctp's endpoint closes its own.
func connPair(t *testing.T) (usctpEnd *net.UDPConn, pionEnd udpTo) {
	t.Helper()
	ps, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	uc, err := net.DialUDP("udp", nil, ps.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	return uc, udpTo{ps, uc.LocalAddr().(*net.UDPAddr)}
}

// msgs is the traffic of one direction: ordered and unordered, small and
// 1 MiB messages.
func msgs() [][]byte {
	r := rand.New(rand.NewPCG(7, 8))
	var out [][]byte
	for i := range 204 {
		n := 1 + r.IntN(200)
		if i%50 == 49 {
			n = 1 << 20
		}
		m := make([]byte, n)
		for j := range m {
			m[j] = byte(r.Uint32())
		}
		m[0] = byte(i)
		out = append(out, m)
	}
	return out
}

func unordered(i int) bool { return i%2 == 1 }

const (
	sid  = 1
	ppid = 53 // WebRTC binary
)

// TestPion runs an association between usctp and pion/sctp over UDP on
// loopback, both ways round (usctp dials pion, pion dials usctp), and
// moves ordered and unordered messages, small ones and 1 MiB ones, in
// both directions.
func TestPion(t *testing.T) {
	for _, weDial := range []bool{true, false} {
		name := "usctp-dials"
		if !weDial {
			name = "pion-dials"
		}
		t.Run(name, func(t *testing.T) { runPion(t, weDial) })
	}
}

func runPion(t testing.TB, weDial bool) {
	ps, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	cfg := &sctp.Config{EphemeralUDPPort: true, RemoteUDPPort: uint16(ps.LocalAddr().(*net.UDPAddr).Port),
		OutStreams: 16, InStreams: 16, Buffers: sctp.Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20}, LocalPort: 5000}
	ep, err := sctp.NewEndpoint(netip.MustParseAddr("127.0.0.1"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	if !weDial {
		ep.Close()
		ep, err = sctp.Listen("127.0.0.1:5000", cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer ep.Close()
	}
	pc := udpTo{ps, net.UDPAddrFromAddrPort(netip.AddrPortFrom(ep.Addr().IP, ep.Addr().UDPPort))}
	pcfg := pion.Config{NetConn: pc, LoggerFactory: logging.NewDefaultLoggerFactory(),
		MaxMessageSize: 4 << 20, MaxReceiveBufferSize: 4 << 20}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var us *sctp.Association
	var pa *pion.Association
	pch := make(chan error, 1)
	if weDial {
		go func() {
			var err error
			pa, err = pion.Server(pcfg)
			pch <- err
		}()
		us, err = ep.Dial(ctx, "127.0.0.1:5000")
		if err != nil {
			t.Fatal(err)
		}
		if err := <-pch; err != nil {
			t.Fatal(err)
		}
	} else {
		go func() {
			var err error
			pa, err = pion.Client(pcfg)
			pch <- err
		}()
		us, err = ep.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-pch; err != nil {
			t.Fatal(err)
		}
	}
	defer pa.Close()

	want := msgs()
	// usctp -> pion.
	go func() {
		for i, m := range want {
			if _, err := us.WriteMsg(m, sctp.SendInfo{Stream: sid, PPID: ppid, Unordered: unordered(i)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	st, err := pa.AcceptStream()
	if err != nil {
		t.Fatal(err)
	}
	st.SetReadDeadline(time.Now().Add(20 * time.Second))
	got := make([][]byte, len(want))
	buf := make([]byte, 2<<20)
	for range want {
		n, ppi, err := st.ReadSCTP(buf)
		if err != nil {
			t.Fatalf("pion read: %v", err)
		}
		if ppi != ppid || n == 0 || got[buf[0]] != nil {
			t.Fatalf("pion got ppid %d, %d bytes, message %d again", ppi, n, buf[0])
		}
		got[buf[0]] = bytes.Clone(buf[:n])
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("usctp->pion message %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
	// pion -> usctp, on pion's stream and one it opens.
	ost, err := pa.OpenStream(sid+1, pion.PayloadTypeWebRTCBinary)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for i, m := range want {
			s := ost
			if unordered(i) {
				s = st
				s.SetReliabilityParams(true, pion.ReliabilityTypeReliable, 0)
			}
			if _, err := s.WriteSCTP(m, pion.PayloadTypeWebRTCBinary); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	us.SetReadDeadline(time.Now().Add(20 * time.Second))
	got = make([][]byte, len(want))
	last := -1
	for range want {
		var m []byte
		var info sctp.RecvInfo
		for {
			n, in, err := us.ReadMsg(buf)
			if err != nil {
				t.Fatalf("usctp read: %v", err)
			}
			m, info = append(m, buf[:n]...), in
			if in.EOR {
				break
			}
		}
		i := int(m[0])
		if info.PPID != ppid || got[i] != nil || info.Unordered != unordered(i) {
			t.Fatalf("usctp got message %d: %+v", i, info)
		}
		if !unordered(i) {
			if info.Stream != sid+1 || i < last {
				t.Fatalf("ordered message %d after %d on stream %d", i, last, info.Stream)
			}
			last = i
		}
		got[i] = m
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("pion->usctp message %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
	s := us.Stats()
	if err := us.Shutdown(ctx); err != nil {
		t.Fatalf("graceful shutdown with pion: %v", err)
	}
	t.Logf("ok: %d packets out, %d in, %d retransmits", s.PacketsOut, s.PacketsIn, s.Retransmits)
}
