package assoc

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The tests of this file hold ReceiveRun to ReceiveBuf: two endpoints set
// up alike get the same packets, one packet at a time with what each
// caused collected after it, as the shell did, and in runs with what a
// run caused collected after it; everything the two send, report and
// deliver, and their counters, must be the same.

// rxPacket is a packet for the endpoint under test: its bytes, its
// source and its IP header's ECN field.
type rxPacket struct {
	from netip.AddrPort
	ecn  uint8
	b    []byte
}

// runSetup builds a test endpoint with an association in the state the
// scenario starts from.
type runSetup func(t *testing.T) *testConn

// runScenario is a run test: its setup, and the packets it sends given
// the endpoint (tags and TSNs are the same for both copies).
type runScenario struct {
	name    string
	setup   runSetup
	noBatch bool // receive outside BeginBatch/EndBatch
	lend    bool // the packets lie in one lent receive buffer
	pkts    func(tc *testConn) []rxPacket
}

// peerPacket builds a packet from the test peer with tag vtag.
func (tc *testConn) peerPacket(vtag uint32, chunks ...[]byte) []byte {
	b := appendHeader(nil, tc.pport, tc.lport, vtag)
	for _, c := range chunks {
		b = append(b, c...)
	}
	return finishPacket(b, 0)
}

// runData returns a DATA packet of the test peer with the endpoint's tag:
// TSN peerTSN+i, on stream sid with SSN ssn, payload filled with i.
func (tc *testConn) runData(flags uint8, i uint32, sid, ssn uint16, n int) rxPacket {
	return rxPacket{from: tc.peer, b: tc.peerPacket(tc.a.localTag,
		dataChunk(flags, tc.peerTSN+i, sid, ssn, 7, bytes.Repeat([]byte{byte(i)}, n)))}
}

// runMessage returns the DATA packets of one message in n fragments of
// size bytes, TSNs from peerTSN+first.
func (tc *testConn) runMessage(first uint32, sid, ssn uint16, n, size int) []rxPacket {
	var ps []rxPacket
	for k := range n {
		var f uint8
		if k == 0 {
			f |= chunk.FlagBeginning
		}
		if k == n-1 {
			f |= chunk.FlagEnd
		}
		ps = append(ps, tc.runData(f, first+uint32(k), sid, ssn, size))
	}
	return ps
}

// established is the usual setup: a server association that got its
// first DATA (TSN peerTSN), SACKed and read.
func established(cfg func() Config, connect func(tc *testConn)) runSetup {
	return func(t *testing.T) *testConn {
		tc := newTestEndpoint(t, cfg())
		connect(tc)
		tc.firstData()
		return tc
	}
}

// firstData sends the association its first DATA (TSN peerTSN, on stream
// 9), reads it and takes what the endpoint sends.
func (tc *testConn) firstData() {
	tc.t.Helper()
	tc.writeChunks(dataChunk(chunk.FlagBeginning|chunk.FlagEnd, tc.peerTSN, 9, 0, 7, []byte("first")))
	tc.wantChunk(chunk.TypeSack)
	tc.readAll(nil)
	tc.readPackets()
	tc.sent = nil
}

// readAll reads every message the association holds, logging each.
func (tc *testConn) readAll(log *[]string) {
	buf := make([]byte, 1<<16)
	for {
		n, info, err := tc.a.read(buf)
		if errors.Is(err, api.ErrWouldBlock) || errors.Is(err, ErrClosed) {
			return
		}
		if err != nil {
			tc.t.Fatal(err)
		}
		if log != nil {
			*log = append(*log, fmt.Sprintf("read %+v %x", info, buf[:n]))
		}
	}
}

// collect logs what the endpoint has to send and report now.
func (tc *testConn) collect(log *[]string) {
	for {
		e := tc.ep.NextEvent()
		if e == nil {
			break
		}
		*log = append(*log, fmt.Sprintf("event %v stream %d", eventString(e), e.Stream))
	}
	for {
		po, ok := tc.ep.Poll(tc.now, nil)
		if !ok {
			break
		}
		*log = append(*log, fmt.Sprintf("send to %v ecn %d %x", po.To, po.ECN, po.Data))
	}
}

// feed gives the endpoint the packets one at a time (runs false) or in
// runs of packets from one source with one ECN field, and returns the
// log of what it did.
func (tc *testConn) feed(sc *runScenario, pkts []rxPacket, runs bool) []string {
	var log []string
	var lent *interleave.RecvBuf
	views := make([][]byte, len(pkts))
	if sc.lend {
		// The packets side by side in one receive buffer, as a GRO read
		// leaves them.
		lent = interleave.NewRecvBuf()
		b := lent.Bytes()[:0]
		for i, p := range pkts {
			b = append(b, p.b...)
			views[i] = b[len(b)-len(p.b) : len(b) : len(b)]
		}
	} else {
		for i, p := range pkts {
			views[i] = bytes.Clone(p.b)
		}
	}
	ep := tc.ep
	if !sc.noBatch {
		ep.BeginBatch()
	}
	for i := 0; i < len(pkts); {
		p := pkts[i]
		if !runs {
			ep.ReceiveBuf(tc.now, p.from, views[i], lent, p.ecn)
			tc.collect(&log)
			i++
			continue
		}
		j := i + 1
		for j < len(pkts) && pkts[j].from == p.from && pkts[j].ecn == p.ecn {
			j++
		}
		for i < j {
			k := ep.ReceiveRun(tc.now, p.from, views[i:j], lent, p.ecn)
			if k < 1 || k > j-i {
				tc.t.Fatalf("ReceiveRun of %d packets processed %d", j-i, k)
			}
			tc.collect(&log)
			i += k
		}
	}
	if !sc.noBatch {
		ep.EndBatch()
	}
	tc.collect(&log)
	if lent != nil {
		lent.Release() // the reader's reference
	}
	if !tc.a.closed {
		tc.readAll(&log)
		tc.collect(&log)
		log = append(log, fmt.Sprintf("assoc %#v", tc.a.Stats()), fmt.Sprintf("engine %#v", tc.a.data.eng.Stats()))
	}
	tc.advance(time.Second)
	tc.ep.Expire(tc.now)
	tc.collect(&log)
	return append(log, fmt.Sprintf("endpoint %#v", tc.ep.Stats()))
}

// checkRun runs scenario sc both ways and compares the logs.
func checkRun(t *testing.T, sc runScenario) {
	t.Run(sc.name, func(t *testing.T) {
		one, run := sc.setup(t), sc.setup(t)
		want := one.feed(&sc, sc.pkts(one), false)
		got := run.feed(&sc, sc.pkts(run), true)
		for i := range max(len(want), len(got)) {
			var w, g string
			if i < len(want) {
				w = want[i]
			}
			if i < len(got) {
				g = got[i]
			}
			if w != g {
				t.Fatalf("runs differ from one packet at a time at line %d:\n got  %s\n want %s\nwhole log (one at a time):\n%s",
					i, g, w, strings.Join(want, "\n"))
			}
		}
	})
}

// TestReceiveRunAsOneByOne: a run of packets handed to ReceiveRun leaves
// the endpoint as the same packets handed to ReceiveBuf one at a time,
// with what each caused collected after it: the same bytes delivered,
// SACKs and other packets sent (byte for byte), events and counters,
// whatever the run holds.
func TestReceiveRunAsOneByOne(t *testing.T) {
	base := established(testConfig, serverNoParams)
	small := func() Config {
		c := testConfig()
		c.Buffers.RecvBuffer = 6000
		return c
	}
	const be = chunk.FlagBeginning | chunk.FlagEnd
	scenarios := []runScenario{
		{name: "in order", setup: base, pkts: func(tc *testConn) []rxPacket {
			return tc.runMessage(1, 0, 0, 12, 1000)
		}},
		{name: "in order, no batch", setup: base, noBatch: true, pkts: func(tc *testConn) []rxPacket {
			return tc.runMessage(1, 0, 0, 12, 1000)
		}},
		{name: "in order, lent buffer", setup: base, lend: true, pkts: func(tc *testConn) []rxPacket {
			return tc.runMessage(1, 0, 0, 12, 1000)
		}},
		{name: "gap", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 10, 500)
			return append(ps[:4], ps[5:]...)
		}},
		{name: "gap filled", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 10, 500)
			return append(append(append([]rxPacket{}, ps[:4]...), ps[5:]...), ps[4])
		}},
		{name: "duplicate", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 10, 500)
			return append(append(append([]rxPacket{}, ps[:5]...), ps[3]), ps[5:]...)
		}},
		{name: "old duplicate", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 6, 500)
			return append([]rxPacket{tc.runData(be, 0, 0, 0, 5)}, ps...)
		}},
		{name: "out of window", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 6, 500)
			return append(ps[:3], append([]rxPacket{tc.runData(be, 1<<30, 0, 1, 10)}, ps[3:]...)...)
		}},
		{name: "other association", setup: func(t *testing.T) *testConn {
			tc := base(t)
			tc.connectSecond()
			return tc
		}, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			other := tc.secondData(1)
			return append(ps[:4], append([]rxPacket{other}, ps[4:]...)...)
		}},
		{name: "other source", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			o := ps[4]
			o.from = peerAddr2
			return append(ps[:4], append([]rxPacket{o}, ps[5:]...)...)
		}},
		{name: "other port of the peer", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			o := ps[4]
			o.from = netip.AddrPortFrom(tc.peer.Addr(), tc.peer.Port()+1)
			return append(ps[:4], append([]rxPacket{o}, ps[5:]...)...)
		}},
		{name: "bad tag", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			bad := rxPacket{from: tc.peer, b: tc.peerPacket(tc.a.localTag+1, dataChunk(0, tc.peerTSN+5, 0, 0, 7, []byte("x")))}
			return append(ps[:4], append([]rxPacket{bad}, ps[4:]...)...)
		}},
		{name: "bad checksum", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			bad := bytes.Clone(ps[4].b)
			bad[len(bad)-1] ^= 1
			return append(ps[:4], append([]rxPacket{{from: tc.peer, b: bad}}, ps[4:]...)...)
		}},
		{name: "bad checksum lost", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			ps[4].b = bytes.Clone(ps[4].b)
			ps[4].b[8] ^= 1
			return ps
		}},
		{name: "bundled control chunk", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			hb := chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("hbinfo")))
			ps[3].b = tc.peerPacket(tc.a.localTag, dataChunk(0, tc.peerTSN+4, 0, 0, 7, bytes.Repeat([]byte{4}, 500)), hb)
			ps[5].b = tc.peerPacket(tc.a.localTag, sackChunk(uint32(tc.a.localTSN)-1, 1<<16), dataChunk(0, tc.peerTSN+6, 0, 0, 7, bytes.Repeat([]byte{6}, 500)))
			return ps
		}},
		{name: "two DATA chunks", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			ps[3].b = tc.peerPacket(tc.a.localTag, dataChunk(0, tc.peerTSN+4, 0, 0, 7, []byte{4}), dataChunk(chunk.FlagEnd, tc.peerTSN+5, 0, 0, 7, []byte{5}))
			ps = append(ps[:4], tc.runMessage(6, 1, 0, 4, 500)...)
			return ps
		}},
		{name: "two DATA chunks, one refused", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			ps[2].b = tc.peerPacket(tc.a.localTag, dataChunk(0, tc.peerTSN+3, 0, 0, 7, []byte{3}), dataChunk(be, tc.peerTSN+1, 0, 0, 7, []byte{1}))
			ps[5].b = tc.peerPacket(tc.a.localTag, dataChunk(be, tc.peerTSN+20, 999, 0, 7, []byte{20}), dataChunk(0, tc.peerTSN+6, 0, 0, 7, []byte{6, 6, 6}))
			return ps
		}},
		{name: "two DATA chunks, unpadded", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 501)
			last := dataChunk(0, tc.peerTSN+5, 0, 0, 7, []byte{5, 5, 5})
			ps[4].b = tc.peerPacket(tc.a.localTag, dataChunk(0, tc.peerTSN+4, 0, 0, 7, []byte{4}), last[:len(last)-1])
			ps = append(ps[:5], tc.runMessage(6, 1, 0, 3, 500)...)
			return ps
		}},
		{name: "two DATA chunks, second breaks the sequence", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			ps[4].b = tc.peerPacket(tc.a.localTag, dataChunk(0, tc.peerTSN+5, 0, 0, 7, []byte{5}), dataChunk(be, tc.peerTSN+6, 3, 0, 7, []byte{6}))
			return ps
		}},
		{name: "two streams", setup: base, pkts: func(tc *testConn) []rxPacket {
			var ps []rxPacket
			for i := range uint32(10) {
				ps = append(ps, tc.runData(be, 1+i, uint16(i%2), uint16(i/2), 300+int(i)))
			}
			return ps
		}},
		{name: "streams interleaved mid-message", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 6, 500)
			return append(ps[:3], append([]rxPacket{tc.runData(be, 4, 1, 0, 10)}, tc.runMessage(5, 0, 0, 3, 500)...)...)
		}},
		{name: "unordered", setup: base, pkts: func(tc *testConn) []rxPacket {
			var ps []rxPacket
			for i := range uint32(6) {
				ps = append(ps, tc.runData(be|chunk.FlagUnordered, 1+i, 2, 0, 200))
			}
			return ps
		}},
		{name: "immediate bit", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			ps[3] = tc.runData(chunk.FlagImmediate, 4, 0, 0, 500)
			return ps
		}},
		{name: "invalid stream", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 6, 500)
			return append(ps[:3], append([]rxPacket{tc.runData(be, 4, 999, 0, 10)}, tc.runMessage(5, 0, 1, 3, 500)...)...)
		}},
		{name: "empty DATA", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 6, 500)
			empty := rxPacket{from: tc.peer, b: tc.peerPacket(tc.a.localTag, dataChunk(be, tc.peerTSN+4, 0, 0, 7, nil))}
			return append(ps[:3], append([]rxPacket{empty}, ps[3:]...)...)
		}},
		{name: "receive window crossed", setup: established(small, serverNoParams), pkts: func(tc *testConn) []rxPacket {
			return tc.runMessage(1, 0, 0, 16, 1000)
		}},
		{name: "window crossed, messages", setup: established(small, serverNoParams), pkts: func(tc *testConn) []rxPacket {
			var ps []rxPacket
			for i := range uint32(16) {
				ps = append(ps, tc.runData(be, 1+i, 0, uint16(i), 900))
			}
			return ps
		}},
		{name: "partial delivery", setup: established(small, serverNoParams), pkts: func(tc *testConn) []rxPacket {
			// The first message passes the partial delivery point
			// before its end comes.
			ps := tc.runMessage(1, 0, 0, 6, 900)
			return append(ps, tc.runMessage(7, 1, 0, 2, 300)...)
		}},
		{name: "I-DATA", setup: func(t *testing.T) *testConn {
			tc := newTestEndpoint(t, interleaveConfig())
			tc.connectServerIData()
			return tc
		}, pkts: func(tc *testConn) []rxPacket {
			var ps []rxPacket
			for i := range uint32(8) {
				var f uint8
				if i == 0 {
					f = chunk.FlagBeginning
				}
				ps = append(ps, rxPacket{from: tc.peer, b: tc.peerPacket(tc.a.localTag,
					iDataChunk(f, tc.peerTSN+i, 0, 0, i, bytes.Repeat([]byte{byte(i)}, 400)))})
			}
			// DATA on an I-DATA association: an ABORT.
			return append(ps, tc.runData(be, 8, 0, 1, 10))
		}},
		{name: "ECN CE", setup: established(testConfig, func(tc *testConn) { tc.connectServerECN(true) }), pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 10, 500)
			for i := 3; i < 6; i++ {
				ps[i].ecn = ecnCE
			}
			ps[8].ecn = ecnCE
			return ps
		}},
		{name: "ECN not CE", setup: established(testConfig, func(tc *testConn) { tc.connectServerECN(true) }), pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 10, 500)
			for i := range ps {
				ps[i].ecn = 2 // ECT(0)
			}
			return ps
		}},
		{name: "ABORT in the run", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			ab := rxPacket{from: tc.peer, b: tc.peerPacket(tc.a.localTag, chunkOf(chunk.TypeAbort, 0, nil))}
			return append(ps[:4], append([]rxPacket{ab}, ps[4:]...)...)
		}},
		{name: "SHUTDOWN in the run", setup: base, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 8, 500)
			sd := rxPacket{from: tc.peer, b: tc.peerPacket(tc.a.localTag, chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))}
			return append(ps[:4], append([]rxPacket{sd}, ps[4:]...)...)
		}},
		{name: "first DATA", setup: func(t *testing.T) *testConn {
			tc := newTestEndpoint(t, testConfig())
			tc.connectServer()
			return tc
		}, pkts: func(tc *testConn) []rxPacket {
			return tc.runMessage(0, 0, 0, 6, 500)
		}},
		{name: "multi-homed", setup: func(t *testing.T) *testConn {
			tc := mhServer(t)
			tc.firstData()
			return tc
		}, pkts: func(tc *testConn) []rxPacket {
			ps := tc.runMessage(1, 0, 0, 12, 500)
			for i := 3; i < 7; i++ {
				ps[i].from = peerAddr2
			}
			ps[9].from = netip.MustParseAddrPort("192.0.2.9:9899") // none of the peer's
			return ps
		}},
		{name: "data to send", setup: func(t *testing.T) *testConn {
			tc := base(t)
			if err := tc.a.send(tc.now, 0, 0, false, make([]byte, 3000)); err != nil {
				t.Fatal(err)
			}
			return tc
		}, pkts: func(tc *testConn) []rxPacket {
			return tc.runMessage(1, 0, 0, 8, 500)
		}},
	}
	for _, sc := range scenarios {
		checkRun(t, sc)
	}
}

// connectSecond sets up a second association with the endpoint, from the
// test peer's port pport+1.
func (tc *testConn) connectSecond() {
	tc.t.Helper()
	a, pport := tc.a, tc.pport
	tc.pport++
	tc.connectServer()
	tc.firstData()
	tc.a, tc.pport = a, pport
}

// secondData returns a DATA packet for the association connectSecond set
// up: TSN peerTSN+i.
func (tc *testConn) secondData(i uint32) rxPacket {
	a := tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport + 1}]
	b := appendHeader(nil, tc.pport+1, tc.lport, a.localTag)
	b = append(b, dataChunk(chunk.FlagBeginning|chunk.FlagEnd, tc.peerTSN+i, 0, 0, 7, []byte("second"))...)
	return rxPacket{from: tc.peer, b: finishPacket(b, 0)}
}

// TestReceiveRunTakesPlainRun: a run of plain DATA packets goes through
// dataRun whole, not packet by packet through receive.
func TestReceiveRunTakesPlainRun(t *testing.T) {
	tc := established(testConfig, serverNoParams)(t)
	ps := tc.runMessage(1, 0, 0, 10, 500)
	views := make([][]byte, len(ps))
	for i := range ps {
		views[i] = ps[i].b
	}
	tc.ep.BeginBatch()
	if n := tc.ep.dataRun(tc.now, tc.peer, views, nil); n != len(views) {
		t.Fatalf("dataRun took %d of %d plain DATA packets", n, len(views))
	}
	tc.ep.EndBatch()
	tc.readPackets()
	_, c := tc.wantChunk(chunk.TypeSack)
	if cum := chunk.TSN(c.raw[4])<<24 | chunk.TSN(c.raw[5])<<16 | chunk.TSN(c.raw[6])<<8 | chunk.TSN(c.raw[7]); cum != chunk.TSN(tc.peerTSN+10) {
		t.Fatalf("SACK acknowledges %d, want %d", cum, tc.peerTSN+10)
	}
}

// serverNoParams is connectServer with an INIT without extra parameters.
func serverNoParams(tc *testConn) { tc.connectServer() }
