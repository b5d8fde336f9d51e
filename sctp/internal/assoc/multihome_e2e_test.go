package assoc

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// mhNet is a client endpoint with one address and a server endpoint with
// two (listed in its INIT ACK), joined by two independent links: link 2i
// carries the client's packets to server address i, link 2i+1 the
// server's answers from that address. The server answers from the
// address the last packet came to, as a transport with IP_PKTINFO does.
type mhNet struct {
	t        testing.TB
	now      time.Time
	net      *simnet.Network
	cli, srv *Endpoint
	cliAddr  netip.AddrPort
	srvAddrs [2]netip.AddrPort
	ca, sa   *Assoc
	srvLast  int // index of the server address the last packet came to
	buf      []byte

	// Client DATA packets per server address, and the first after mark.
	dataTo    [2]int
	firstData [2]time.Time
	mark      time.Time

	// Application: the client sends numbered messages, the server checks
	// that they arrive once each and in order.
	toSend, sent, recv int
	rbuf               []byte
	onEvent            func(Event)
	onSend             func(to netip.AddrPort, pkt []byte) // sees each client packet
	lost               bool                                // EventDown seen (else it fails the test)
	allowLost          bool
	// next: flush polls each endpoint's packets after the first with
	// PollNext (pollrun_test.go); wire hashes every packet sent.
	next bool
	wire uint64
}

// poll is ep.Poll, or ep.PollNext when n.next is set and the packet is
// not the first of the flush; it hashes the packet into n.wire.
func (n *mhNet) poll(ep *Endpoint, first bool) (Packet, bool) {
	var po Packet
	var ok bool
	if first || !n.next {
		po, ok = ep.Poll(n.now, n.buf[:0])
	} else {
		po, ok = ep.PollNext(n.now, n.buf[:0])
	}
	if ok {
		h := fnv.New64a()
		h.Write(po.Data)
		n.wire = n.wire*31 + h.Sum64() + uint64(po.To.Port()) + uint64(po.To.Addr().As4()[2])
	}
	return po, ok
}

func newMHNet(t testing.TB, seed uint64, links [2]simnet.LinkConfig, adj func(*Config)) *mhNet {
	n := &mhNet{t: t, now: t0, net: simnet.New(seed), buf: make([]byte, 0, 2048), rbuf: make([]byte, 64<<10)}
	n.cliAddr = netip.MustParseAddrPort("10.0.0.1:9899")
	n.srvAddrs = [2]netip.AddrPort{netip.MustParseAddrPort("10.0.1.1:9899"), netip.MustParseAddrPort("10.0.2.1:9899")}
	cc := Config{Rand: newTestRand(byte(seed)), MTU: 1452, Timers: api.Timers{HeartbeatInterval: 30 * time.Second}, Paths: api.Paths{Multihoming: true}}
	sc := Config{Rand: newTestRand(byte(seed) + 1), MTU: 1452, LocalAddrs: []netip.Addr{n.srvAddrs[0].Addr(), n.srvAddrs[1].Addr()}}
	if adj != nil {
		adj(&cc)
	}
	n.cli, n.srv = NewEndpoint(cc, n.now), NewEndpoint(sc, n.now)
	for _, l := range links {
		n.net.AddLink(l)
		n.net.AddLink(l)
	}
	return n
}

func (n *mhNet) flush() {
	for k := 0; ; k++ {
		po, ok := n.poll(n.cli, k == 0)
		to, b := po.To, po.Data
		if !ok {
			break
		}
		i := 0
		if to == n.srvAddrs[1] {
			i = 1
		} else if to != n.srvAddrs[0] {
			n.t.Fatalf("client sent to %v", to)
		}
		if n.onSend != nil {
			n.onSend(to, b)
		}
		hasData := false
		forEachChunkType(b, func(t chunk.Type) { hasData = hasData || t == chunk.TypeData })
		if hasData {
			n.dataTo[i]++
			if !n.mark.IsZero() && n.firstData[i].IsZero() {
				n.firstData[i] = n.now
			}
		}
		n.net.Send(n.now, 2*i, b)
	}
	for k := 0; ; k++ {
		po, ok := n.poll(n.srv, k == 0)
		to, b := po.To, po.Data
		if !ok {
			break
		}
		if to != n.cliAddr {
			n.t.Fatalf("server sent to %v", to)
		}
		n.net.Send(n.now, 2*n.srvLast+1, b)
	}
}

// run drives the network until stop reports true.
func (n *mhNet) run(limit time.Duration, stop func() bool) {
	n.t.Helper()
	end := n.now.Add(limit)
	for {
		n.app()
		n.flush()
		if stop() {
			return
		}
		next, ok := n.net.Next()
		for _, ep := range []*Endpoint{n.cli, n.srv} {
			if d := ep.Deadline(); !d.IsZero() && (!ok || d.Before(next)) {
				next, ok = d, true
			}
		}
		if !ok {
			n.t.Fatalf("stalled at %v", n.now.Sub(t0))
		}
		if next.After(n.now) {
			n.now = next
		}
		if n.now.After(end) {
			n.t.Fatalf("not done after %v: sent %d received %d", limit, n.sent, n.recv)
		}
		for pk := n.net.Pop(n.now); pk != nil; pk = n.net.Pop(n.now) {
			if pk.Link%2 == 0 {
				n.srvLast = pk.Link / 2
				n.srv.receive(n.now, n.cliAddr, pk.Data)
			} else {
				n.cli.receive(n.now, n.srvAddrs[pk.Link/2], pk.Data)
			}
			n.net.Free(pk)
		}
		n.cli.Expire(n.now)
		n.srv.Expire(n.now)
		for _, ep := range []*Endpoint{n.cli, n.srv} {
			for {
				e := ep.NextEvent()
				if e == nil {
					break
				}
				if n.onEvent != nil {
					n.onEvent(*e)
				}
				switch {
				case e.Kind == api.EventUp && ep == n.srv:
					n.sa = e.Assoc
				case e.Kind == api.EventDown && e.End.Stats.AssocsUp != 0 && n.allowLost:
					n.lost = true
				case e.Kind == api.EventDown:
					n.t.Fatalf("event %v", eventString(e))
				}
			}
		}
	}
}

// app queues the client's messages and checks what the server reads.
func (n *mhNet) app() {
	if n.ca == nil || n.sa == nil || n.lost {
		return
	}
	for n.sent < n.toSend {
		msg := make([]byte, 1000)
		binary.BigEndian.PutUint32(msg, uint32(n.sent))
		if err := n.ca.send(n.now, 0, 0, false, msg); errors.Is(err, api.ErrWouldBlock) {
			break
		} else if err != nil {
			n.t.Fatal(err)
		}
		n.sent++
	}
	for {
		m, _, err := n.sa.read(n.rbuf)
		if err != nil {
			return
		}
		if seq := int(binary.BigEndian.Uint32(n.rbuf[:m])); seq != n.recv {
			n.t.Fatalf("message %d received, want %d (duplicate or out of order)", seq, n.recv)
		}
		n.recv++
	}
}

// connect runs the handshake and lets the second path be confirmed.
func (n *mhNet) connect() {
	n.t.Helper()
	a, err := n.cli.connect(n.now, n.srvAddrs[0], 5000, 6000)
	if err != nil {
		n.t.Fatal(err)
	}
	n.ca = a
	n.run(time.Minute, func() bool { return n.sa != nil && a.state == stateEstablished && len(a.paths) == 2 })
}

func (n *mhNet) cut(i int, lossy float64) {
	for l := 2 * i; l <= 2*i+1; l++ {
		cfg := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: lossy}
		n.net.Link(l).SetConfig(cfg)
	}
}

// RFC 9260 section 5.4: "Upon receipt of the HEARTBEAT ACK, a
// verification is made that the nonce included in the HEARTBEAT chunk is
// the one sent. If the nonce matches, the address that the original
// HEARTBEAT was sent to is now considered CONFIRMED and available for
// normal data transfer." The server's second address, listed in its INIT
// ACK, is confirmed by a HEARTBEAT sent to it, before any data goes there.
func TestMultihomeUnconfirmedAddressVerified(t *testing.T) {
	n := newMHNet(t, 1, [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}, nil)
	n.connect()
	p := &n.ca.paths[1]
	if p.addr != n.srvAddrs[1] || p.state != api.PathUnconfirmed {
		t.Fatalf("path 1: %v %v, want %v unconfirmed", p.addr, p.state, n.srvAddrs[1])
	}
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	if n.ca.stats.PathsConfirmed != 1 || n.ca.data.eng.NumPaths() != 2 {
		t.Fatalf("confirmed %d, engine paths %d", n.ca.stats.PathsConfirmed, n.ca.data.eng.NumPaths())
	}
	if n.dataTo[1] != 0 {
		t.Fatalf("%d DATA packets to the second address", n.dataTo[1])
	}
	if took := n.now.Sub(t0); took > time.Second {
		t.Errorf("confirmation took %v", took)
	}
}

// RFC 9260 section 5.4: "an endpoint MUST NOT send any chunks to an
// UNCONFIRMED address, with the following exceptions: A HEARTBEAT chunk
// MAY be sent to an UNCONFIRMED address" and the nonce check above: a
// HEARTBEAT ACK with another nonce never confirms the address (counted as
// ignored), and while it is unconfirmed no DATA goes there even when the
// primary fails.
func TestMultihomeForgedNonceNeverConfirms(t *testing.T) {
	n := newMHNet(t, 2, [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond, Loss: 1}}, nil)
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].out })
	ignored := n.ca.stats.Ignored
	for k := range 5 {
		info := binary.BigEndian.AppendUint64(nil, n.ca.paths[1].nonce^uint64(k+1))
		info = binary.BigEndian.AppendUint64(info, uint64(n.ca.paths[1].sentAt.UnixNano()))
		b := appendHeader(nil, 6000, 5000, n.ca.localTag)
		b = appendHeartbeatAck(b, param(chunk.ParamHeartbeatInfo, info))
		n.cli.receive(n.now, n.srvAddrs[1], finishPacket(b, 0))
	}
	if n.ca.paths[1].state != api.PathUnconfirmed || n.ca.stats.PathsConfirmed != 0 {
		t.Fatalf("forged HEARTBEAT ACKs confirmed the path: %v", n.ca.paths[1].state)
	}
	if n.ca.stats.Ignored-ignored != 5 {
		t.Fatalf("%d forged HEARTBEAT ACKs counted, want 5", n.ca.stats.Ignored-ignored)
	}
	n.toSend = 300
	n.run(time.Minute, func() bool { return n.recv > 50 })
	n.cut(0, 1)
	cut := n.now
	n.run(time.Minute, func() bool { return n.now.Sub(cut) > 20*time.Second })
	if n.dataTo[1] != 0 {
		t.Fatalf("%d DATA packets to the unconfirmed address", n.dataTo[1])
	}
}

// The primary link is cut for good in the middle of a transfer: with the
// PF threshold at 0 the data flows on the second path within two RTOs of
// the cut, and every message arrives once and in order.
func TestMultihomeCoreFailover(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	for seed := uint64(1); seed <= 4; seed++ {
		var adj func(*Config)
		if seed == 4 {
			// A telecom configuration: RTO.Min 100 ms.
			adj = func(c *Config) { c.RTOMin, c.RTOInitial = 100*time.Millisecond, 500*time.Millisecond }
		}
		n := newMHNet(t, seed, links, adj)
		n.connect()
		n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
		n.toSend = 4000
		n.run(time.Minute, func() bool { return n.recv > 1000 })
		rto := n.ca.data.eng.PathAt(0).RTO()
		n.cut(0, 1)
		n.mark = n.now
		n.run(5*time.Minute, func() bool { return n.recv == n.toSend })
		failover := n.firstData[1].Sub(n.mark)
		t.Logf("seed %d: RTO %v, DATA to the second address %v after the cut; failovers %d",
			seed, rto, failover, n.ca.stats.PathFailovers)
		if failover <= 0 || failover > 2*rto {
			t.Errorf("seed %d: data on the second path %v after the cut (RTO %v)", seed, failover, rto)
		}
		if n.ca.paths[0].state == api.PathActive {
			t.Errorf("seed %d: the cut primary is still active", seed)
		}
	}
}

// Cut and restore: the primary answers the HEARTBEATs that probe it again,
// becomes active and takes the data back (Config.Paths.NoPrimaryReturn off).
func TestMultihomeCorePrimaryReturns(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 4, links, nil)
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	n.toSend = 20000
	n.run(time.Minute, func() bool { return n.recv > 1000 })
	n.cut(0, 1)
	n.run(time.Minute, func() bool { return n.ca.paths[0].state != api.PathActive && n.recv > 3000 })
	n.cut(0, 0)
	before := n.dataTo[0]
	n.run(time.Minute, func() bool { return n.ca.paths[0].state == api.PathActive })
	n.run(5*time.Minute, func() bool { return n.recv == n.toSend })
	if n.dataTo[0] == before || n.ca.data.eng.Primary() != 0 {
		t.Fatalf("primary not used again: %d DATA packets after the restore, engine primary %d", n.dataTo[0]-before, n.ca.data.eng.Primary())
	}
	t.Logf("DATA packets to the primary %d (%d after it came back), to the second %d", n.dataTo[0], n.dataTo[0]-before, n.dataTo[1])
}

// No spurious failover at 5% random loss on the primary (both
// directions): loss recovery repairs it on the primary.
func TestMultihomeCoreNoSpuriousFailover(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond, Loss: 0.05}, {Delay: 10 * time.Millisecond}}
	for seed := uint64(1); seed <= 3; seed++ {
		n := newMHNet(t, seed, links, nil)
		n.connect()
		n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
		n.toSend = 3000
		n.run(5*time.Minute, func() bool { return n.recv == n.toSend })
		t.Logf("seed %d: failovers %d, DATA to the second address %d, T3 %d", seed, n.ca.stats.PathFailovers, n.dataTo[1], n.ca.data.eng.Stats().T3Expiries)
		if n.ca.stats.PathFailovers != 0 {
			t.Errorf("seed %d: %d failovers at 5%% loss", seed, n.ca.stats.PathFailovers)
		}
	}
}

// Paths reports each address with its state; SetPrimary refuses an
// unconfirmed address and, once it is confirmed, sends the data there.
func TestMultihomePathsAndSetPrimary(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 6, links, nil)
	n.connect()
	if err := n.ca.SetPrimary(n.now, n.srvAddrs[1].Addr()); !errors.Is(err, api.ErrUnconfirmedAddress) {
		t.Fatalf("SetPrimary(unconfirmed): %v", err)
	}
	if err := n.ca.SetPrimary(n.now, netip.MustParseAddr("10.9.9.9")); !errors.Is(err, api.ErrUnknownAddress) {
		t.Fatalf("SetPrimary(unknown): %v", err)
	}
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	ps := n.ca.Paths(nil)
	if len(ps) != 2 || ps[0].Addr != n.srvAddrs[0] || !ps[0].Primary || !ps[0].InUse ||
		ps[1].Addr != n.srvAddrs[1] || ps[1].State != api.PathActive || ps[1].Primary || ps[1].SRTT <= 0 {
		t.Fatalf("paths %+v", ps)
	}
	if err := n.ca.SetPrimary(n.now, n.srvAddrs[1].Addr()); err != nil {
		t.Fatal(err)
	}
	n.toSend = 500
	n.mark = n.now
	n.run(time.Minute, func() bool { return n.recv == n.toSend })
	if n.dataTo[1] == 0 || !n.firstData[0].IsZero() {
		t.Fatalf("DATA packets after SetPrimary: %d to the new primary, first to the old at %v", n.dataTo[1], n.firstData[0])
	}
	if ps = n.ca.Paths(nil); !ps[1].Primary || !ps[1].InUse || ps[0].InUse {
		t.Fatalf("paths after SetPrimary %+v", ps)
	}
}

// Path state changes are reported with the address and the new state:
// the second address confirmed (up, active), then the cut primary
// potentially failed (down), then active again after the restore (up).
func TestMultihomePathEvents(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 8, links, nil)
	var got []Event
	n.onEvent = func(e Event) {
		if e.Assoc == n.ca && e.Kind == api.EventPeerAddrChange && e.Change == api.AddrReachability {
			got = append(got, e)
		}
	}
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	n.toSend = 3000
	n.run(time.Minute, func() bool { return n.recv > 500 })
	n.cut(0, 1)
	n.run(time.Minute, func() bool { return n.ca.paths[0].state != api.PathActive })
	n.cut(0, 0)
	n.run(time.Minute, func() bool { return n.ca.paths[0].state == api.PathActive })
	want := []struct {
		up   bool
		addr netip.AddrPort
		st   api.PathState
	}{{true, n.srvAddrs[1], api.PathActive}, {false, n.srvAddrs[0], api.PathPotentiallyFailed}, {true, n.srvAddrs[0], api.PathActive}}
	if len(got) != len(want) {
		t.Fatalf("%d path events: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Reachable != w.up || transportOf(got[i].Addr) != w.addr || got[i].PathState != w.st {
			t.Errorf("event %d: reachable %v %v %v, want %v %v %v", i, got[i].Reachable, got[i].Addr, got[i].PathState, w.up, w.addr, w.st)
		}
	}
}

// RFC 9260 section 8.1: "If the value of this counter exceeds the limit
// indicated in the protocol parameter 'Association.Max.Retrans', the
// endpoint SHOULD consider the peer endpoint unreachable and SHALL stop
// transmitting any more data to it". With both links cut, the
// retransmissions on both paths count and the association ends.
func TestMultihomeAssociationMaxRetrans(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 3, links, func(c *Config) { c.MaxRetransmits = 4; c.RTOMax = 4 * time.Second })
	n.allowLost = true
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	n.toSend = 2000
	n.run(time.Minute, func() bool { return n.recv > 200 })
	n.cut(0, 1)
	n.cut(1, 1)
	n.run(5*time.Minute, func() bool { return n.lost })
	if !n.ca.closed {
		t.Fatal("association still open")
	}
	if n.dataTo[1] == 0 {
		t.Fatal("no retransmission tried the second path")
	}
}

// With an aggressive RTO.Min (100 ms on a 20 ms path) a T3-rtx at 5% loss
// happens now and then; PFThreshold 1 keeps the data on the primary (the
// timed-out chunks alone go to the other path, 6.4.1), where PF 0 would
// move it until the primary answers a HEARTBEAT.
func TestMultihomePFThresholdOneAtLoss(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond, Loss: 0.05}, {Delay: 10 * time.Millisecond}}
	for seed := uint64(1); seed <= 3; seed++ {
		n := newMHNet(t, seed, links, func(c *Config) {
			c.RTOMin, c.RTOInitial, c.PFThreshold = 100*time.Millisecond, 500*time.Millisecond, 1
		})
		n.connect()
		n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
		n.toSend = 3000
		n.run(5*time.Minute, func() bool { return n.recv == n.toSend })
		t.Logf("seed %d: failovers %d, DATA packets to the second address %d, T3 %d", seed, n.ca.stats.PathFailovers, n.dataTo[1], n.ca.data.eng.Stats().T3Expiries)
		if n.ca.stats.PathFailovers != 0 {
			t.Errorf("seed %d: %d failovers", seed, n.ca.stats.PathFailovers)
		}
	}
}

// RFC 9260 section 8.3: "The endpoint SHOULD increment the respective
// error counter of the destination transport address each time a
// HEARTBEAT chunk is sent to that address and not acknowledged within one
// RTO." That holds for the primary path too when nothing else watches it:
// an association that sends no DATA (a receiver, whose SACKs and control
// chunks follow the primary) finds its cut primary potentially failed by
// its heartbeats alone, and moves to the other path.
func TestMultihomeIdlePrimaryFailsOnHeartbeats(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 5, links, func(c *Config) { c.HeartbeatInterval = time.Second })
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	n.cut(0, 1)
	n.mark = n.now
	n.run(time.Minute, func() bool { return n.ca.paths[0].state != api.PathActive })
	took := n.now.Sub(n.mark)
	t.Logf("idle primary potentially failed %v after the cut", took)
	if took > 2*time.Second+3*n.ca.pathRTO(0) {
		t.Errorf("idle primary found failed only %v after the cut", took)
	}
	if e := n.ca.enginePrimary(); e != 1 {
		t.Errorf("data path %d after the primary failed, want 1", e)
	}
}

// A graceful close over a cut primary: the SHUTDOWN sent to it goes
// unanswered, its T2-shutdown expiry counts against the path, and the
// retransmission goes to the other address (RFC 9260 section 6.4.1: "the
// sender SHOULD try to retransmit to a different active destination
// address"), where the shutdown completes.
func TestMultihomeShutdownFailsOver(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 6, links, nil)
	done := false
	var shutdownTo []netip.AddrPort
	n.onEvent = func(e Event) {
		if e.Assoc == n.ca && e.Kind == api.EventShutdown {
			done = true
		}
	}
	n.onSend = func(to netip.AddrPort, b []byte) {
		forEachChunkType(b, func(t chunk.Type) {
			if t == chunk.TypeShutdown {
				shutdownTo = append(shutdownTo, to)
			}
		})
	}
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	n.toSend = 100
	n.run(time.Minute, func() bool { return n.recv == n.toSend && n.ca.SendIdle() })
	n.cut(0, 1)
	if err := n.ca.Shutdown(n.now); err != nil {
		t.Fatal(err)
	}
	n.run(time.Minute, func() bool { return done })
	if len(shutdownTo) < 2 || shutdownTo[0] != n.srvAddrs[0] || shutdownTo[len(shutdownTo)-1] != n.srvAddrs[1] {
		t.Errorf("SHUTDOWNs sent to %v: want the cut primary first, the other address last", shutdownTo)
	}
}

// RFC 9260 section 6.4: "An endpoint SHOULD transmit reply chunks (e.g.,
// SACK, HEARTBEAT ACK) to the same destination transport address from
// which it received the DATA or control chunk to which it is replying."
// The SHUTDOWN COMPLETE answering a SHUTDOWN ACK that came from the
// second address goes back there, not to the cut primary.
func TestMultihomeShutdownCompleteToSource(t *testing.T) {
	links := [2]simnet.LinkConfig{{Delay: 10 * time.Millisecond}, {Delay: 10 * time.Millisecond}}
	n := newMHNet(t, 7, links, nil)
	var completeTo []netip.AddrPort
	n.onSend = func(to netip.AddrPort, b []byte) {
		forEachChunkType(b, func(t chunk.Type) {
			if t == chunk.TypeShutdownComplete {
				completeTo = append(completeTo, to)
			}
		})
	}
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
	n.toSend = 10
	n.run(time.Minute, func() bool { return n.recv == n.toSend && n.ca.SendIdle() })
	n.cut(0, 1)
	if err := n.ca.Shutdown(n.now); err != nil {
		t.Fatal(err)
	}
	n.run(time.Minute, func() bool { return len(completeTo) > 0 })
	if completeTo[0] != n.srvAddrs[1] {
		t.Errorf("SHUTDOWN COMPLETE sent to %v, want %v (the SHUTDOWN ACK's source)", completeTo[0], n.srvAddrs[1])
	}
}

// transportOf returns the transport address (IP, lower-layer port) an
// event's address names.
func transportOf(a api.Addr) netip.AddrPort { return netip.AddrPortFrom(a.IP, a.UDPPort) }
