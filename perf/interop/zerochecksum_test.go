package interop

import (
	"context"
	"encoding/binary"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/logging"
	pion "github.com/pion/sctp"

	"github.com/usctp/usctp/sctp"
)

// zeroCounter is a connection that counts the packets with a zero
// checksum field it writes and reads.
type zeroCounter struct {
	net.Conn
	wrote, read atomic.Int64
}

func zeroField(b []byte) bool { return len(b) >= 12 && binary.LittleEndian.Uint32(b[8:]) == 0 }

func (c *zeroCounter) Write(b []byte) (int, error) {
	if zeroField(b) {
		c.wrote.Add(1)
	}
	return c.Conn.Write(b)
}

func (c *zeroCounter) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err == nil && zeroField(b[:n]) {
		c.read.Add(1)
	}
	return n, err
}

// TestPionZeroChecksum runs an association between usctp and pion/sctp as
// two WebRTC peers start one (both dial port 5000 over a connected
// datagram connection, here UDP on loopback) with the zero checksum of
// RFC 9653 enabled on both sides: each sees the other's Zero Checksum
// Acceptable parameter, sends and accepts packets with a zero checksum,
// and messages go both ways. With it enabled on usctp's side only, usctp
// sends none (pion did not announce the parameter); pion sends them all
// the same, to a peer that announced it, and usctp takes them.
func TestPionZeroChecksum(t *testing.T) {
	for _, pionZero := range []bool{true, false} {
		t.Run(map[bool]string{true: "both", false: "usctp only"}[pionZero], func(t *testing.T) {
			uc, pc := connPair(t)
			conn := &zeroCounter{Conn: uc}
			cfg := &sctp.Config{Conn: conn, LocalPort: 5000}
			cfg.Extensions.ZeroChecksumDTLS = true
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			pch := make(chan *pion.Association, 1)
			go func() {
				pa, err := pion.ClientWithOptions(pion.WithNetConn(pc), pion.WithEnableZeroChecksum(pionZero),
					pion.WithLoggerFactory(logging.NewDefaultLoggerFactory()))
				if err != nil {
					t.Error(err)
				}
				pch <- pa
			}()
			us, err := sctp.Dial(ctx, "127.0.0.1:5000", cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer us.Close()
			pa := <-pch
			if pa == nil {
				return
			}
			defer pa.Close()

			if _, err := us.WriteMsg([]byte("from usctp"), sctp.SendInfo{Stream: 1, PPID: 51}); err != nil {
				t.Fatal(err)
			}
			st, err := pa.AcceptStream()
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 100)
			st.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, ppi, err := st.ReadSCTP(buf); err != nil || string(buf[:n]) != "from usctp" || ppi != 51 {
				t.Fatalf("pion read %q %v %v", buf[:n], ppi, err)
			}
			for range 5 {
				if _, err := st.WriteSCTP([]byte("from pion"), pion.PayloadTypeWebRTCString); err != nil {
					t.Fatal(err)
				}
				us.SetReadDeadline(time.Now().Add(10 * time.Second))
				if n, info, err := us.ReadMsg(buf); err != nil || string(buf[:n]) != "from pion" || info.PPID != 51 {
					t.Fatalf("usctp read %q %+v %v", buf[:n], info, err)
				}
			}
			md, _ := pa.Metadata()
			send, recv := us.ZeroChecksum()
			if send != pionZero || !recv || !md.ZeroChecksumSendingEnabled || md.ZeroChecksumReceivingEnabled != pionZero {
				t.Errorf("usctp ZeroChecksum() = %v, %v; pion's metadata %+v", send, recv, md)
			}
			wrote, read := conn.wrote.Load(), conn.read.Load()
			if pionZero && wrote == 0 || !pionZero && wrote != 0 || read == 0 {
				t.Errorf("usctp wrote %d and read %d packets with a zero checksum", wrote, read)
			}
			if err := us.Shutdown(ctx); err != nil { // while pion still answers
				t.Error(err)
			}
		})
	}
}
