package assoc

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// connectOutOfBand sets up the association of p from INITs exchanged out
// of band: each side makes its INIT, and each creates its association from
// its own and the other's, with no packet sent.
func (p *pair) connectOutOfBand() {
	p.t.Helper()
	var inits [2][]byte
	for i, ep := range p.eps {
		b, err := ep.OutOfBandInit()
		if err != nil {
			p.t.Fatal(err)
		}
		inits[i] = b
	}
	ports := [2]uint16{5000, 5001}
	for i, ep := range p.eps {
		a, err := ep.ConnectOutOfBand(p.now, p.addrs[1-i], ports[i], ports[1-i], inits[i], inits[1-i])
		if err != nil {
			p.t.Fatal(err)
		}
		if a.state != stateEstablished {
			p.t.Fatalf("side %d: state %v after ConnectOutOfBand", i, a.state)
		}
		p.as[i] = a
		ep.drainInto(&p.events[i])
	}
	for i, ep := range p.eps {
		if pk, ok := ep.Poll(p.now, nil); ok {
			p.t.Fatalf("side %d sent a packet for the setup: %x", i, pk.Data)
		}
	}
}

// TestOutOfBandEndToEnd runs TestEndToEnd's traffic (messages on many
// streams both ways, ordered and unordered, then a graceful shutdown) on
// an association set up from exchanged INITs, with no loss and with 10%
// loss: every message arrives once, intact and in order, and the run is
// deterministic.
func TestOutOfBandEndToEnd(t *testing.T) {
	for _, tt := range []struct {
		name string
		link simnet.LinkConfig
		msgs int
	}{
		{"loss0", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: time.Millisecond}, 500},
		{"loss10", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.10, Dup: 0.02, Reorder: 0.05}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r1 := runEndToEndWith(t, 3, tt.link, tt.msgs, (*pair).connectOutOfBand)
			r2 := runEndToEndWith(t, 3, tt.link, tt.msgs, (*pair).connectOutOfBand)
			if r1 != r2 {
				t.Fatalf("two runs with the same seed differ: %x vs %x", r1, r2)
			}
		})
	}
}

// negotiated is what an association recorded at its setup.
type negotiated struct {
	out, in                    uint16
	peerRwnd                   uint32
	interleaved, pr, reconf    bool
	zeroSend, zeroRecv, ecn    bool
	peerTagOK, peerTSNOK, tsns bool
}

func negotiatedOf(a, peer *Assoc) negotiated {
	n := negotiated{out: a.outStreams, in: a.inStreams, peerRwnd: a.peerRwnd,
		interleaved: a.Interleaved(), pr: a.PartialReliability(), reconf: a.reconfOn(), ecn: a.ECN()}
	n.zeroSend, n.zeroRecv = a.ZeroChecksum()
	n.peerTagOK = a.peerTag == peer.localTag && a.localTag == peer.peerTag
	n.peerTSNOK = a.peerTSN == peer.localTSN
	n.tsns = a.data.eng != nil
	return n
}

// TestOutOfBandMatchesHandshake sets up associations between endpoints of
// differing configurations both ways, with the handshake and from
// exchanged INITs, and checks that both record the same: stream counts,
// the peer's window, tags and TSNs, and the extensions in use.
func TestOutOfBandMatchesHandshake(t *testing.T) {
	base := func(seed byte) Config {
		return Config{Rand: newTestRand(seed), MTU: 1452, OutStreams: 64, InStreams: 64,
			Buffers: api.Buffers{RecvBuffer: 256 << 10}}
	}
	for _, tt := range []struct {
		name string
		cfg  func(i int, c *Config)
	}{
		{"defaults", func(int, *Config) {}},
		{"interleaving both", func(_ int, c *Config) { c.Interleaving = true }},
		{"interleaving one", func(i int, c *Config) { c.Interleaving = i == 0 }},
		{"zero checksum both", func(_ int, c *Config) { c.ZeroChecksumDTLS = true; c.DisableECN = true }},
		{"zero checksum one", func(i int, c *Config) { c.ZeroChecksumDTLS = i == 1 }},
		{"no PR-SCTP one", func(i int, c *Config) { c.DisablePartialReliability = i == 0 }},
		{"no reconfig one", func(i int, c *Config) { c.DisableStreamReconfig = i == 1 }},
		{"streams and windows", func(i int, c *Config) {
			c.OutStreams, c.InStreams = uint16(10+i*1000), uint16(65535-i*65000)
			c.RecvBuffer = 1500 + i<<20
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got [2][2]negotiated
			for k, connect := range []func(*pair){(*pair).connect, (*pair).connectOutOfBand} {
				p := newPair(t, 1, simnet.LinkConfig{Delay: 5 * time.Millisecond})
				for i := range 2 {
					c := base(byte(i + 1))
					tt.cfg(i, &c)
					p.eps[i] = NewEndpoint(c, p.now)
				}
				connect(p)
				for i := range 2 {
					got[k][i] = negotiatedOf(p.as[i], p.as[1-i])
				}
			}
			for i := range 2 {
				if got[0][i] != got[1][i] {
					t.Errorf("side %d: handshake %+v, out of band %+v", i, got[0][i], got[1][i])
				}
				if !got[1][i].peerTagOK || !got[1][i].peerTSNOK || !got[1][i].tsns {
					t.Errorf("side %d: tags or TSNs do not match the peer's: %+v", i, got[1][i])
				}
			}
		})
	}
}

// TestOutOfBandBadInit gives ConnectOutOfBand INITs it must refuse: each
// fails with an error that says what is wrong, and the endpoint is left
// without an association.
func TestOutOfBandBadInit(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	good, err := tc.ep.OutOfBandInit()
	if err != nil {
		t.Fatal(err)
	}
	other := newTestEndpoint(t, Config{Rand: newTestRand(9)})
	peer, err := other.ep.OutOfBandInit()
	if err != nil {
		t.Fatal(err)
	}
	// field returns a copy of init with the 32-bit (or 16-bit when n is
	// 2) fixed field at off set to v.
	field := func(init []byte, off, n int, v uint32) []byte {
		b := append([]byte(nil), init...)
		if n == 2 {
			binary.BigEndian.PutUint16(b[off:], uint16(v))
		} else {
			binary.BigEndian.PutUint32(b[off:], v)
		}
		return b
	}
	ic := Config{Rand: newTestRand(10)}
	ic.Interleaving = true
	interleaving := newTestEndpoint(t, ic)
	idata, _ := interleaving.ep.OutOfBandInit()
	initAck := append([]byte(nil), peer...)
	initAck[0] = byte(chunk.TypeInitAck)
	for _, tt := range []struct {
		name        string
		local, peer []byte
		want        string
	}{
		{"empty peer", good, nil, "peer's INIT: empty"},
		{"empty local", nil, peer, "local INIT: empty"},
		{"truncated", good, peer[:len(peer)-3], "peer's INIT"},
		{"INIT ACK", good, initAck, "chunk type INIT-ACK, not INIT"},
		{"two chunks", good, append(append([]byte(nil), peer...), peer...), "bytes after the INIT chunk"},
		{"flags", good, append([]byte{peer[0], 1}, peer[2:]...), "flags"},
		{"tag 0", good, field(peer, 4, 4, 0), "Initiate Tag 0"},
		{"a_rwnd", good, field(peer, 8, 4, 1499), "a_rwnd 1499"},
		{"no outbound streams", good, field(peer, 12, 2, 0), "0 outbound"},
		{"no inbound streams", field(good, 14, 2, 0), peer, "local INIT: a_rwnd"},
		{"other extensions", idata, peer, "local INIT offers [FORWARD-TSN I-DATA RE-CONFIG ECN], the endpoint [FORWARD-TSN RE-CONFIG ECN]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tc.ep.ConnectOutOfBand(tc.now, tc.peer, 5000, 5000, tt.local, tt.peer)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ConnectOutOfBand: %v, %v; want an error with %q", a, err, tt.want)
			}
			if len(tc.ep.assocs) != 0 || len(tc.ep.tags) != 0 {
				t.Fatalf("the endpoint holds %d associations after the error", len(tc.ep.assocs))
			}
		})
	}
	t.Run("tag in use", func(t *testing.T) {
		if _, err := tc.ep.ConnectOutOfBand(tc.now, tc.peer, 5000, 5000, good, peer); err != nil {
			t.Fatal(err)
		}
		other := netip.MustParseAddrPort("192.0.2.9:9899")
		_, err := tc.ep.ConnectOutOfBand(tc.now, other, 5000, 5000, good, peer)
		if err == nil || !strings.Contains(err.Error(), "is another association's") {
			t.Fatalf("second association with the same INIT: %v", err)
		}
		if _, err := tc.ep.ConnectOutOfBand(tc.now, tc.peer, 5000, 5000, good, peer); err != ErrExists {
			t.Fatalf("same addresses: %v, want ErrExists", err)
		}
	})
	t.Run("AUTH", func(t *testing.T) {
		c := testConfig()
		c.AuthChunks = []chunk.Type{chunk.TypeData}
		auth := newTestEndpoint(t, c)
		if _, err := auth.ep.OutOfBandInit(); err == nil || !strings.Contains(err.Error(), "AUTH") {
			t.Fatalf("OutOfBandInit with AUTH: %v", err)
		}
		if _, err := auth.ep.ConnectOutOfBand(auth.now, auth.peer, 5000, 5000, good, peer); err == nil || !strings.Contains(err.Error(), "AUTH") {
			t.Fatalf("ConnectOutOfBand with AUTH: %v", err)
		}
	})
}

// TestOutOfBandInitContent checks the INIT OutOfBandInit makes: the
// endpoint's stream counts, window and extensions, a fresh tag per call.
func TestOutOfBandInitContent(t *testing.T) {
	c := Config{Rand: newTestRand(3), OutStreams: 65535, InStreams: 65535, Buffers: api.Buffers{RecvBuffer: 1 << 20}}
	c.Interleaving, c.ZeroChecksumDTLS, c.DisableECN = true, true, true
	ep := NewEndpoint(c, t0)
	b1, err := ep.OutOfBandInit()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := ep.OutOfBandInit()
	var in1, in2 initInfo
	if err := parseOutOfBandInit(b1, &in1); err != nil {
		t.Fatal(err)
	}
	if err := parseOutOfBandInit(b2, &in2); err != nil {
		t.Fatal(err)
	}
	want := extForwardTSN | extIData | extIForwardTSN | extReconfig | extZeroChecksum
	if in1.os != 65535 || in1.mis != 65535 || in1.rwnd != 1<<20 || in1.ext != want {
		t.Errorf("INIT: OS %d MIS %d a_rwnd %d ext %s (%b)", in1.os, in1.mis, in1.rwnd, extNames(in1.ext), in1.ext)
	}
	if in1.tag == 0 || in1.tag == in2.tag || in1.tsn == in2.tsn {
		t.Errorf("two INITs: tags %08x %08x, TSNs %d %d", in1.tag, in2.tag, in1.tsn, in2.tsn)
	}
}
