package assoc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// heartbeatQuote is the start of a HEARTBEAT packet the client of n sent
// to path i, as an ICMP error quotes it.
func (n *mhNet) heartbeatQuote(i int) []byte {
	p := &n.ca.paths[i]
	info := binary.BigEndian.AppendUint64(nil, p.nonce)
	info = binary.BigEndian.AppendUint64(info, uint64(p.sentAt.UnixNano()))
	b := appendHeader(nil, n.ca.key.localPort, n.ca.key.peerPort, n.ca.peerTag)
	return finishPacket(appendHeartbeat(b, info), 0)
}

// RFC 9260 appendix C, ICMP8 (the text of RFC 4960 appendix C, which RFC
// 9260 keeps): "If the ICMP code is an "Unrecognized Next Header Type
// Encountered" or a "Protocol Unreachable", an implementation MUST treat
// this message as an abort with the T bit set if it does not contain an
// INIT chunk." That rule was written for a peer with one address; for a
// peer with several, ICMP9 lets an implementation "MAY move the
// destination to the unreachable state or, alternatively, increment the
// path error counter", and section 8.2: "When the value of this counter
// exceeds the protocol parameter 'Path.Max.Retrans', the endpoint SHOULD
// mark the destination transport address as inactive". This stack treats
// a refusal (a protocol unreachable, or a port unreachable over UDP
// encapsulation, RFC 6951 section 5.5) for one path of a multi-homed
// association as that path's failure while another path is reachable,
// and as an ABORT (ICMP8) only for the association's last reachable path
// or a single-homed association.
func TestNoticeRefusedMultihomedPath(t *testing.T) {
	up := simnet.LinkConfig{Delay: 10 * time.Millisecond}
	refusing := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1}
	const msgs = 400

	// lost records the reason of the client's EventDown.
	watch := func(n *mhNet) *Reason {
		r := new(Reason)
		n.allowLost = true
		n.onEvent = func(e Event) {
			if e.Kind == api.EventDown && e.Assoc == n.ca {
				*r = e.End.Reason
			}
		}
		return r
	}
	transfer := func(n *mhNet) {
		t.Helper()
		n.toSend = msgs
		n.run(5*time.Minute, func() bool { return n.recv == n.toSend || n.lost })
		if n.lost || n.ca.closed {
			t.Fatalf("association lost after %d of %d messages", n.recv, msgs)
		}
	}

	// The address the HEARTBEATs of an unconfirmed path go to refuses
	// them (the compat finding): the association lives, the address is
	// marked as one that never answered, and no DATA goes there.
	t.Run("unconfirmed secondary", func(t *testing.T) {
		n := newMHNet(t, 1, [2]simnet.LinkConfig{up, refusing}, nil)
		lost := watch(n)
		n.connect()
		n.run(time.Minute, func() bool { return n.ca.paths[1].out })
		n.cli.Notice(n.now, Notice{To: n.srvAddrs[1], Kind: NoticeRefused, Quote: n.heartbeatQuote(1)})
		if n.ca.closed {
			t.Fatalf("a refusal for an unconfirmed address ended the association (%v)", *lost)
		}
		p := &n.ca.paths[1]
		if p.state != api.PathUnconfirmed || p.errors <= n.cli.cfg.PathMaxRetransmits {
			t.Fatalf("path 1: %v with %d errors, want unconfirmed beyond Path.Max.Retrans %d", p.state, p.errors, n.cli.cfg.PathMaxRetransmits)
		}
		if s := n.ca.stats; s.NoticesIn != 1 {
			t.Fatalf("NoticesIn %d, want 1", s.NoticesIn)
		}
		transfer(n)
		if n.dataTo[1] != 0 {
			t.Fatalf("%d DATA packets to the refusing address", n.dataTo[1])
		}
	})

	// Both paths confirmed, one of them refuses during a transfer: it
	// becomes inactive at once (unreachable: an EventPeerAddrChange), the data goes on the
	// other, and every message arrives once and in order.
	for _, refused := range []int{1, 0} {
		name := map[int]string{1: "confirmed secondary", 0: "confirmed primary"}[refused]
		t.Run(name, func(t *testing.T) {
			n := newMHNet(t, 2, [2]simnet.LinkConfig{up, up}, nil)
			lost := watch(n)
			var down []Event
			prev := n.onEvent
			n.onEvent = func(e Event) {
				prev(e)
				if e.Kind == api.EventPeerAddrChange && e.Change == api.AddrReachability && !e.Reachable && e.Assoc == n.ca {
					down = append(down, e)
				}
			}
			n.connect()
			n.run(time.Minute, func() bool { return n.ca.paths[1].state == api.PathActive })
			n.toSend = msgs
			n.run(time.Minute, func() bool { return n.recv > msgs/4 })
			n.cut(refused, 1) // it refuses from now on
			n.cli.Notice(n.now, Notice{To: n.srvAddrs[refused], Kind: NoticeRefused, Quote: n.heartbeatQuote(refused)})
			if n.ca.closed {
				t.Fatalf("a refusal for one of two active paths ended the association (%v)", *lost)
			}
			if st := n.ca.paths[refused].state; st != api.PathInactive {
				t.Fatalf("refused path %d is %v, want inactive", refused, st)
			}
			other := 1 - refused
			if n.ca.data.eng.Primary() != n.ca.paths[other].eng {
				t.Fatalf("new data goes to engine path %d, want the other path's %d", n.ca.data.eng.Primary(), n.ca.paths[other].eng)
			}
			for e := n.cli.NextEvent(); e != nil; e = n.cli.NextEvent() {
				n.onEvent(*e)
			}
			if len(down) != 1 || transportOf(down[0].Addr) != n.srvAddrs[refused] {
				t.Fatalf("unreachable %+v, want one for %v", down, n.srvAddrs[refused])
			}
			transfer(n)
		})
	}

	// The refused path is the only one the peer answers on (the other is
	// unconfirmed): ICMP8, the association ends as refused.
	t.Run("last reachable path", func(t *testing.T) {
		n := newMHNet(t, 3, [2]simnet.LinkConfig{up, refusing}, nil)
		lost := watch(n)
		n.connect()
		n.cli.Notice(n.now, Notice{To: n.srvAddrs[0], Kind: NoticeRefused, Quote: n.heartbeatQuote(0)[:12]})
		n.run(time.Minute, func() bool { return n.lost })
		if !n.ca.closed || *lost != reasonPortUnreachable {
			t.Fatalf("closed %v, reason %v, want ended with %v", n.ca.closed, *lost, reasonPortUnreachable)
		}
	})

	// Single-homed (no Config.Paths.Multihoming): ICMP8 ends the association.
	t.Run("single path", func(t *testing.T) {
		n := newMHNet(t, 4, [2]simnet.LinkConfig{up, up}, func(c *Config) { c.Multihoming = false })
		lost := watch(n)
		a, err := n.cli.connect(n.now, n.srvAddrs[0], 5000, 6000)
		if err != nil {
			t.Fatal(err)
		}
		n.ca = a
		n.run(time.Minute, func() bool { return n.sa != nil && a.state == stateEstablished })
		if a.paths != nil {
			t.Fatal("paths without Config.Multihoming")
		}
		quote := finishPacket(appendHeader(nil, a.key.localPort, a.key.peerPort, a.peerTag), 0)
		n.cli.Notice(n.now, Notice{To: n.srvAddrs[0], Kind: NoticeRefused, Quote: quote})
		n.run(time.Minute, func() bool { return n.lost })
		if !a.closed || *lost != reasonPortUnreachable {
			t.Fatalf("closed %v, reason %v, want ended with %v", a.closed, *lost, reasonPortUnreachable)
		}
	})
}

// RFC 9260 appendix C, ICMP9 (quoted): on "Destination Unreachable" the
// implementation "MAY move the destination to the unreachable state or,
// alternatively, increment the path error counter". For a HEARTBEAT sent
// to one path of a multi-homed association (its nonce quoted), the
// error is counted at once and only once: not again when the HEARTBEAT
// goes unanswered, not for a duplicate notice or one quoting another
// nonce, and the association lives.
func TestNoticeUnreachableCountsPathHeartbeatOnce(t *testing.T) {
	up := simnet.LinkConfig{Delay: 10 * time.Millisecond}
	unreachable := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1}
	n := newMHNet(t, 5, [2]simnet.LinkConfig{up, unreachable}, nil)
	n.connect()
	n.run(time.Minute, func() bool { return n.ca.paths[1].out })
	p := &n.ca.paths[1]
	before, sent := p.errors, p.sentAt
	quote := n.heartbeatQuote(1)
	forged := append([]byte(nil), quote...)
	forged[27] ^= 1 // another nonce
	n.cli.Notice(n.now, Notice{To: n.srvAddrs[1], Kind: NoticeUnreachable, Quote: forged})
	n.cli.Notice(n.now, Notice{To: n.srvAddrs[1], Kind: NoticeUnreachable, Quote: quote[:27]}) // too short to show the nonce
	if p.errors != before || !p.out {
		t.Fatalf("errors %d -> %d, outstanding %v: counted without the HEARTBEAT's nonce", before, p.errors, p.out)
	}
	n.cli.Notice(n.now, Notice{To: n.srvAddrs[1], Kind: NoticeUnreachable, Quote: quote})
	n.cli.Notice(n.now, Notice{To: n.srvAddrs[1], Kind: NoticeUnreachable, Quote: quote})
	if p.errors != before+1 || p.out {
		t.Fatalf("errors %d -> %d, outstanding %v, want one more and none outstanding", before, p.errors, p.out)
	}
	// The next HEARTBEAT goes out on time; the first is not counted again.
	n.run(time.Minute, func() bool { return p.out && !p.sentAt.Equal(sent) })
	if p.errors != before+1 {
		t.Fatalf("errors %d, want %d: the refused HEARTBEAT counted twice", p.errors, before+1)
	}
	if n.ca.closed || n.ca.stats.NoticesIn != 4 {
		t.Fatalf("closed %v, NoticesIn %d (want 4)", n.ca.closed, n.ca.stats.NoticesIn)
	}
}

// FuzzNoticeMultihomed feeds arbitrary quotes to Notice for either address
// of a multi-homed association whose second address is unconfirmed:
// nothing may panic, and only a refusal with the peer's tag for the
// address the peer answers on may end the association.
func FuzzNoticeMultihomed(f *testing.F) {
	f.Add(uint8(0), uint8(NoticeRefused), appendHeader(nil, 5000, 6000, 0))
	f.Add(uint8(1), uint8(NoticeRefused), appendHeader(nil, 5000, 6000, 0))
	f.Add(uint8(1), uint8(NoticeUnreachable), finishPacket(appendHeartbeat(appendHeader(nil, 5000, 6000, 0), make([]byte, 16)), 0))
	f.Fuzz(func(t *testing.T, to, kind uint8, quote []byte) {
		up := simnet.LinkConfig{Delay: 10 * time.Millisecond}
		n := newMHNet(t, 6, [2]simnet.LinkConfig{up, {Delay: 10 * time.Millisecond, Loss: 1}}, nil)
		n.connect()
		tag := n.ca.peerTag
		if len(quote) >= 8 && to&0x80 != 0 {
			binary.BigEndian.PutUint32(quote[4:], tag) // a valid tag half the time
		}
		i := int(to & 1)
		n.cli.Notice(n.now, Notice{To: n.srvAddrs[i], Kind: NoticeKind(kind % 4), Quote: quote})
		if n.ca.closed && (i != 0 || NoticeKind(kind%4) != NoticeRefused || len(quote) < 12 || binary.BigEndian.Uint32(quote[4:]) != tag) {
			t.Fatalf("ended by %v for address %d with a %d-byte quote", NoticeKind(kind%4), i, len(quote))
		}
	})
}
