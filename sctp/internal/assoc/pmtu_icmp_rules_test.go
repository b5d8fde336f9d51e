package assoc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// ICMP validation of PLPMTUD at its boundaries (RFC 8899 section 4.6.1,
// RFC 9260 appendix C).

// TestPMTUPTBQuotedTSNBounds: RFC 8899 section 4.6.1: "The PL MUST check
// the protocol information in the quoted packet carried in an ICMP PTB
// message payload to validate the message originated from the sending
// node." RFC 9260 appendix C, ICMP6 (paraphrase): the quoted TSN must be
// one outstanding. The TSN one past the highest sent is not outstanding
// (ignored); the highest sent and the lowest outstanding are (used).
func TestPMTUPTBQuotedTSNBounds(t *testing.T) {
	const ov = maxOverhead
	p := newPMTUPair(t, 5, simnet.LinkConfig{Delay: 10 * time.Millisecond}, 1500-ov)
	start := p.now
	p.connect()
	if mtu, _, _ := p.converge(t, start); mtu != 1500-ov {
		t.Fatalf("PLPMTU %d", mtu)
	}
	a := p.as[0]
	first := uint32(a.data.eng.NextTSN())
	if err := a.send(p.now, 0, 0, false, make([]byte, 4000)); err != nil {
		t.Fatal(err)
	}
	p.flush()
	next := uint32(a.data.eng.NextTSN())
	if next-first < 2 {
		t.Fatalf("%d DATA chunks in flight, want several", next-first)
	}
	quote := func(tsn uint32) []byte {
		b := appendHeader(nil, a.key.localPort, a.key.peerPort, a.peerTag)
		return append(b, dataChunk(0x03, tsn, 0, 0, 0, make([]byte, 32))...)
	}
	ep, to := p.eps[0], p.addrs[1]
	ignored := a.stats.PTBIgnored
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(next), MTU: 1400})
	if a.stats.PTBIgnored != ignored+1 || a.stats.PTBUsed != 0 || a.Paths(nil)[0].MTU != 1500-ov {
		t.Fatalf("PTB quoting TSN %d (not yet sent): ignored %d used %d PLPMTU %d",
			next, a.stats.PTBIgnored-ignored, a.stats.PTBUsed, a.Paths(nil)[0].MTU)
	}
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(next - 1), MTU: 1400})
	if a.stats.PTBUsed != 1 || a.Paths(nil)[0].MTU != 1400-ov {
		t.Fatalf("PTB quoting the highest TSN sent: used %d PLPMTU %d", a.stats.PTBUsed, a.Paths(nil)[0].MTU)
	}
	ep.Notice(p.now, Notice{To: to, Kind: NoticeTooBig, Quote: quote(first), MTU: 1300})
	if a.stats.PTBUsed != 2 || a.Paths(nil)[0].MTU != 1300-ov {
		t.Fatalf("PTB quoting the lowest TSN outstanding: used %d PLPMTU %d", a.stats.PTBUsed, a.Paths(nil)[0].MTU)
	}
}

// TestPMTUProbeNoncesFresh: RFC 8899 section 4.6.1 (above) with the probe
// as the quoted packet: the nonce of a probe is what ties a PTB to it, so
// each probe size carries its own. Every probe of a search has a nonce no
// other probe had, and the HEARTBEAT ACK echoing a probe's nonce is the
// one that acknowledges it.
func TestPMTUProbeNoncesFresh(t *testing.T) {
	cfg := testConfig()
	cfg.PMTUDiscovery = true
	tc := newTestEndpoint(t, cfg)
	tc.connectClient()
	seen := map[uint64]int{}
	probes := 0
	for range 20 {
		tc.advanceToTimer()
		tc.readPackets()
		for _, sp := range tc.sent {
			if sp.p.find(chunk.TypePad) == nil {
				continue
			}
			hb := sp.p.find(chunk.TypeHeartbeat)
			nonce := binary.BigEndian.Uint64(hb.value()[4:])
			if size, ok := seen[nonce]; ok && size != len(sp.raw) {
				t.Fatalf("probes of %d and %d bytes carry the same nonce %#x", size, len(sp.raw), nonce)
			}
			seen[nonce] = len(sp.raw)
			probes++
			tc.writeChunks(chunkOf(chunk.TypeHeartbeatAck, 0, hb.value()))
		}
		tc.sent = nil
		if probes >= 2 && tc.a.stats.PMTUProbeAcks >= 2 {
			break
		}
	}
	if probes < 2 || len(seen) != probes || tc.a.stats.PMTUProbeAcks != uint64(probes) {
		t.Fatalf("%d probes, %d nonces, %d acknowledged", probes, len(seen), tc.a.stats.PMTUProbeAcks)
	}
}
