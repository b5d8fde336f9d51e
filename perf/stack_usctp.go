package perf

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// usctpStack runs this module's sctp package through its public API.
type usctpStack struct{}

func init() { Register(usctpStack{}) }

func (usctpStack) Name() string    { return "usctp" }
func (usctpStack) InProcess() bool { return true }

// usctpDataPort is the SCTP port of the data listener. With UDP
// encapsulation the listener's UDP port is ephemeral and is what Addr
// reports; with plain IP the SCTP port is the address.
const usctpDataPort = 5001

// usctpConfig maps a perf Config onto the public sctp.Config.
func usctpConfig(cfg *Config) (*sctp.Config, error) {
	n := uint16(max(min(cfg.Streams, 65535), 1))
	c := &sctp.Config{
		OutStreams:       n,
		InStreams:        n,
		Buffers:          sctp.Buffers{SendBuffer: cfg.SndBuf, RecvBuffer: cfg.RcvBuf},
		Extensions:       sctp.Extensions{Interleaving: cfg.Interleave},
		EphemeralUDPPort: true,
		BusyPoll:         cfg.BusyPoll,
		Limits: sctp.Limits{
			Backlog:    1024,
			SendBudget: cfg.SendBudget,
			RecvBudget: cfg.RecvBudget,
			// A benchmark's peers are trusted: up to MaxAssocs
			// associations from one client, set up at once, must not
			// meet the limits that protect a server from hostile peers
			// (4096 associations, 100 out-of-the-blue answers per second
			// per source).
			MaxAssociations: -1,
			InitRate:        -1,
		},
		MTU:                  cfg.MTU,
		DisablePMTUDiscovery: cfg.NoPMTUD,
	}
	switch cfg.Transport {
	case "", "udp":
	case "ip":
		c.Transport = sctp.IP
	default:
		return nil, fmt.Errorf("usctp: transport %q: %w", cfg.Transport, ErrUnsupported)
	}
	if cfg.Sched != "" {
		k, err := sctp.ParseScheduler(cfg.Sched)
		if err != nil {
			return nil, fmt.Errorf("usctp: %w", err)
		}
		c.Scheduler = k
	}
	return c, nil
}

func (usctpStack) Listen(ctx context.Context, addr string, cfg *Config) (Listener, error) {
	c, err := usctpConfig(cfg)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	laddr := net.JoinHostPort(host, strconv.Itoa(usctpDataPort))
	if len(cfg.Hosts) > 1 {
		// Multi-homed: the server's data endpoint is on every address.
		laddr = hostList(cfg.Hosts) + ":" + strconv.Itoa(usctpDataPort)
	}
	if cfg.Shards > 1 {
		return listenShards(laddr, host, cfg, c)
	}
	e, err := sctp.Listen(laddr, c)
	if err != nil {
		return nil, err
	}
	return &usctpListener{e: e, cfg: *cfg, host: host}, nil
}

// listenShards listens with cfg.Shards endpoints on one port; every
// shard's associations come out of one Accept.
func listenShards(laddr, host string, cfg *Config, c *sctp.Config) (Listener, error) {
	eps, err := sctp.ListenShards(laddr, cfg.Shards, c)
	if err != nil {
		return nil, err
	}
	l := &usctpListener{e: eps[0], shards: eps, cfg: *cfg, host: host,
		accepted: make(chan *sctp.Association, 64), done: make(chan struct{})}
	for _, e := range eps {
		go func() {
			for {
				a, err := e.Accept()
				if err != nil {
					return
				}
				select {
				case l.accepted <- a:
				case <-l.done:
					a.Close()
					return
				}
			}
		}()
	}
	return l, nil
}

type usctpListener struct {
	e    *sctp.Endpoint
	cfg  Config
	host string
	// With shards: every endpoint (e is the first), the associations
	// they accept, and done, closed by Close.
	shards   []*sctp.Endpoint
	accepted chan *sctp.Association
	done     chan struct{}
}

func (l *usctpListener) Accept(ctx context.Context) (Conn, error) {
	if l.shards != nil {
		select {
		case a := <-l.accepted:
			return newUsctpConn(a, &l.cfg)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	a, err := l.e.AcceptContext(ctx)
	if err != nil {
		return nil, err
	}
	return newUsctpConn(a, &l.cfg)
}

// Addr returns the host and the UDP encapsulation port (UDP), or the
// SCTP port (IP).
func (l *usctpListener) Addr() string {
	if l.cfg.Transport == "ip" {
		return net.JoinHostPort(l.host, strconv.Itoa(usctpDataPort))
	}
	ap := l.e.Addr()
	host := l.host
	if ap.IP.IsValid() && !ap.IP.IsUnspecified() {
		host = ap.IP.String()
	}
	return net.JoinHostPort(host, strconv.Itoa(int(ap.UDPPort)))
}

func (l *usctpListener) Close() error {
	if l.shards == nil {
		return l.e.Close()
	}
	close(l.done)
	var errs []error
	for _, e := range l.shards {
		errs = append(errs, e.Close())
	}
	return errors.Join(errs...)
}

// usctpTarget turns a listener address into the SCTP address to dial and
// the config that reaches it.
func usctpTarget(addr string, cfg *Config) (string, *sctp.Config, error) {
	c, err := usctpConfig(cfg)
	if err != nil {
		return "", nil, err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, err
	}
	if c.Transport == sctp.UDP {
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return "", nil, fmt.Errorf("usctp: UDP port %q: %w", port, err)
		}
		c.RemoteUDPPort = uint16(p)
	}
	if len(cfg.Hosts) > 1 {
		return hostList(cfg.Hosts) + ":" + strconv.Itoa(usctpDataPort), c, nil
	}
	return net.JoinHostPort(host, strconv.Itoa(usctpDataPort)), c, nil
}

// hostList joins IP addresses in sctp's address list form, "a,b" (IPv6
// in brackets), for Listen and Dial.
func hostList(hosts []string) string {
	var b strings.Builder
	for i, h := range hosts {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		b.WriteString(h)
	}
	return b.String()
}

func (usctpStack) Dial(ctx context.Context, addr string, cfg *Config) (Conn, error) {
	target, c, err := usctpTarget(addr, cfg)
	if err != nil {
		return nil, err
	}
	a, err := sctp.Dial(ctx, target, c)
	if err != nil {
		return nil, fmt.Errorf("usctp: dial %s: %w", addr, err)
	}
	return newUsctpConn(a, cfg)
}

// NewDialer returns a dialer whose associations share one local endpoint
// (one socket), the one-to-many use the sctp package is built for.
func (usctpStack) NewDialer(ctx context.Context, addr string, cfg *Config) (Dialer, error) {
	target, c, err := usctpTarget(addr, cfg)
	if err != nil {
		return nil, err
	}
	var ip netip.Addr
	if c.Transport == sctp.IP {
		ip = netip.IPv4Unspecified()
	}
	e, err := sctp.NewEndpoint(ip, c)
	if err != nil {
		return nil, err
	}
	return &usctpDialer{e: e, target: target, cfg: *cfg}, nil
}

type usctpDialer struct {
	e      *sctp.Endpoint
	target string
	cfg    Config
}

func (d *usctpDialer) Dial(ctx context.Context) (Conn, error) {
	a, err := d.e.Dial(ctx, d.target)
	if err != nil {
		return nil, err
	}
	return newUsctpConn(a, &d.cfg)
}

func (d *usctpDialer) Close() error { return d.e.Close() }

// usctpConn is an sctp.Association; it sets the per-stream scheduler values.
type usctpConn struct {
	a    *sctp.Association
	pmtu string // PMTULine when Close was called (Paths is empty after)
}

func newUsctpConn(a *sctp.Association, cfg *Config) (*usctpConn, error) {
	vals := cfg.Weights
	if len(cfg.Prios) > 0 {
		vals = cfg.Prios
	}
	for sid, v := range vals {
		if err := a.SetStreamValue(uint16(sid), v); err != nil {
			a.Abort("perf: bad stream value")
			return nil, fmt.Errorf("usctp: stream %d value %d: %w", sid, v, err)
		}
	}
	return &usctpConn{a: a}, nil
}

func (c *usctpConn) Send(p []byte, sid uint16, ppid uint32) error {
	_, err := c.a.WriteMsg(p, sctp.SendInfo{Stream: sid, PPID: ppid})
	return err
}

func (c *usctpConn) Recv(p []byte) (int, uint16, uint32, error) {
	n, info, err := c.a.ReadMsg(p)
	return n, info.Stream, info.PPID, err
}

// StatsLine summarizes the association's counters: packets and chunks
// per direction, retransmissions and the path.
func (c *usctpConn) StatsLine() string {
	st := c.a.Stats()
	return fmt.Sprintf("packets out %d in %d; DATA out %d in %d; SACK out %d in %d; retransmits %d (%s); SRTT %v cwnd %d",
		st.PacketsOut, st.PacketsIn, st.ChunksOut[chunk.TypeData], st.ChunksIn[chunk.TypeData],
		st.ChunksOut[chunk.TypeSack], st.ChunksIn[chunk.TypeSack], st.Retransmits, LossLine(st.Counters), st.SRTT, st.Cwnd) +
		c.pmtuLine() + socketLine(c.a.Endpoint().SocketStats())
}

// pmtuLine is PMTULine, or what it was at Close.
func (c *usctpConn) pmtuLine() string {
	if s := PMTULine(c.a); s != "" {
		return s
	}
	if c.pmtu != "" {
		return c.pmtu
	}
	return fmt.Sprintf("; PLPMTU %d", c.a.Stats().PLPMTU)
}

// PMTULine reports the PLPMTU (largest SCTP packet) and path MTU
// discovery state each path of a ended with.
func PMTULine(a *sctp.Association) string {
	s := ""
	for _, p := range a.Paths() {
		s += fmt.Sprintf("; PLPMTU %d (%v)", p.MTU, p.PMTU)
	}
	return s
}

// LossLine summarizes an association's loss recovery: fast
// retransmissions and how many were repeats of a lost retransmission, tail
// loss probes, T3-rtx expiries, retransmissions the peer already had, fast
// recoveries, and the ECN reactions: CE marks received (echoed in ECNEs),
// ECNEs received and the window reductions they caused.
func LossLine(c sctp.Counters) string {
	return fmt.Sprintf("fast %d, repeat fast %d, probes %d, T3 %d, spurious %d, recoveries %d, ECN: CE marks %d, ECNE in %d, reductions %d",
		c.FastRetransmit, c.RepeatFastRetransmits, c.Probes, c.T3Expiries, c.SpuriousRetransmits, c.FastRecoveries,
		c.ECNMarks, c.ECNEchoesIn, c.ECNReductions)
}

// socketLine summarizes an endpoint's socket counters (its whole life, all
// associations): system calls and the datagrams and packets they moved.
func socketLine(s sctp.SocketStats) string {
	if s.RecvCalls == 0 && s.SendCalls == 0 {
		return ""
	}
	return fmt.Sprintf("; socket: recvmmsg %d (%d datagrams, %d GRO), sendmmsg %d (%d datagrams, %d packets), busy polls %d (%d found data); owner wakes %d; reader yields %d",
		s.RecvCalls, s.RecvMessages, s.GROCoalesced, s.SendCalls, s.SendMessages, s.SendPackets, s.BusyPolls, s.BusyPollHits, s.OwnerWakes, s.ReaderYields)
}

func (c *usctpConn) Close() error {
	c.pmtu = PMTULine(c.a)
	return c.a.Close()
}
