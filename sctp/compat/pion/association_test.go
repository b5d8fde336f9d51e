package sctp_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/sctp"
)

// pair runs f with two associations over a pipe, both started with Client
// as WebRTC peers start them (their INITs cross), inside a synctest
// bubble: time is virtual.
func pair(t *testing.T, opts []sctp.ClientOption, f func(t *testing.T, a0, a1 *sctp.Association)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		c0, c1 := pipe()
		pairOver(t, c0, c1, opts, f)
	})
}

// pairOver is pair's body over the two ends c0 and c1 of a connection
// (a pipe, or a wrapper of one), inside the caller's synctest bubble.
func pairOver(t *testing.T, c0, c1 net.Conn, opts []sctp.ClientOption, f func(t *testing.T, a0, a1 *sctp.Association)) {
	t.Helper()
	type result struct {
		a   *sctp.Association
		err error
	}
	r0, r1 := make(chan result, 1), make(chan result, 1)
	for _, x := range []struct {
		c net.Conn
		r chan result
	}{{c0, r0}, {c1, r1}} {
		go func() {
			a, err := sctp.ClientWithOptions(append([]sctp.ClientOption{sctp.WithNetConn(x.c)}, opts...)...)
			x.r <- result{a, err}
		}()
	}
	x0, x1 := <-r0, <-r1
	if x0.err != nil || x1.err != nil {
		t.Fatalf("Client: %v, %v", x0.err, x1.err)
	}
	defer x0.a.Close()
	defer x1.a.Close()
	f(t, x0.a, x1.a)
}

// TestPacketSize: WithMTU is the size of the SCTP packets, the DTLS
// records' payload: a large message goes in packets that fill it, over a
// connection with UDP addresses (IPv4 or IPv6, as DTLS over ICE has) and
// over one without.
func TestPacketSize(t *testing.T) {
	for _, c := range []struct {
		name  string
		local net.Addr
		peer  net.Addr
	}{
		{"pipe", nil, nil},
		{"udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2}},
		{"udp6", &net.UDPAddr{IP: net.IPv6loopback, Port: 1}, &net.UDPAddr{IP: net.IPv6loopback, Port: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, mtu := range []uint32{1191, 1200} {
				synctest.Test(t, func(t *testing.T) {
					c0, c1 := pipe()
					c0.local, c0.remote, c1.local, c1.remote = c.local, c.peer, c.peer, c.local
					pairOver(t, c0, c1, []sctp.ClientOption{sctp.WithMTU(mtu)}, func(t *testing.T, a0, a1 *sctp.Association) {
						s0, err := a0.OpenStream(1, sctp.PayloadTypeWebRTCBinary)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := s0.Write(make([]byte, 60_000)); err != nil {
							t.Fatal(err)
						}
						s1, err := a1.AcceptStream()
						if err != nil {
							t.Fatal(err)
						}
						if n, err := s1.Read(make([]byte, 65536)); n != 60_000 || err != nil {
							t.Fatalf("Read: %d, %v", n, err)
						}
						// Chunks are padded to 4 bytes: the packet is the
						// MTU rounded down to them.
						if n := c0.largest.Load(); n != int64(mtu&^3) {
							t.Fatalf("MTU %d: packets of up to %d bytes, want %d", mtu, n, mtu&^3)
						}
					})
				})
			}
		})
	}
}

// TestMessages: messages keep their boundaries and payload types on their
// stream; the stream the peer opened comes from AcceptStream; a buffer too
// small for a message gets io.ErrShortBuffer and the message's size and
// leaves it queued; an empty write sends nothing; a message larger than
// MaxMessageSize is refused.
func TestMessages(t *testing.T) {
	pair(t, nil, func(t *testing.T, a0, a1 *sctp.Association) {
		s0, err := a0.OpenStream(7, sctp.PayloadTypeWebRTCBinary)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s0.Write(make([]byte, 65537)); !errors.Is(err, sctp.ErrOutboundPacketTooLarge) {
			t.Fatalf("a message over MaxMessageSize: %v, want ErrOutboundPacketTooLarge", err)
		}
		a0.SetMaxMessageSize(1 << 20)
		msgs := [][]byte{[]byte("a"), bytes.Repeat([]byte("b"), 5000), bytes.Repeat([]byte("c"), 200_000)}
		for i, m := range msgs {
			ppi := sctp.PayloadTypeWebRTCBinary
			if i == 1 {
				ppi = sctp.PayloadTypeWebRTCString
			}
			if n, err := s0.WriteSCTP(m, ppi); err != nil || n != len(m) {
				t.Fatalf("WriteSCTP: %d, %v", n, err)
			}
		}
		if n, err := s0.Write(nil); n != 0 || err != nil {
			t.Fatalf("an empty write: %d, %v", n, err)
		}
		s1, err := a1.AcceptStream()
		if err != nil {
			t.Fatal(err)
		}
		if s1.StreamIdentifier() != 7 {
			t.Fatalf("accepted stream %d, want 7", s1.StreamIdentifier())
		}
		small := make([]byte, 10)
		big := make([]byte, 300_000)
		for i, m := range msgs {
			if len(m) > len(small) {
				if n, _, err := s1.ReadSCTP(small); n != len(m) || !errors.Is(err, io.ErrShortBuffer) {
					t.Fatalf("message %d into a short buffer: %d, %v; want %d, io.ErrShortBuffer", i, n, err, len(m))
				}
			}
			n, ppi, err := s1.ReadSCTP(big)
			want := sctp.PayloadTypeWebRTCBinary
			if i == 1 {
				want = sctp.PayloadTypeWebRTCString
			}
			if err != nil || !bytes.Equal(big[:n], m) || ppi != want {
				t.Fatalf("message %d: %d bytes, %v, %v", i, n, ppi, err)
			}
		}
	})
}

// TestCloseResetsStream: Stream.Close resets the stream's outgoing
// direction after the messages written before it; the peer reads them,
// then io.EOF; when it closes its side too, both are closed, and the
// stream id opens a new stream.
func TestCloseResetsStream(t *testing.T) {
	pair(t, nil, func(t *testing.T, a0, a1 *sctp.Association) {
		s0, _ := a0.OpenStream(1, sctp.PayloadTypeWebRTCBinary)
		for i := range 3 {
			if _, err := s0.Write([]byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s0.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s0.Write([]byte{9}); !errors.Is(err, sctp.ErrStreamClosed) {
			t.Fatalf("a write after Close: %v, want ErrStreamClosed", err)
		}
		s1, _ := a1.AcceptStream()
		buf := make([]byte, 10)
		for i := range 3 {
			if n, err := s1.Read(buf); err != nil || n != 1 || buf[0] != byte(i) {
				t.Fatalf("read %d: %v %v", i, buf[:n], err)
			}
		}
		if _, err := s1.Read(buf); err != io.EOF {
			t.Fatalf("read after the peer's reset: %v, want io.EOF", err)
		}
		if err := s1.Close(); err != nil {
			t.Fatal(err)
		}
		if s1.State() != sctp.StreamStateClosed {
			t.Errorf("the peer's stream is %v after both resets, want closed", s1.State())
		}
		synctest.Wait()
		time.Sleep(time.Second)
		if s0.State() != sctp.StreamStateClosed {
			t.Errorf("the stream is %v after both resets, want closed", s0.State())
		}
		if _, err := s0.Read(buf); err != io.EOF {
			t.Errorf("read after both resets: %v, want io.EOF", err)
		}
		n0, _ := a0.OpenStream(1, sctp.PayloadTypeWebRTCString)
		if n0 == s0 {
			t.Fatal("OpenStream returned the closed stream")
		}
		if _, err := n0.Write([]byte("again")); err != nil {
			t.Fatal(err)
		}
		n1, err := a1.AcceptStream()
		if err != nil || n1 == s1 || n1.StreamIdentifier() != 1 {
			t.Fatalf("AcceptStream after the reset: %v, %v", n1, err)
		}
		if n, ppi, err := n1.ReadSCTP(buf); err != nil || string(buf[:n]) != "again" || ppi != sctp.PayloadTypeWebRTCString {
			t.Fatalf("read on the new stream: %q %v %v", buf[:n], ppi, err)
		}
	})
}

// TestBufferedAmountLow: BufferedAmount counts what was written and not
// yet acknowledged, and OnBufferedAmountLow fires once each time it falls
// from above the threshold to it or below, as the original's does. The
// SACKs are held back while the messages are written, so that the amount
// rises above the threshold before anything is acknowledged (one fall).
func TestBufferedAmountLow(t *testing.T) {
	gatedPair(t, func(t *testing.T, a0, a1 *sctp.Association, g1 *gatedConn) {
		g1.setShut(true)
		s0, _ := a0.OpenStream(3, sctp.PayloadTypeWebRTCBinary)
		var calls atomic.Int32
		s0.SetBufferedAmountLowThreshold(1500)
		s0.OnBufferedAmountLow(func() { calls.Add(1) })
		if s0.BufferedAmountLowThreshold() != 1500 {
			t.Fatalf("threshold %d, want 1500", s0.BufferedAmountLowThreshold())
		}
		for i := range 10 {
			if _, err := s0.Write(make([]byte, 1000)); err != nil {
				t.Fatal(err)
			}
			if got := s0.BufferedAmount(); got > uint64(1000*(i+1)) {
				t.Fatalf("BufferedAmount %d after %d writes", got, i+1)
			}
		}
		g1.setShut(false)
		s1, _ := a1.AcceptStream()
		buf := make([]byte, 2000)
		for range 10 {
			if _, err := s1.Read(buf); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := s0.BufferedAmount(); got != 0 {
			t.Errorf("BufferedAmount %d once everything was acknowledged", got)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("OnBufferedAmountLow called %d times for one fall, want 1", n)
		}
		s0.OnBufferedAmountLow(nil)
		if _, err := s0.Write(make([]byte, 2000)); err != nil {
			t.Fatal(err)
		}
		s1.Read(buf)
		time.Sleep(time.Second)
		synctest.Wait()
		if n := calls.Load(); n != 1 {
			t.Errorf("OnBufferedAmountLow called without a callback set (%d calls)", n)
		}
	})
}

// TestMetadata: the association reports what was negotiated: I-DATA and
// I-FORWARD-TSN by default, as the original offers them, zero checksums
// both ways when both ends enable them.
func TestMetadata(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []sctp.ClientOption
		want sctp.AssociationMetadata
	}{
		{"defaults", nil, sctp.AssociationMetadata{MessageInterleavingEnabled: true,
			PartialReliabilityMode: sctp.PartialReliabilityModeIForwardTSN}},
		{"no interleaving", []sctp.ClientOption{sctp.WithEnableInterleaving(false)},
			sctp.AssociationMetadata{PartialReliabilityMode: sctp.PartialReliabilityModeForwardTSN}},
		{"zero checksum", []sctp.ClientOption{sctp.WithEnableZeroChecksum(true)},
			sctp.AssociationMetadata{MessageInterleavingEnabled: true, PartialReliabilityMode: sctp.PartialReliabilityModeIForwardTSN,
				ZeroChecksumSendingEnabled: true, ZeroChecksumReceivingEnabled: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pair(t, tt.opts, func(t *testing.T, a0, a1 *sctp.Association) {
				for _, a := range []*sctp.Association{a0, a1} {
					if m, ok := a.Metadata(); !ok || m != tt.want {
						t.Errorf("Metadata() = %+v, %v; want %+v", m, ok, tt.want)
					}
				}
				s0, _ := a0.OpenStream(0, sctp.PayloadTypeWebRTCBinary)
				s0.Write([]byte("x"))
				s1, _ := a1.AcceptStream()
				if n, err := s1.Read(make([]byte, 4)); n != 1 || err != nil {
					t.Errorf("read %d, %v", n, err)
				}
				if a0.MTU() != 1191 || a0.MaxMessageSize() != 65536 {
					t.Errorf("MTU %d, MaxMessageSize %d; want the original's defaults 1191, 65536", a0.MTU(), a0.MaxMessageSize())
				}
				if a0.BytesSent() == 0 || a1.BytesReceived() == 0 || a0.RWND() == 0 || a0.CWND() == 0 {
					t.Errorf("BytesSent %d, BytesReceived %d, RWND %d, CWND %d", a0.BytesSent(), a1.BytesReceived(), a0.RWND(), a0.CWND())
				}
			})
		})
	}
}

// TestServer: ServerWithOptions waits for a Client's handshake.
func TestServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c0, c1 := pipe()
		srv := make(chan *sctp.Association, 1)
		go func() {
			a, err := sctp.ServerWithOptions(sctp.WithNetConn(c1))
			if err != nil {
				t.Error(err)
			}
			srv <- a
		}()
		a0, err := sctp.Client(sctp.Config{NetConn: c0})
		if err != nil {
			t.Fatal(err)
		}
		defer a0.Close()
		a1 := <-srv
		if a1 == nil {
			return
		}
		defer a1.Close()
		s1, _ := a1.OpenStream(2, sctp.PayloadTypeWebRTCString)
		s1.Write([]byte("hi"))
		s0, err := a0.AcceptStream()
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if n, err := s0.Read(buf); err != nil || string(buf[:n]) != "hi" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
	})
}

// TestServerConnClosed: a Server whose connection closes before a
// handshake returns ErrAssociationClosedBeforeConn.
func TestServerConnClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c1 := pipe()
		errc := make(chan error, 1)
		go func() {
			_, err := sctp.ServerWithOptions(sctp.WithNetConn(c1))
			errc <- err
		}()
		synctest.Wait()
		c1.Close()
		if err := <-errc; !errors.Is(err, sctp.ErrAssociationClosedBeforeConn) {
			t.Fatalf("Server over a closed conn: %v, want ErrAssociationClosedBeforeConn", err)
		}
	})
}

// TestCloseEnds: after Close the streams' reads end with io.EOF and
// AcceptStream with io.EOF; the peer's end with an error matching ErrChunk
// (it got an ABORT).
func TestCloseEnds(t *testing.T) {
	pair(t, nil, func(t *testing.T, a0, a1 *sctp.Association) {
		s0, _ := a0.OpenStream(4, sctp.PayloadTypeWebRTCBinary)
		s0.Write([]byte("x"))
		s1, _ := a1.AcceptStream()
		buf := make([]byte, 4)
		s1.Read(buf)
		if err := a0.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s0.Read(buf); err != io.EOF {
			t.Errorf("read after Close: %v, want io.EOF", err)
		}
		if _, err := a0.AcceptStream(); err != io.EOF {
			t.Errorf("AcceptStream after Close: %v, want io.EOF", err)
		}
		if _, err := a0.OpenStream(5, 0); !errors.Is(err, sctp.ErrAssociationClosed) {
			t.Errorf("OpenStream after Close: %v, want ErrAssociationClosed", err)
		}
		if _, err := s1.Read(buf); !errors.Is(err, sctp.ErrChunk) {
			t.Errorf("the peer's read after the ABORT: %v, want ErrChunk", err)
		}
		if _, ok := a1.Metadata(); ok {
			t.Error("Metadata ok after the association ended")
		}
	})
}

// TestPcapDir: with USCTP_PCAP_DIR set, each association records its
// packets to a pcap file of its own in that directory.
func TestPcapDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("USCTP_PCAP_DIR", dir)
	pair(t, nil, func(t *testing.T, a0, a1 *sctp.Association) {
		s0, _ := a0.OpenStream(0, sctp.PayloadTypeWebRTCBinary)
		s0.Write([]byte("recorded"))
		s1, _ := a1.AcceptStream()
		s1.Read(make([]byte, 10))
	})
	files, err := filepath.Glob(filepath.Join(dir, "association-*.pcap"))
	if err != nil || len(files) != 2 {
		t.Fatalf("pcap files %v (%v), want one per association", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The global header, then the handshake and the message.
		if len(b) < 24+5*16 || !bytes.Contains(b, []byte("recorded")) {
			t.Errorf("%s: %d bytes, the message recorded: %v", f, len(b), bytes.Contains(b, []byte("recorded")))
		}
	}
}

// TestQueuedMessagesKeepTheirBytes: large messages that wait in the
// stream's queue together (the reader hands each its buffer) keep their
// own bytes, read once all arrived and read as they come, and so do small
// ones between them.
func TestQueuedMessagesKeepTheirBytes(t *testing.T) {
	pair(t, nil, func(t *testing.T, a0, a1 *sctp.Association) {
		s0, err := a0.OpenStream(5, sctp.PayloadTypeWebRTCBinary)
		if err != nil {
			t.Fatal(err)
		}
		var msgs [][]byte
		for i := range 12 {
			n := 65536 - i*3000
			if i%3 == 2 {
				n = 100 + i
			}
			msgs = append(msgs, bytes.Repeat([]byte{byte('a' + i)}, n))
		}
		buf := make([]byte, 65536)
		var s1 *sctp.Stream
		for round := range 2 {
			for _, m := range msgs {
				if _, err := s0.Write(m); err != nil {
					t.Fatal(err)
				}
			}
			if round == 0 {
				if s1, err = a1.AcceptStream(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Second)
				synctest.Wait() // every message waits in s1's queue
			}
			for i, m := range msgs {
				n, err := s1.Read(buf)
				if err != nil || !bytes.Equal(buf[:n], m) {
					t.Fatalf("round %d, message %d: %d bytes (%v), want %d of %q", round, i, n, err, len(m), m[0])
				}
			}
		}
	})
}
