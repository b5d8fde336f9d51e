package sctp

import (
	"bytes"
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimOutOfBand sets up an association from INITs exchanged out of
// band (OutOfBandInit, DialOutOfBand) over a lossy simulated link, inside
// a synctest bubble: no handshake packet is sent, the two ends negotiate
// I-DATA and zero checksum from the INITs, and messages go both ways
// before a graceful shutdown. One end dials, and writes, well before the
// other exists: its first packet waits in the other's socket and is taken
// once that end dials, not answered as out of the blue.
func TestSimOutOfBand(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.02}
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: link, Overhead: 28})
		addrs := [2]string{"10.0.0.1:9899", "10.0.0.2:9899"}
		var cfgs [2]*Config
		var inits [2][]byte
		for i := range 2 {
			cfgs[i] = &Config{OutStreams: 16, InStreams: 16, LocalPort: 5000}
			cfgs[i].Extensions.Interleaving = true
			cfgs[i].Extensions.ZeroChecksumDTLS = true
			b, err := OutOfBandInit(cfgs[i])
			if err != nil {
				t.Fatal(err)
			}
			inits[i] = b
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var as [2]*Association
		var conns [2]*simconn.Conn
		for i := range 2 {
			c, err := n.Listen(netip.MustParseAddrPort(addrs[i]))
			if err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, i := range []int{1, 0} {
			conn := conns[i]
			peer := strings.Replace(addrs[1-i], "9899", "5000", 1)
			a, err := dialOutOfBandOn(ctx, peer, cfgs[i], conn, inits[i], inits[1-i])
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			as[i] = a
			if i == 1 {
				// Side 1 sends before side 0 exists.
				if _, err := a.WriteMsg([]byte("early"), SendInfo{Stream: 3, PPID: 51}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Second)
			}
		}
		buf := make([]byte, 64<<10)
		as[0].SetReadDeadline(time.Now().Add(30 * time.Second))
		if m, info, err := as[0].ReadMsg(buf); err != nil || string(buf[:m]) != "early" || info.Stream != 3 || info.PPID != 51 {
			t.Fatalf("early message: %q %+v %v", buf[:m], info, err)
		}
		for i, a := range as {
			if !a.Interleaved() {
				t.Errorf("side %d: no I-DATA", i)
			}
			if send, recv := a.ZeroChecksum(); !send || !recv {
				t.Errorf("side %d: zero checksum %v %v", i, send, recv)
			}
		}
		const msgs = 200
		done := make(chan struct{}, 2)
		for i, a := range as {
			go func() {
				defer func() { done <- struct{}{} }()
				for k := range msgs {
					m := bytes.Repeat([]byte{byte(i), byte(k)}, 1+k*37%5000)
					if _, err := a.WriteMsg(m, SendInfo{Stream: uint16(k % 16), PPID: uint32(k)}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		for i, a := range as {
			a.SetReadDeadline(time.Now().Add(time.Minute))
			next := make(map[uint16]int)
			for range msgs {
				m, info, err := a.ReadMsg(buf)
				if err != nil {
					t.Fatalf("side %d: %v", i, err)
				}
				k := int(info.PPID)
				want := bytes.Repeat([]byte{byte(1 - i), byte(k)}, 1+k*37%5000)
				if !bytes.Equal(buf[:m], want) || info.Stream != uint16(k%16) || k/16 != next[info.Stream] {
					t.Fatalf("side %d: message %d on stream %d: %d bytes", i, k, info.Stream, m)
				}
				next[info.Stream]++
			}
		}
		<-done
		<-done
		if err := as[0].Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			s := as[i].Stats()
			if s.ChunksOut[1] != 0 || s.ChunksOut[10] != 0 || s.ChunksOut[6] != 0 {
				t.Errorf("side %d sent INIT %d, COOKIE ECHO %d, ABORT %d", i, s.ChunksOut[1], s.ChunksOut[10], s.ChunksOut[6])
			}
		}
	})
}

// TestOutOfBandErrors checks DialOutOfBand's refusals: no local port, a
// token that is not an INIT, a local INIT made for other extensions.
func TestOutOfBandErrors(t *testing.T) {
	mk := func(c *Config) []byte {
		b, err := OutOfBandInit(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	idata := &Config{}
	idata.Extensions.Interleaving = true
	plain := mk(&Config{})
	ctx := context.Background()
	for _, tt := range []struct {
		name        string
		cfg         *Config
		local, peer []byte
		want        string
	}{
		{"no local port", &Config{}, plain, plain, "Config.LocalPort"},
		{"not an INIT", &Config{LocalPort: 5000}, plain, []byte{2, 0, 0, 4}, "peer's INIT: chunk type INIT-ACK, not INIT"},
		{"other extensions", &Config{LocalPort: 5000}, mk(idata), plain, "local INIT offers"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := DialOutOfBand(ctx, "127.0.0.1:5000", tt.cfg, tt.local, tt.peer)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				if a != nil {
					a.Close()
				}
				t.Fatalf("DialOutOfBand: %v; want an error with %q", err, tt.want)
			}
		})
	}
	auth := &Config{}
	auth.Extensions.AuthChunks = []chunk.Type{chunk.TypeData}
	if _, err := OutOfBandInit(auth); err == nil || !strings.Contains(err.Error(), "AUTH") {
		t.Errorf("OutOfBandInit with AUTH: %v", err)
	}
}
