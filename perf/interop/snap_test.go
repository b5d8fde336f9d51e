package interop

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/logging"
	pion "github.com/pion/sctp"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// handshakeWatch is a connection that counts the handshake chunks (INIT,
// INIT ACK, COOKIE ECHO, COOKIE ACK) and ABORTs that cross it either way.
type handshakeWatch struct {
	net.Conn
	handshake, aborts atomic.Int32
}

func (c *handshakeWatch) count(b []byte) {
	p, err := chunk.ParsePacket(b)
	if err != nil {
		return
	}
	it := p.Walk()
	for ch, ok := it.Next(); ok; ch, ok = it.Next() {
		switch ch.Type {
		case chunk.TypeInit, chunk.TypeInitAck, chunk.TypeCookieEcho, chunk.TypeCookieAck:
			c.handshake.Add(1)
		case chunk.TypeAbort:
			c.aborts.Add(1)
		}
	}
}

func (c *handshakeWatch) Write(b []byte) (int, error) {
	c.count(b)
	return c.Conn.Write(b)
}

func (c *handshakeWatch) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err == nil {
		c.count(b[:n])
	}
	return n, err
}

// TestPionSNAP sets up an association between usctp and pion/sctp from
// INITs exchanged out of band (SNAP, as two pion/webrtc peers with
// EnableSctpSnap do): usctp's token from OutOfBandInit, pion's from its
// GenerateOutOfBandToken, each end given its own and the other's (pion's
// WithSNAP, usctp's DialOutOfBand), so each parses the other's token. No
// handshake chunk crosses the connection; pion writes before usctp's end
// exists, and that message arrives; messages go both ways on several
// streams; the extensions in use are those both tokens offered.
func TestPionSNAP(t *testing.T) {
	for _, interleave := range []bool{true, false} {
		t.Run(map[bool]string{true: "I-DATA", false: "DATA"}[interleave], func(t *testing.T) {
			uc, pc := connPair(t)
			conn := &handshakeWatch{Conn: uc}
			cfg := &sctp.Config{Conn: conn, LocalPort: 5000, OutStreams: 65535, InStreams: 65535}
			cfg.Extensions.ZeroChecksumDTLS = true
			cfg.Extensions.Interleaving = interleave
			cfg.Extensions.DisableECN = true
			ours, err := sctp.OutOfBandInit(cfg)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := pion.GenerateOutOfBandToken(pion.WithEnableZeroChecksum(true), pion.WithEnableInterleaving(interleave))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			pa, err := pion.ClientContext(ctx, pion.WithNetConn(pc), pion.WithSNAP(theirs, ours),
				pion.WithEnableZeroChecksum(true), pion.WithEnableInterleaving(interleave),
				pion.WithLoggerFactory(logging.NewDefaultLoggerFactory()))
			if err != nil {
				t.Fatal(err)
			}
			defer pa.Close()
			early, err := pa.OpenStream(7, pion.PayloadTypeWebRTCString)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := early.Write([]byte("before usctp")); err != nil {
				t.Fatal(err)
			}
			us, err := sctp.DialOutOfBand(ctx, "127.0.0.1:5000", cfg, ours, theirs)
			if err != nil {
				t.Fatal(err)
			}
			defer us.Close()
			buf := make([]byte, 70000)
			us.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, info, err := us.ReadMsg(buf); err != nil || string(buf[:n]) != "before usctp" || info.Stream != 7 || info.PPID != 51 {
				t.Fatalf("usctp read %q %+v %v", buf[:n], info, err)
			}
			for sid := uint16(0); sid < 65535; sid += 13107 {
				msg := bytes.Repeat([]byte{byte(sid >> 8)}, 1+int(sid)%60000)
				if _, err := us.WriteMsg(msg, sctp.SendInfo{Stream: sid, PPID: 53}); err != nil {
					t.Fatal(err)
				}
				st, err := pa.AcceptStream()
				if err != nil {
					t.Fatal(err)
				}
				st.SetReadDeadline(time.Now().Add(10 * time.Second))
				if n, ppi, err := st.ReadSCTP(buf); err != nil || !bytes.Equal(buf[:n], msg) || ppi != 53 || st.StreamIdentifier() != sid {
					t.Fatalf("pion read %d bytes on stream %d, %v %v", n, st.StreamIdentifier(), ppi, err)
				}
				if _, err := st.WriteSCTP(msg[:len(msg)/2+1], pion.PayloadTypeWebRTCBinary); err != nil {
					t.Fatal(err)
				}
				if n, info, err := us.ReadMsg(buf); err != nil || !bytes.Equal(buf[:n], msg[:len(msg)/2+1]) || info.Stream != sid {
					t.Fatalf("usctp read %d bytes %+v %v", n, info, err)
				}
			}
			md, _ := pa.Metadata()
			send, recv := us.ZeroChecksum()
			if us.Interleaved() != interleave || md.MessageInterleavingEnabled != interleave || !send || !recv ||
				!md.ZeroChecksumSendingEnabled || !md.ZeroChecksumReceivingEnabled {
				t.Errorf("usctp: interleaved %v, zero checksum %v %v; pion's metadata %+v", us.Interleaved(), send, recv, md)
			}
			if n, m := conn.handshake.Load(), conn.aborts.Load(); n != 0 || m != 0 {
				t.Errorf("%d handshake chunks and %d ABORTs crossed", n, m)
			}
			if err := us.Shutdown(ctx); err != nil {
				t.Error(err)
			}
		})
	}
}
