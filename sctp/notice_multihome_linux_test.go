package sctp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// coreServer is a peer made of the association core alone on a UDP socket
// bound to one address: its INIT ACK lists addrs, so that the other
// addresses there are the peer's but nothing listens on them (a port
// unreachable answers every packet sent there). It accepts associations
// on SCTP port 5000 and reads what they receive.
func coreServer(t *testing.T, addrs []netip.Addr) (port uint16, received func() int) {
	t.Helper()
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addrs[0], 0)))
	if err != nil {
		t.Skipf("no %v: %v", addrs[0], err)
	}
	ep := assoc.NewEndpoint(assoc.Config{LocalAddrs: addrs}, time.Now())
	ep.SetPortFilter(assoc.PortFilter{Listen: 5000})
	done, count := make(chan struct{}), make(chan int)
	go func() {
		defer close(done)
		var as []*assoc.Assoc
		n := 0
		buf, out, msg := make([]byte, 65536), make([]byte, 0, 65536), make([]byte, 65536)
		for {
			rd := time.Now().Add(20 * time.Millisecond)
			if d := ep.Deadline(); !d.IsZero() && d.Before(rd) {
				rd = d
			}
			c.SetReadDeadline(rd)
			k, from, err := c.ReadFromUDPAddrPort(buf)
			now := time.Now()
			switch {
			case err == nil:
				ep.Receive(now, netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), buf[:k], 0)
			case errors.Is(err, os.ErrDeadlineExceeded):
			default:
				return // closed
			}
			ep.Expire(now)
			for {
				p, ok := ep.Poll(now, out[:0])
				if !ok {
					break
				}
				c.WriteToUDPAddrPort(p.Data, p.To)
			}
			for e := ep.NextEvent(); e != nil; e = ep.NextEvent() {
				if !e.Quiet && e.Kind == EventUp {
					as = append(as, e.Assoc)
				}
			}
			for _, a := range as {
				for {
					if _, _, err := a.Read(msg); err != nil {
						break
					}
					n++
				}
			}
			select {
			case count <- n:
			default:
			}
		}
	}()
	t.Cleanup(func() { c.Close(); <-done })
	return uint16(c.LocalAddr().(*net.UDPAddr).Port), func() int {
		select {
		case n := <-count:
			return n
		case <-done:
			return -1
		}
	}
}

// RFC 9260 appendix C, ICMP8 (the text of RFC 4960 appendix C, which RFC
// 9260 keeps): "If the ICMP code is an "Unrecognized Next Header Type
// Encountered" or a "Protocol Unreachable", an implementation MUST treat
// this message as an abort with the T bit set if it does not contain an
// INIT chunk", and RFC 6951 section 5.5 maps an ICMP port unreachable for
// UDP encapsulation to protocol unreachable; ICMP9 lets an implementation
// "MAY move the destination to the unreachable state" instead. Over UDP on
// loopback, a multi-homed association whose peer lists an address where
// nothing listens: the HEARTBEATs that address gets draw ICMP port
// unreachable (the kernel's, read with IP_RECVERR), which count against
// that path alone; the association lives and carries data on the other.
// The compat work found the association ended by the first one.
func TestUDPMultihomedPeerAddressRefused(t *testing.T) {
	primary, closed := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")
	port, received := coreServer(t, []netip.Addr{primary, closed})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	as, err := Dial(ctx, netip.AddrPortFrom(primary, 5000).String(), &Config{RemoteUDPPort: port, Paths: Paths{Multihoming: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	deadline := time.Now().Add(15 * time.Second)
	for as.Stats().NoticesIn == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no ICMP error for the HEARTBEAT to %v; paths %+v", closed, as.Paths())
		}
		time.Sleep(10 * time.Millisecond)
	}
	paths := as.Paths()
	if paths == nil {
		t.Fatalf("the ICMP error for %v ended the association", closed)
	}
	if len(paths) != 2 || paths[1].Addr.IP != closed || paths[1].State != PathUnconfirmed || paths[1].Errors <= 5 {
		t.Fatalf("paths %+v, want %v unconfirmed beyond Path.Max.Retrans", paths, closed)
	}
	const msgs = 100
	for i := range msgs {
		if _, err := as.WriteMsg([]byte("after the refusal"), SendInfo{}); err != nil {
			t.Fatalf("message %d: %v (notices %d)", i, err, as.Stats().NoticesIn)
		}
	}
	for n := received(); n < msgs; n = received() {
		if n < 0 || time.Now().After(deadline) {
			t.Fatalf("the peer read %d of %d messages", n, msgs)
		}
	}
	if s := as.Stats(); s.NoticesIn == 0 || as.Paths() == nil {
		t.Fatalf("association ended: %+v", s.Counters)
	}
}
