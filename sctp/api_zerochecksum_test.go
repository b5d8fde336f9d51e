package sctp

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// checksumCounter is a connection that counts the packets written through
// it with a zero checksum field and with another.
type checksumCounter struct {
	net.Conn
	zero, crc atomic.Int64
}

func (c *checksumCounter) Write(b []byte) (int, error) {
	if len(b) >= 12 && binary.LittleEndian.Uint32(b[8:]) == 0 {
		c.zero.Add(1)
	} else {
		c.crc.Add(1)
	}
	return c.Conn.Write(b)
}

// TestZeroChecksumOverConn runs associations over Config.Conn between
// endpoints that set Extensions.ZeroChecksumDTLS or not: each side sends
// zero checksums exactly when the other announced the method, accepts
// them when it announced it itself, and the data goes through either way.
func TestZeroChecksumOverConn(t *testing.T) {
	for _, tt := range []struct {
		name             string
		client, server   bool
		clientZ, serverZ bool // who sends zero checksums
	}{
		{"both", true, true, true, true},
		{"client only", true, false, false, false}, // the server cannot vouch for its lower layer
		{"neither", false, false, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u2, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			p1, err := net.DialUDP("udp", nil, u2.LocalAddr().(*net.UDPAddr))
			if err != nil {
				u2.Close()
				t.Fatal(err)
			}
			cc := &checksumCounter{Conn: p1}
			sc := &checksumCounter{Conn: udpPeer{u2, p1.LocalAddr().(*net.UDPAddr)}}
			scfg := &Config{Conn: sc}
			scfg.Extensions.ZeroChecksumDTLS = tt.server
			l, err := Listen("127.0.0.1:5000", scfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ccfg := &Config{Conn: cc}
			ccfg.Extensions.ZeroChecksumDTLS = tt.client
			c, err := Dial(ctx, "127.0.0.1:5000", ccfg)
			if err != nil {
				t.Fatal(err)
			}
			s, err := l.AcceptContext(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				name           string
				as             *Association
				wantSend, want bool
			}{{"client", c, tt.clientZ, tt.client}, {"server", s, tt.serverZ, tt.server}} {
				if send, recv := x.as.ZeroChecksum(); send != x.wantSend || recv != x.want {
					t.Errorf("%s: ZeroChecksum() = %v, %v; want %v, %v", x.name, send, recv, x.wantSend, x.want)
				}
			}
			msg := make([]byte, 5000)
			buf := make([]byte, len(msg))
			for i := range 4 {
				for j := range msg {
					msg[j] = byte(i + j*7)
				}
				if _, err := c.WriteMsg(msg, SendInfo{PPID: 53}); err != nil {
					t.Fatal(err)
				}
				if n, _, err := s.ReadMsg(buf); err != nil || n != len(msg) || !bytes.Equal(buf, msg) {
					t.Fatalf("server read %d, %v, or other bytes than were sent", n, err)
				}
				if _, err := s.WriteMsg(msg, SendInfo{PPID: 53}); err != nil {
					t.Fatal(err)
				}
				if n, _, err := c.ReadMsg(buf); err != nil || n != len(msg) || !bytes.Equal(buf, msg) {
					t.Fatalf("client read %d, %v, or other bytes than were sent", n, err)
				}
			}
			if err := c.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				name  string
				conn  *checksumCounter
				zeros bool
			}{{"client", cc, tt.clientZ}, {"server", sc, tt.serverZ}} {
				zero, crc := x.conn.zero.Load(), x.conn.crc.Load()
				switch {
				case x.zeros && (zero < 4 || crc == 0):
					t.Errorf("%s sent %d packets with a zero checksum and %d with a CRC32c; want both (the handshake keeps it)", x.name, zero, crc)
				case !x.zeros && zero != 0:
					t.Errorf("%s sent %d packets with a zero checksum, want none", x.name, zero)
				}
			}
		})
	}
}
