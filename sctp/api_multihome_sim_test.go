package sctp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// twoAddrConn is a server's packet connection at two addresses of the
// simulated network (as a socket bound to the wildcard address): it reads
// what arrives at either and sends from the first.
type twoAddrConn struct {
	a, b *simconn.Conn
	mu   sync.Mutex
	dl   time.Time
}

var _ netio.Conn = (*twoAddrConn)(nil)

// ReadBatch waits for a packet at either address, looking at each for a
// millisecond of virtual time in turn.
func (c *twoAddrConn) ReadBatch(pkts []netio.Packet) (int, error) {
	for {
		c.mu.Lock()
		dl := c.dl
		c.mu.Unlock()
		if !dl.IsZero() && !time.Now().Before(dl) {
			return 0, os.ErrDeadlineExceeded
		}
		for _, x := range []*simconn.Conn{c.a, c.b} {
			x.SetReadDeadline(time.Now().Add(time.Millisecond))
			n, err := x.ReadBatch(pkts)
			if n > 0 {
				return n, nil
			}
			if errors.Is(err, net.ErrClosed) {
				return 0, err
			}
		}
	}
}

func (c *twoAddrConn) WriteBatch(pkts []netio.Packet) (int, error) { return c.a.WriteBatch(pkts) }

func (c *twoAddrConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.dl = t
	c.mu.Unlock()
	return nil
}

func (c *twoAddrConn) LocalAddr() netip.AddrPort      { return c.a.LocalAddr() }
func (c *twoAddrConn) Overhead(remote netip.Addr) int { return c.a.Overhead(remote) }
func (c *twoAddrConn) Close() error                   { c.b.Close(); return c.a.Close() }
func (c *twoAddrConn) WriteFragmentable(p []netio.Packet) (int, error) {
	return c.a.WriteFragmentable(p)
}

// pathOf returns the client's path to addr.
func pathOf(t *testing.T, c *Association, addr netip.Addr) PathInfo {
	t.Helper()
	for _, p := range c.Paths() {
		if p.Addr.IP == addr {
			return p
		}
	}
	t.Fatalf("no path to %v in %+v", addr, c.Paths())
	return PathInfo{}
}

// TestSimMultihomeFailoverAndReturn: a client dials a server at two
// addresses (10.0.0.2 listed with 10.0.0.3 in its INIT ACK). RFC 9260
// section 5.4: the second address is confirmed by a HEARTBEAT before any
// DATA goes there; section 6.4: the DATA goes to the primary, 10.0.0.2.
// The link to 10.0.0.2 is cut mid-transfer: RFC 7829 section 5.1 moves the
// data to 10.0.0.3 (counted in PathFailovers), where the retransmissions
// and the rest of the transfer go, every byte delivered once. The link
// comes back: the primary answers its probes, becomes active and takes
// the data back (Config.Paths.NoPrimaryReturn off).
func TestSimMultihomeFailoverAndReturn(t *testing.T) {
	bubble(t, func(t *testing.T) {
		link := simnet.LinkConfig{Delay: 10 * time.Millisecond}
		n := simconn.New(1, simconn.Config{Link: link, Overhead: 28})
		cli := netip.MustParseAddrPort("10.0.0.1:9899")
		srvA, srvB := netip.MustParseAddrPort("10.0.0.2:9899"), netip.MustParseAddrPort("10.0.0.3:9899")
		ca, err := n.Listen(cli)
		if err != nil {
			t.Fatal(err)
		}
		sa, err := n.Listen(srvA)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := n.Listen(srvB)
		if err != nil {
			t.Fatal(err)
		}
		l, err := listenOn("10.0.0.2,10.0.0.3:5000", &Config{OutStreams: 4, InStreams: 4}, &twoAddrConn{a: sa, b: sb})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		dc := &Config{OutStreams: 4, InStreams: 4, Paths: Paths{Multihoming: true}}
		c, err := dialNew(ctx, "10.0.0.2:5000", dc, ca)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a, b := srvA.Addr(), srvB.Addr()
		for pathOf(t, c, b).State != PathActive {
			time.Sleep(10 * time.Millisecond)
		}
		simBulk(t, c, s, 1<<20, nil)
		if st := n.LinkStats(cli, srvB); st.Bytes > 4096 {
			t.Fatalf("%d bytes to the second address before any failure: DATA went there", st.Bytes)
		}
		if p := pathOf(t, c, a); !p.InUse || !p.Primary {
			t.Fatalf("primary %+v not in use", p)
		}

		cut := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: 1}
		n.SetLink(cli, srvA, cut)
		before := n.LinkStats(cli, srvB).Bytes
		simBulk(t, c, s, 2<<20, nil)
		if moved := n.LinkStats(cli, srvB).Bytes - before; moved < 2<<20 {
			t.Fatalf("%d bytes to %v after the cut, want the 2 MB transfer there", moved, b)
		}
		if p := pathOf(t, c, b); !p.InUse {
			t.Fatalf("after the cut: %+v not in use", p)
		}
		if p := pathOf(t, c, a); p.State == PathActive || p.InUse {
			t.Fatalf("after the cut: the primary %+v still active or in use", p)
		}
		st := c.Stats()
		if st.PathFailovers == 0 || st.Retransmits == 0 {
			t.Fatalf("after the cut: %d failovers, %d retransmissions", st.PathFailovers, st.Retransmits)
		}

		n.SetLink(cli, srvA, link)
		for pathOf(t, c, a).State != PathActive {
			time.Sleep(100 * time.Millisecond)
		}
		before = n.LinkStats(cli, srvA).Bytes
		simBulk(t, c, s, 1<<20, nil)
		if back := n.LinkStats(cli, srvA).Bytes - before; back < 1<<20 {
			t.Fatalf("%d bytes to the primary after it came back, want the transfer there", back)
		}
		if p := pathOf(t, c, a); !p.InUse {
			t.Fatalf("the primary %+v answers again but is not in use", p)
		}
	})
}
