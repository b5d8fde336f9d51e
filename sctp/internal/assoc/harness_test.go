package assoc

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// testConn is a packet-level harness that plays the peer of one
// association of an endpoint under test, on a virtual clock (modelled on
// golang.org/x/net/quic's conn_test.go). The endpoint has no test hooks: the
// harness writes packets into it, reads the packets it produces, and moves
// the clock to its deadline.
type testConn struct {
	t        testing.TB
	now      time.Time
	ep       *Endpoint
	a        *Assoc
	peer     netip.AddrPort // the test peer's address, as the endpoint sees it
	lport    uint16         // endpoint's SCTP port
	pport    uint16         // test peer's SCTP port
	peerTag  uint32         // the test peer's verification tag
	peerTSN  uint32         // the test peer's initial TSN
	sent     []sentPacket   // packets the endpoint produced, not yet consumed
	events   []Event
	room     []Event // the room reports for stream writers, apart from the events
	ignoreHB bool    // drop HEARTBEATs while reading
	// acceptZero: the test peer accepts zero checksums (RFC 9653) in what
	// the endpoint sends; sendZero: it sends them.
	acceptZero, sendZero bool
}

// sentPacket is a packet the endpoint produced, parsed.
type sentPacket struct {
	to  netip.AddrPort
	raw []byte
	p   inPacket
}

var (
	peerAddr  = netip.MustParseAddrPort("192.0.2.2:9899")
	peerAddr2 = netip.MustParseAddrPort("192.0.2.3:9899")
)

func testConfig() Config {
	return Config{Rand: newTestRand(7), Timers: api.Timers{HeartbeatInterval: 30 * time.Second}}
}

func newTestEndpoint(t testing.TB, cfg Config) *testConn {
	t.Helper()
	if cfg.Rand == nil {
		cfg.Rand = newTestRand(7)
	}
	tc := &testConn{t: t, now: t0, peer: peerAddr, lport: 5000, pport: 6000,
		peerTag: 0xfeedf00d, peerTSN: 1000}
	tc.ep = NewEndpoint(cfg, tc.now)
	return tc
}

// writePacket sends one packet from the test peer with the given tag.
func (tc *testConn) writePacket(vtag uint32, chunks ...[]byte) {
	tc.t.Helper()
	b := appendHeader(nil, tc.pport, tc.lport, vtag)
	for _, c := range chunks {
		b = append(b, c...)
	}
	b = finishPacket(b, 0)
	if tc.sendZero {
		chunk.SetZeroChecksum(b)
	}
	tc.ep.receive(tc.now, tc.peer, b)
	tc.drainEvents()
}

// writeChunks sends chunks with the endpoint's own tag.
func (tc *testConn) writeChunks(chunks ...[]byte) {
	tc.t.Helper()
	tc.writePacket(tc.a.localTag, chunks...)
}

// drainEvents collects the endpoint's events, and apart from them the
// room reports for stream writers.
func (tc *testConn) drainEvents() {
	for {
		e := tc.ep.NextEvent()
		switch {
		case e == nil:
			return
		case e.Room:
			tc.room = append(tc.room, *e)
		default:
			tc.events = append(tc.events, *e)
		}
	}
}

// readPackets collects everything the endpoint has to send now.
func (tc *testConn) readPackets() {
	for {
		po, ok := tc.ep.Poll(tc.now, nil)
		to, b := po.To, po.Data
		if !ok {
			break
		}
		var sp sentPacket
		sp.to, sp.raw = to, b
		if r := parsePacket(b, &sp.p, tc.acceptZero); r != parseOK {
			tc.t.Fatalf("endpoint sent a bad packet (%v): %x", r, b)
		}
		sp.p.chunks = append([]rxChunk(nil), sp.p.chunks...)
		if tc.ignoreHB {
			cs := sp.p.chunks[:0]
			for _, c := range sp.p.chunks {
				if c.typ != chunk.TypeHeartbeat {
					cs = append(cs, c)
				}
			}
			sp.p.chunks = cs
			if len(cs) == 0 {
				continue
			}
		}
		tc.sent = append(tc.sent, sp)
	}
	tc.drainEvents()
}

// wantPacket returns the next packet the endpoint sent.
func (tc *testConn) wantPacket() *sentPacket {
	tc.t.Helper()
	tc.readPackets()
	if len(tc.sent) == 0 {
		tc.t.Fatalf("want a packet, endpoint sent nothing (state %v)", tc.stateName())
	}
	p := tc.sent[0]
	tc.sent = tc.sent[1:]
	return &p
}

// wantChunk returns the first chunk of the next packet, which must be of
// type typ, sent with tag vtag.
func (tc *testConn) wantChunk(typ chunk.Type) (*sentPacket, *rxChunk) {
	tc.t.Helper()
	p := tc.wantPacket()
	if p.p.chunks[0].typ != typ {
		tc.t.Fatalf("want chunk type %d, got packet with chunks %v", typ, chunkTypes(&p.p))
	}
	return p, &p.p.chunks[0]
}

func chunkTypes(p *inPacket) []chunk.Type {
	var ts []chunk.Type
	for _, c := range p.chunks {
		ts = append(ts, c.typ)
	}
	return ts
}

// wantIdle checks that the endpoint has nothing to send.
func (tc *testConn) wantIdle() {
	tc.t.Helper()
	tc.readPackets()
	if len(tc.sent) > 0 {
		tc.t.Fatalf("want no packet, endpoint sent chunks %v (vtag %08x)", chunkTypes(&tc.sent[0].p), tc.sent[0].p.vtag)
	}
}

// wantEvent checks that the next event is a user event of kind k.
func (tc *testConn) wantEvent(k api.EventKind) Event {
	tc.t.Helper()
	tc.drainEvents()
	if len(tc.events) == 0 {
		tc.t.Fatalf("want event %v, got none", k)
	}
	e := tc.events[0]
	tc.events = tc.events[1:]
	if e.Quiet || e.Kind != k {
		tc.t.Fatalf("want event %v, got %v", k, eventString(&e))
	}
	return e
}

// wantAddrEvent checks that the next event reports a change c of one of
// the peer's addresses that the peer made (RFC 5061 ASCONF: added,
// removed, made primary), and returns it.
func (tc *testConn) wantAddrEvent(c api.AddrChange) Event {
	tc.t.Helper()
	e := tc.wantEvent(api.EventPeerAddrChange)
	if !asconfEvent(&e, c) {
		tc.t.Fatalf("want address event %v, got %+v", c, e.Event)
	}
	return e
}

// wantPathDown and wantPathUp check that the next event reports a peer
// address unreachable or reachable again (SCTP_PEER_ADDR_CHANGE), and
// return it.
func (tc *testConn) wantPathDown() Event {
	tc.t.Helper()
	return tc.wantPathChange(api.AddrReachability, false)
}

func (tc *testConn) wantPathUp() Event {
	tc.t.Helper()
	return tc.wantPathChange(api.AddrReachability, true)
}

// wantMadePrimary checks that the next event reports a peer address made
// the primary (SCTP_ADDR_MADE_PRIM), and returns it.
func (tc *testConn) wantMadePrimary() Event {
	tc.t.Helper()
	e := tc.wantEvent(api.EventPeerAddrChange)
	if e.Change != api.AddrMadePrimary || !e.MadePrimary {
		tc.t.Fatalf("want made primary, got %+v", e.Event)
	}
	return e
}

func (tc *testConn) wantPathChange(c api.AddrChange, reachable bool) Event {
	tc.t.Helper()
	e := tc.wantEvent(api.EventPeerAddrChange)
	if e.Change != c || e.Reachable != reachable {
		tc.t.Fatalf("want %v reachable %v, got %+v", c, reachable, e.Event)
	}
	return e
}

// wantAnswer checks that the next event is the answer to request op, and
// returns it (its Err is the result).
func (tc *testConn) wantAnswer(op uint64) Event {
	tc.t.Helper()
	tc.drainEvents()
	if len(tc.events) == 0 {
		tc.t.Fatalf("want the answer to request %d, got none", op)
	}
	e := tc.events[0]
	tc.events = tc.events[1:]
	if !e.Quiet || e.Op != op {
		tc.t.Fatalf("want the answer to request %d, got %v", op, eventString(&e))
	}
	return e
}

// wantCommLost checks that the next event is the EventDown of an
// association that was established (RFC 9260's COMMUNICATION LOST), and
// returns it.
func (tc *testConn) wantCommLost() Event {
	tc.t.Helper()
	e := tc.wantEvent(api.EventDown)
	if e.End.Stats.AssocsUp == 0 {
		tc.t.Fatalf("EventDown (%v) of an association that never started, want COMMUNICATION LOST", e.End.Reason)
	}
	return e
}

// wantCantStart checks that the next event is the EventDown of an
// association whose handshake failed (RFC 9260's CANNOT START
// ASSOCIATION), and returns it.
func (tc *testConn) wantCantStart() Event {
	tc.t.Helper()
	e := tc.wantEvent(api.EventDown)
	if e.End.Stats.AssocsUp != 0 {
		tc.t.Fatalf("EventDown (%v) of an established association, want CANNOT START ASSOCIATION", e.End.Reason)
	}
	return e
}

// eventString describes e for a test failure.
func eventString(e *Event) string {
	switch {
	case e.Room:
		return fmt.Sprintf("room on stream %d", e.Stream)
	case e.Quiet:
		return fmt.Sprintf("answer to request %d (%v)", e.Op, e.Err)
	case e.End != nil:
		return fmt.Sprintf("%v (%v)", e.Kind, e.End.Reason)
	}
	return e.Kind.String()
}

func (tc *testConn) wantNoEvent() {
	tc.t.Helper()
	tc.drainEvents()
	if len(tc.events) > 0 {
		tc.t.Fatalf("want no event, got %v", eventString(&tc.events[0]))
	}
}

func (tc *testConn) wantState(s state) {
	tc.t.Helper()
	if tc.a == nil {
		tc.t.Fatalf("want state %v, no association", s)
	}
	if tc.a.closed && s != stateClosed {
		tc.t.Fatalf("want state %v, association closed", s)
	}
	if tc.a.state != s {
		tc.t.Fatalf("want state %v, got %v", s, tc.a.state)
	}
}

func (tc *testConn) stateName() string {
	if tc.a == nil {
		return "none"
	}
	return tc.a.state.String()
}

// advance moves the clock by d and runs expired timers.
func (tc *testConn) advance(d time.Duration) {
	tc.now = tc.now.Add(d)
	tc.ep.Expire(tc.now)
	tc.drainEvents()
}

// advanceToTimer moves the clock to the endpoint's next deadline.
func (tc *testConn) advanceToTimer() {
	tc.t.Helper()
	d := tc.ep.Deadline()
	if tc.a != nil && !tc.a.closed {
		d = tc.a.nextDeadline()
	}
	if d.IsZero() {
		tc.t.Fatalf("advanceToTimer: no timer armed")
	}
	if d.After(tc.now) {
		tc.now = d
	}
	tc.ep.Expire(tc.now)
	tc.drainEvents()
}

// Chunk builders for the test peer, on the sctp/chunk codec.

func initChunk(typ chunk.Type, tag, rwnd uint32, os, mis uint16, tsn uint32, params ...[]byte) []byte {
	m := chunk.Init{Ack: typ == chunk.TypeInitAck, Tag: tag, ARwnd: rwnd, OutStreams: os, InStreams: mis,
		InitialTSN: chunk.TSN(tsn)}
	for _, p := range params {
		m.Params = append(m.Params, p...)
	}
	b, err := m.Append(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func param(typ chunk.ParamType, val []byte) []byte {
	b, err := chunk.AppendParam(nil, typ, val)
	if err != nil {
		panic(err)
	}
	return b
}

func (tc *testConn) peerInit(params ...[]byte) []byte {
	return initChunk(chunk.TypeInit, tc.peerTag, 65536, 100, 100, tc.peerTSN, params...)
}

// cause returns an error cause (a TLV like a parameter).
func cause(code chunk.CauseCode, val []byte) []byte { return param(chunk.ParamType(code), val) }

func chunkOf(typ chunk.Type, flags uint8, val []byte) []byte {
	b, err := chunk.Chunk{Type: typ, Flags: flags, Value: val}.Append(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func dataChunk(flags uint8, tsn uint32, sid, ssn uint16, ppid uint32, payload []byte) []byte {
	d := chunk.Data{Flags: flags, TSN: chunk.TSN(tsn), SID: sid, SSN: ssn, PPID: ppid, Payload: payload}
	b, err := d.Append(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func sackChunk(cum uint32, rwnd uint32) []byte {
	b, err := chunk.AppendSack(nil, chunk.TSN(cum), rwnd, nil, nil)
	if err != nil {
		panic(err)
	}
	return b
}

// initValue parses the fixed part of an INIT or INIT ACK we received.
func initValue(t testing.TB, c *rxChunk) initInfo {
	t.Helper()
	var in initInfo
	if !parseInit(c, &in) {
		t.Fatalf("cannot parse INIT/INIT ACK %x", c.raw)
	}
	return in
}

// connectClient runs the handshake with the endpoint as client: INIT,
// INIT ACK, COOKIE ECHO, COOKIE ACK.
func (tc *testConn) connectClient() {
	tc.t.Helper()
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		tc.t.Fatal(err)
	}
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.wantState(stateCookieWait)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
		param(chunk.ParamStateCookie, []byte("peer cookie"))))
	_, c := tc.wantChunk(chunk.TypeCookieEcho)
	if string(c.value()) != "peer cookie" {
		tc.t.Fatalf("COOKIE ECHO carries %q", c.value())
	}
	tc.wantState(stateCookieEchoed)
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
	tc.wantEvent(api.EventUp)
}

// connectServer runs the handshake with the endpoint as server; params
// are the parameters of the peer's INIT.
func (tc *testConn) connectServer(params ...[]byte) {
	tc.t.Helper()
	tc.writePacket(0, tc.peerInit(params...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(tc.t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if tc.a == nil {
		tc.t.Fatalf("no association after COOKIE ECHO")
	}
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantState(stateEstablished)
	tc.wantEvent(api.EventUp)
}

// cookieFor sends an INIT from the test peer and returns the INIT ACK's
// Initiate Tag and cookie (copied).
func (tc *testConn) cookieFor(tag uint32, params ...[]byte) (uint32, []byte) {
	tc.t.Helper()
	tc.writePacket(0, initChunk(chunk.TypeInit, tag, 65536, 100, 100, tc.peerTSN, params...))
	p, c := tc.wantChunk(chunk.TypeInitAck)
	if p.p.vtag != tag {
		tc.t.Fatalf("INIT ACK sent with tag %08x, want the INIT's Initiate Tag %08x", p.p.vtag, tag)
	}
	in := initValue(tc.t, c)
	return in.tag, append([]byte(nil), in.cookie...)
}
