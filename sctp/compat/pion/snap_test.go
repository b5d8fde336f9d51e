package sctp_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// handshakeCounter is a pipe end that counts the handshake chunks (INIT,
// INIT ACK, COOKIE ECHO, COOKIE ACK) and ABORTs it writes.
type handshakeCounter struct {
	*pipeConn
	handshake, aborts atomic.Int32
}

func (c *handshakeCounter) Write(b []byte) (int, error) {
	if p, err := chunk.ParsePacket(b); err == nil {
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
	return c.pipeConn.Write(b)
}

// snapPair runs f with two associations set up with SNAP over a pipe, as
// pion/webrtc sets them up with EnableSctpSnap: each end's token from
// GenerateOutOfBandToken with the settings pion/webrtc gives it, then
// ClientContext with WithSNAP(own, peer's) and the association options.
// No handshake chunk crosses the pipe.
func snapPair(t *testing.T, tokenOpts, opts [2][]sctp.ClientOption, f func(t *testing.T, a0, a1 *sctp.Association)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		p0, p1 := pipe()
		conns := [2]*handshakeCounter{{pipeConn: p0}, {pipeConn: p1}}
		var tokens [2][]byte
		for i := range 2 {
			b, err := sctp.GenerateOutOfBandToken(tokenOpts[i]...)
			if err != nil {
				t.Fatal(err)
			}
			tokens[i] = b
		}
		var as [2]*sctp.Association
		for i := range 2 {
			o := append([]sctp.ClientOption{sctp.WithNetConn(conns[i]), sctp.WithSNAP(tokens[i], tokens[1-i])}, opts[i]...)
			a, err := sctp.ClientWithOptions(o...)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			as[i] = a
		}
		f(t, as[0], as[1])
		for i, c := range conns {
			if n, m := c.handshake.Load(), c.aborts.Load(); n != 0 || m != 0 {
				t.Errorf("end %d sent %d handshake chunks and %d ABORTs", i, n, m)
			}
		}
	})
}

// exchange sends a message each way on stream sid and checks it arrives.
func exchange(t *testing.T, a0, a1 *sctp.Association, sid uint16, size int) {
	t.Helper()
	s0, err := a0.OpenStream(sid, sctp.PayloadTypeWebRTCBinary)
	if err != nil {
		t.Fatal(err)
	}
	msg := bytes.Repeat([]byte{byte(sid)}, size)
	if _, err := s0.Write(msg); err != nil {
		t.Fatal(err)
	}
	s1, err := a1.AcceptStream()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, size+1)
	if n, ppi, err := s1.ReadSCTP(buf); err != nil || !bytes.Equal(buf[:n], msg) || ppi != sctp.PayloadTypeWebRTCBinary || s1.StreamIdentifier() != sid {
		t.Fatalf("read on stream %d: %d bytes, %v, %v", s1.StreamIdentifier(), n, ppi, err)
	}
	if _, err := s1.WriteSCTP([]byte("back"), sctp.PayloadTypeWebRTCString); err != nil {
		t.Fatal(err)
	}
	if n, ppi, err := s0.ReadSCTP(buf); err != nil || string(buf[:n]) != "back" || ppi != sctp.PayloadTypeWebRTCString {
		t.Fatalf("read back: %q, %v, %v", buf[:n], ppi, err)
	}
}

// TestSNAP sets up associations from exchanged tokens: messages go both
// ways, and the extensions in use are those the tokens offered: I-DATA
// and zero checksum when both offered them, not when one token left them
// out, whatever the association options say (the peer saw the token).
func TestSNAP(t *testing.T) {
	webrtcToken := []sctp.ClientOption{sctp.Config{MaxReceiveBufferSize: 1 << 20, EnableZeroChecksum: true}}
	zero := []sctp.ClientOption{sctp.WithEnableZeroChecksum(true)}
	t.Run("as pion/webrtc", func(t *testing.T) {
		snapPair(t, [2][]sctp.ClientOption{webrtcToken, webrtcToken}, [2][]sctp.ClientOption{zero, zero}, func(t *testing.T, a0, a1 *sctp.Association) {
			exchange(t, a0, a1, 1, 100)
			exchange(t, a1, a0, 2, 65536)
			for i, a := range []*sctp.Association{a0, a1} {
				md, ok := a.Metadata()
				if !ok || !md.MessageInterleavingEnabled || md.PartialReliabilityMode != sctp.PartialReliabilityModeIForwardTSN ||
					!md.ZeroChecksumSendingEnabled || !md.ZeroChecksumReceivingEnabled {
					t.Errorf("end %d: metadata %+v, %v", i, md, ok)
				}
			}
		})
	})
	t.Run("token without I-DATA", func(t *testing.T) {
		noIData := []sctp.ClientOption{sctp.WithEnableInterleaving(false)}
		snapPair(t, [2][]sctp.ClientOption{noIData, nil}, [2][]sctp.ClientOption{nil, zero}, func(t *testing.T, a0, a1 *sctp.Association) {
			exchange(t, a0, a1, 65534, 3000)
			for i, a := range []*sctp.Association{a0, a1} {
				md, _ := a.Metadata()
				if md.MessageInterleavingEnabled || md.PartialReliabilityMode != sctp.PartialReliabilityModeForwardTSN ||
					md.ZeroChecksumSendingEnabled || md.ZeroChecksumReceivingEnabled {
					t.Errorf("end %d: metadata %+v", i, md)
				}
			}
		})
	})
}

// TestGenerateOutOfBandToken checks the token: one INIT chunk with 65535
// streams each way, the receive buffer as a_rwnd, a fresh tag per call,
// and the extensions offered.
func TestGenerateOutOfBandToken(t *testing.T) {
	b1, err := sctp.GenerateOutOfBandToken(sctp.WithMaxReceiveBufferSize(300_000), sctp.WithEnableZeroChecksum(true))
	if err != nil {
		t.Fatal(err)
	}
	b2, err := sctp.GenerateOutOfBandToken()
	if err != nil {
		t.Fatal(err)
	}
	if chunk.Type(b1[0]) != chunk.TypeInit || int(binary.BigEndian.Uint16(b1[2:])) > len(b1) {
		t.Fatalf("token %x is not an INIT chunk", b1)
	}
	tag, rwnd := binary.BigEndian.Uint32(b1[4:]), binary.BigEndian.Uint32(b1[8:])
	os, mis := binary.BigEndian.Uint16(b1[12:]), binary.BigEndian.Uint16(b1[14:])
	if tag == 0 || tag == binary.BigEndian.Uint32(b2[4:]) || rwnd != 300_000 || os != 65535 || mis != 65535 {
		t.Errorf("tag %08x (other token's %08x), a_rwnd %d, streams %d/%d", tag, binary.BigEndian.Uint32(b2[4:]), rwnd, os, mis)
	}
	if binary.BigEndian.Uint32(b2[8:]) != 1<<20 {
		t.Errorf("default a_rwnd %d", binary.BigEndian.Uint32(b2[8:]))
	}
	it := chunk.Chunks(b1)
	c, _ := it.Next()
	text, err := chunk.AppendText(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	for _, want := range []string{"FORWARD_TSN", "I_DATA", "I_FORWARD_TSN", "RE_CONFIG", "ZERO_CHECKSUM"} {
		if !strings.Contains(strings.ToUpper(strings.ReplaceAll(s, "-", "_")), want) {
			t.Errorf("token lacks %s: %s", want, s)
		}
	}
}

// TestSNAPBadTokens: tokens that cannot set up an association make
// WithSNAP or ClientWithOptions fail with an error that says why, and no
// association is left behind.
func TestSNAPBadTokens(t *testing.T) {
	good, err := sctp.GenerateOutOfBandToken()
	if err != nil {
		t.Fatal(err)
	}
	zeroTag := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(zeroTag[4:], 0)
	smallWindow := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(smallWindow[8:], 1000)
	initAck := append([]byte(nil), good...)
	initAck[0] = byte(chunk.TypeInitAck)
	for _, tt := range []struct {
		name          string
		local, remote []byte
		want          string
	}{
		{"empty", good, nil, "empty SNAP token"},
		{"garbage", good, []byte{1, 2, 3}, "remote token"},
		{"INIT ACK", initAck, good, "local token: chunk type INIT-ACK"},
		{"truncated", good, good[:len(good)-5], "remote token"},
		{"zero tag", good, zeroTag, "Initiate Tag 0"},
		{"small window", good, smallWindow, "a_rwnd 1000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c0, _ := pipe()
				a, err := sctp.ClientWithOptions(sctp.WithNetConn(c0), sctp.WithSNAP(tt.local, tt.remote))
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					if a != nil {
						a.Close()
					}
					t.Fatalf("ClientWithOptions: %v; want an error with %q", err, tt.want)
				}
				time.Sleep(time.Second)
			})
		})
	}
}
