package sctp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/logging"
	usctp "github.com/usctp/usctp/sctp"
)

// webrtcPort is the SCTP port of both ends of a WebRTC association (RFC
// 8841's default sctp-port), as the original uses.
const webrtcPort = 5000

// Association represents an SCTP association 13.2. Parameters Necessary per
// Association (i.e., the TCB): here a usctp association over the
// connection given with WithNetConn, with its streams as the original's.
type Association struct {
	as             *usctp.Association
	ep             *usctp.Endpoint
	log            logging.LeveledLogger
	name           string
	mtu            uint32
	blockWrite     bool
	recvLimit      int
	maxMessageSize atomic.Uint32

	mu         sync.Mutex
	streams    map[uint16]*Stream
	accepts    []*Stream // streams the peer opened, not yet accepted
	acceptCond sync.Cond // accepts grew, or the association ended
	recvHeld   int       // bytes in the streams' queues
	recvCond   sync.Cond // recvHeld fell, or the association is closing
	ended      bool      // the reader saw the association end
	closing    bool      // Close, Abort or Shutdown was called
	inResets   []uint16  // streams the peer reset, for the reader (reset.go)
	inResetAll bool      // the peer reset all its streams
	resetKick  bool      // inResets waits for the reader
	outResets  []uint16  // streams whose outgoing direction to reset
	outWake    chan struct{}
	done       chan struct{} // closed when the association ended or is closed here
	doneOnce   sync.Once
	reader     chan struct{} // closed when the reader returned
	closeOnce  sync.Once
}

// Client runs the client side of an association over the connection
// config names and returns once it is established.
//
// Deprecated: ClientWithOptions replaces it.
func Client(config Config) (*Association, error) {
	return ClientWithOptions(config)
}

// ClientWithOptions is Client with its settings given as options.
func ClientWithOptions(opts ...ClientOption) (*Association, error) {
	return ClientContext(context.Background(), opts...)
}

// ClientContext opens a SCTP stream over a conn. The context controls
// establishment only; canceling it after this function returns
// successfully does not close the association. If ctx is already done, no
// association is started and the conn is left open. If ctx is done during
// establishment, ctx.Err() is returned and the association is closed,
// with the conn.
//
// Both ends of a WebRTC association call it: their INITs cross (RFC 9260
// section 5.2.1) and the handshake completes once.
func ClientContext(ctx context.Context, opts ...ClientOption) (*Association, error) {
	cfg, err := clientConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	uc, peer, err := usctpConfig(cfg)
	if err != nil {
		return nil, err
	}
	uc.LocalPort = webrtcPort
	raddr := netip.AddrPortFrom(peer, webrtcPort).String()
	if cfg.snap != nil {
		return clientSNAP(ctx, cfg, uc, raddr)
	}
	as, err := usctp.Dial(ctx, raddr, uc)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", ErrHandshakeInitAck, err)
	}
	return newAssociation(cfg, as, as.Endpoint()), nil
}

// Server runs the server side of an association over the connection
// config names and returns once it is established.
//
// Deprecated: ServerWithOptions replaces it.
func Server(config Config) (*Association, error) {
	return ServerWithOptions(config)
}

// ServerWithOptions accepts a SCTP stream over a conn: it waits for the
// peer's INIT and returns once the handshake completed, or with
// ErrAssociationClosedBeforeConn when the conn closed first.
func ServerWithOptions(opts ...ServerOption) (*Association, error) {
	cfg, err := serverConfig(opts)
	if err != nil {
		return nil, err
	}
	uc, peer, err := usctpConfig(cfg)
	if err != nil {
		return nil, err
	}
	local := netip.IPv4Unspecified()
	if peer.Is6() {
		local = netip.IPv6Unspecified()
	}
	ep, err := usctp.Listen(netip.AddrPortFrom(local, webrtcPort).String(), uc)
	if err != nil {
		return nil, err
	}
	as, err := ep.Accept()
	if err != nil {
		ep.Close()
		return nil, fmt.Errorf("%w: %w", ErrAssociationClosedBeforeConn, err)
	}
	return newAssociation(cfg, as, ep), nil
}

// usctpConfig returns the usctp configuration of cfg's association and the
// peer's address as the association names it.
func usctpConfig(cfg *Config) (*usctp.Config, netip.Addr, error) {
	if cfg.interleaving.custom {
		return nil, netip.Addr{}, errStreamScheduler
	}
	conn := &peerConn{Conn: cfg.NetConn}
	peer := conn.peer()
	uc := &usctp.Config{
		Conn:       conn,
		OutStreams: math.MaxUint16,
		InStreams:  math.MaxUint16,
		// The association's packets are DTLS records: one size, no path
		// MTU discovery, no ECN field to mark.
		MTU:                  max(int(cfg.MTU), 576),
		DisablePMTUDiscovery: true,
		EventQueue:           256,
		Pcap:                 pcapFile(),
	}
	uc.Extensions.Interleaving = !cfg.noInterleaving
	uc.Extensions.DisableECN = true
	uc.Extensions.ZeroChecksumDTLS = cfg.EnableZeroChecksum
	uc.Buffers.RecvBuffer = int(cfg.MaxReceiveBufferSize)
	uc.Buffers.RecvBufferMax = int(cfg.MaxReceiveBufferSize)
	if !cfg.BlockWrite {
		// The original's writes never block: what the application writes
		// waits in the send buffer however much there is (WebRTC programs
		// pace themselves with BufferedAmount).
		uc.Buffers.SendBuffer = math.MaxInt32
		uc.Buffers.SendBufferMax = -1
		uc.Buffers.UnsentLimit = -1
	}
	if cfg.RTOMax > 0 {
		d := time.Duration(cfg.RTOMax * float64(time.Millisecond))
		uc.Timers.RTOMax = d
		if d < time.Second {
			uc.Timers.RTOInitial, uc.Timers.RTOMin = d, d
		}
	}
	// As the original, data is retransmitted as long as the connection
	// lasts: DTLS and ICE decide when the peer is gone.
	uc.Timers.MaxRetransmits = math.MaxInt32
	uc.Timers.PathMaxRetransmits = math.MaxInt32
	return uc, peer, nil
}

// peerConn is the user's connection with a remote address usctp can name
// the peer by: the connection's own if it is a UDP address, else one of
// the documentation range (RFC 5737).
type peerConn struct{ net.Conn }

var placeholderPeer = netip.MustParseAddr("192.0.2.1")

func (c *peerConn) peer() netip.Addr {
	if c.Conn == nil {
		return placeholderPeer
	}
	if a, ok := c.Conn.RemoteAddr().(*net.UDPAddr); ok && a != nil {
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			return ip.Unmap()
		}
	}
	return placeholderPeer
}

// RemoteAddr returns the address peer names.
func (c *peerConn) RemoteAddr() net.Addr {
	return net.UDPAddrFromAddrPort(netip.AddrPortFrom(c.peer(), webrtcPort))
}

// newAssociation wraps an established usctp association and starts its
// reader, event and reset goroutines.
func newAssociation(cfg *Config, as *usctp.Association, ep *usctp.Endpoint) *Association {
	a := &Association{
		as: as, ep: ep,
		log:        cfg.LoggerFactory.NewLogger("sctp"),
		name:       cfg.Name,
		mtu:        cfg.MTU,
		blockWrite: cfg.BlockWrite,
		recvLimit:  int(cfg.MaxReceiveBufferSize),
		streams:    map[uint16]*Stream{},
		outWake:    make(chan struct{}, 1),
		done:       make(chan struct{}),
		reader:     make(chan struct{}),
	}
	if a.name == "" {
		a.name = fmt.Sprintf("%p", a)
	}
	a.maxMessageSize.Store(cfg.MaxMessageSize)
	a.acceptCond.L, a.recvCond.L = &a.mu, &a.mu
	if as.Interleaved() {
		k := usctp.SchedulerWFQ
		if cfg.interleaving.roundRobin {
			k = usctp.SchedulerRoundRobin
		}
		if err := as.SetScheduler(k); err != nil {
			a.log.Warnf("[%s] stream scheduler %v: %v", a.name, k, err)
		}
		if k == usctp.SchedulerWFQ {
			for sid, w := range cfg.interleaving.weights {
				if err := as.SetStreamValue(sid, w); err != nil {
					a.log.Warnf("[%s] weight of stream %d: %v", a.name, sid, err)
				}
			}
		}
	}
	events := as.Events()
	go a.readLoop()
	go a.eventLoop(events)
	go a.resetLoop()
	return a
}

// Abort ends the association at once with an ABORT carrying reason as
// its Upper Layer Abort Reason, and closes the connection.
func (a *Association) Abort(reason string) {
	a.as.Abort(reason)
	a.closeEndpoint()
}

// Close ends the SCTP Association and cleans up any state: it aborts the
// association if it still runs (the original sends nothing and closes the
// connection; an ABORT tells the peer at once) and closes the connection.
// Reads return io.EOF once their stream's queue is empty.
func (a *Association) Close() error {
	a.closeEndpoint()
	return nil
}

// Shutdown ends the association gracefully (SHUTDOWN, SHUTDOWN ACK,
// SHUTDOWN COMPLETE) and closes the connection; it returns ctx's error if
// ctx is done first.
func (a *Association) Shutdown(ctx context.Context) error {
	if !a.established() {
		return ErrShutdownNonEstablished
	}
	err := a.as.Shutdown(ctx)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return ctx.Err()
	}
	a.closeEndpoint()
	return nil
}

// closeEndpoint closes the association's endpoint (aborting what still
// runs, closing the connection) and waits for the reader.
func (a *Association) closeEndpoint() {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closing = true
		a.recvCond.Broadcast()
		a.mu.Unlock()
		a.finish()
		a.ep.Close()
	})
	<-a.reader
}

// finish closes done: the association ended or is being closed.
func (a *Association) finish() { a.doneOnce.Do(func() { close(a.done) }) }

// established reports whether the association still runs.
func (a *Association) established() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.ended && !a.closing
}

// OpenStream returns the stream with identifier streamIdentifier, whose
// messages carry defaultPayloadType unless a write names another.
func (a *Association) OpenStream(
	streamIdentifier uint16,
	defaultPayloadType PayloadProtocolIdentifier,
) (*Stream, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended || a.closing {
		return nil, ErrAssociationClosed
	}
	s := a.streams[streamIdentifier]
	if s == nil {
		s = a.newStream(streamIdentifier)
		a.streams[streamIdentifier] = s
	}
	s.SetDefaultPayloadType(defaultPayloadType)
	return s, nil
}

// AcceptStream accepts a stream: the next stream the peer sent data on
// first. It returns io.EOF once the association ended and every such
// stream was accepted.
func (a *Association) AcceptStream() (*Stream, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.accepts) == 0 && !a.ended {
		a.acceptCond.Wait()
	}
	if len(a.accepts) == 0 {
		return nil, io.EOF
	}
	s := a.accepts[0]
	a.accepts[0] = nil
	a.accepts = a.accepts[1:]
	return s, nil
}

// BufferedAmount returns the bytes written on every stream and not yet
// acknowledged by the peer.
func (a *Association) BufferedAmount() int { return a.as.Stats().SendBuffered }

// BytesSent returns the number of bytes sent: the SCTP packets'.
func (a *Association) BytesSent() uint64 { return a.as.Stats().BytesOut }

// BytesReceived returns the number of bytes received: the SCTP packets'.
func (a *Association) BytesReceived() uint64 { return a.as.Stats().BytesIn }

// SRTT returns the latest smoothed round-trip time (srrt), in milliseconds.
func (a *Association) SRTT() float64 {
	return float64(a.as.Stats().SRTT) / float64(time.Millisecond)
}

// CWND returns the congestion window of the primary path, in bytes.
func (a *Association) CWND() uint32 { return a.as.Stats().Cwnd }

// RWND returns the association's current receiver window (rwnd): the
// peer's, as this end sees it.
func (a *Association) RWND() uint32 { return uint32(max(a.as.Stats().PeerRwnd, 0)) }

// MTU returns the largest SCTP packet the primary path carries now.
func (a *Association) MTU() uint32 { return a.mtu }

// MaxMessageSize returns the largest message a write accepts.
func (a *Association) MaxMessageSize() uint32 { return a.maxMessageSize.Load() }

// SetMaxMessageSize sets the largest message a write accepts.
func (a *Association) SetMaxMessageSize(maxMsgSize uint32) { a.maxMessageSize.Store(maxMsgSize) }

// Metadata returns negotiated association metadata. The ok return value is
// false until the SCTP handshake has completed, and once the association
// ended.
func (a *Association) Metadata() (AssociationMetadata, bool) {
	if !a.established() {
		return AssociationMetadata{}, false
	}
	m := AssociationMetadata{MessageInterleavingEnabled: a.as.Interleaved()}
	switch {
	case !a.as.PartialReliability():
	case m.MessageInterleavingEnabled:
		m.PartialReliabilityMode = PartialReliabilityModeIForwardTSN
	default:
		m.PartialReliabilityMode = PartialReliabilityModeForwardTSN
	}
	m.ZeroChecksumSendingEnabled, m.ZeroChecksumReceivingEnabled = a.as.ZeroChecksum()
	return m, true
}

// ActiveHeartbeat asks for a round-trip time sample without user data.
// usctp measures the RTT with its data and its periodic HEARTBEATs: the
// call does nothing.
func (a *Association) ActiveHeartbeat() {}
