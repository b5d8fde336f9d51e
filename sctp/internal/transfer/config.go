package transfer

import (
	"errors"
	"fmt"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Config holds the parameters of one association's data transfer, fixed
// at the end of the handshake. Zero fields take the RFC 9260 section 16
// defaults named on each field.
type Config struct {
	// LocalTSN is the initial TSN of our outbound DATA (our INIT's
	// Initial TSN).
	LocalTSN TSN
	// PeerTSN is the peer's initial TSN (from its INIT or INIT ACK).
	PeerTSN TSN
	// PeerRwnd is the a_rwnd the peer advertised in its INIT or INIT ACK.
	PeerRwnd uint32
	// RecvBuffer is our receive buffer in bytes: the a_rwnd we advertise
	// when it is empty. Default 1 MiB.
	RecvBuffer int
	// Budget, when set, is the endpoint-wide memory budget this
	// association's received data shares with the other associations of
	// the endpoint (see Budget). Nil: only RecvBuffer bounds it.
	Budget *Budget
	// SendBuffer bounds the bytes Sender.Queue accepts (queued plus
	// unacknowledged). Default 1 MiB.
	SendBuffer int
	// SendBudget, when set, is the endpoint-wide send budget this
	// association's send buffer shares with the other associations of the
	// endpoint (see SendBudget): Queue refuses beyond it as beyond
	// SendBuffer. Nil: only SendBuffer bounds it.
	SendBudget *SendBudget
	// RecvBudget, when set, is the endpoint-wide receive budget this
	// association's receive window shares with the other associations of
	// the endpoint that receive at the same time (see RecvBudget). Nil:
	// only RecvBuffer bounds it.
	RecvBudget *RecvBudget
	// RecvBufferMax and SendBufferMax bound buffer autotuning
	// (autotune.go): the receive and send buffers grow from RecvBuffer
	// and SendBuffer up to them as the path needs; 0, or a value not
	// above the buffer, keeps that buffer fixed.
	RecvBufferMax int
	SendBufferMax int
	// SendUnsent, when positive, also bounds the bytes queued and not yet
	// cut into chunks: Sender.Queue returns ErrWouldBlock beyond it (as
	// Linux's TCP_NOTSENT_LOWAT does for TCP). What waits to be sent then
	// stays small enough to be in the CPU's caches when it is packed,
	// instead of the whole send buffer less the flight. Zero: no bound but
	// SendBuffer.
	SendUnsent int
	// StreamUnsent, when positive, bounds the bytes of one stream queued
	// and not yet cut into chunks: Sender.Queue returns ErrStreamFull
	// beyond it (one message is accepted on a stream with none waiting).
	// Zero: the part of the send buffer the flight leaves, shared among
	// the streams with unsent data by their shares (see Sender.streamLimit).
	StreamUnsent int
	// OutStreams and InStreams are the negotiated stream counts (1..65535).
	OutStreams, InStreams int
	// MTU is the largest SCTP packet (common header plus chunks) the path
	// carries, in bytes: the path MTU less IP (and UDP) headers. Default
	// 1452 (1500 less an IPv6 and a UDP header).
	MTU int

	// IPv6 selects the IPv6 initial cwnd (RFC 9260 section 7.2.1).
	IPv6 bool

	// RTOInitial, RTOMin and RTOMax bound the retransmission timeout
	// (RFC 9260 section 16: 1 s, 1 s, 60 s).
	RTOInitial, RTOMin, RTOMax time.Duration
	// RTOAlpha and RTOBeta are the smoothing factors of section 6.3.1
	// (1/8 and 1/4).
	RTOAlpha, RTOBeta float64
	// Granularity is the clock granularity G of section 6.3.1. Default 1 ms.
	Granularity time.Duration
	// MaxBurst limits the packets sent at one send opportunity (4).
	MaxBurst int
	// Recovery selects how lost DATA chunks are found: RecoveryRACK (the
	// default) or RecoveryRFC9260.
	Recovery Recovery
	// CongestionControl selects the congestion controller of each path:
	// CCRFC9260 (the default) or CCCubic.
	CongestionControl CongestionControl
	// InitialWindow, when positive, is the initial congestion window in
	// full-sized packets (RFC 6928 uses 10) instead of RFC 9260's
	// min(4 * PMDCS, max(2 * PMDCS, 4404)) bytes.
	InitialWindow int
	// SACKDelay is the delayed-SACK timeout (200 ms; at most 500 ms).
	SACKDelay time.Duration
	// SACKFreq is the number of packets that trigger a SACK (2).
	SACKFreq int
	// Scheduler picks the stream the next new DATA chunk comes from
	// (sched.New); nil selects first-come first-served. The sender calls
	// its Next only at message boundaries (no I-DATA): it pins the current
	// message's stream until the last fragment is packed.
	Scheduler sched.Scheduler
	// Interleaved selects I-DATA and I-FORWARD-TSN (RFC 8260), once both
	// endpoints listed I-DATA in their Supported Extensions: the sender
	// writes I-DATA chunks and asks the scheduler for a stream after every
	// chunk, so fragments of messages on different streams interleave
	// (give a scheduler made with sched.Options.Interleaved); the
	// receiver takes I-DATA (HandleIData) and treats DATA as a protocol
	// violation, and the other way round without it.
	Interleaved bool
	// PartialReliability says both endpoints announced FORWARD-TSN support
	// (RFC 3758 section 3.3): the sender may then abandon messages that
	// have TSNs (QueuePR policies) and send FORWARD-TSN, or I-FORWARD-TSN
	// with Interleaved. Without it only messages not yet given a TSN are
	// ever abandoned (an expired lifetime, RFC 9260 section 11.1 SEND's
	// "life time"), and the receiver refuses FORWARD-TSN.
	PartialReliability bool
	// FSN says how the receiver reads the FSN of the second fragment of
	// an I-DATA message: interleave.FSNAuto (the zero value) detects RFC
	// 8260's numbering (1) or Linux's (0) from what the peer sends.
	FSN interleave.FSNConvention
}

// Recovery is a loss-detection and retransmission-timeout policy.
type Recovery uint8

const (
	// RecoveryRACK finds lost chunks by time (RACK-TLP, RFC 8985, adapted
	// to SACK chunks; see sender_rack.go): a lost retransmission is found
	// again while SACKs arrive, a lost tail costs a probe after two SRTTs,
	// the RTO back-off ends as soon as new data is acknowledged and T3-rtx
	// marks only what was outstanding for one RTO.
	RecoveryRACK Recovery = iota
	// RecoveryRFC9260 follows RFC 9260 sections 6.3.3 and 7.2.4 to the
	// letter: three miss indications, one fast retransmit per chunk, then
	// T3-rtx, whose back-off stays until a new RTT measurement.
	RecoveryRFC9260
)

// CongestionControl is a congestion controller.
type CongestionControl uint8

const (
	// CCRFC9260 is the controller of RFC 9260 section 7.2: slow start,
	// congestion avoidance by one PMDCS per window, halving on loss.
	CCRFC9260 CongestionControl = iota
	// CCCubic is CUBIC (RFC 9438): a cubic window growth in time since the
	// last reduction, a reduction to 0.7 of the window on loss, and
	// Reno-friendly growth where that is faster.
	CCCubic
)

// Errors returned by the engine. They work with errors.Is.
var (
	// ErrWouldBlock: the send buffer is full (Queue) or no message is
	// ready (Read). Retry after the engine made progress. It is the
	// public api.ErrWouldBlock.
	ErrWouldBlock = api.ErrWouldBlock
	// ErrStreamFull: the stream's own unsent bytes are at its limit
	// (Config.StreamUnsent, Sender.TakeStreamRoom). It matches
	// ErrWouldBlock with errors.Is.
	ErrStreamFull = fmt.Errorf("%w: stream queue full", ErrWouldBlock)
	// ErrStreamID: a stream id outside the negotiated range (the public
	// api.ErrStreamID).
	ErrStreamID = api.ErrStreamID
	// ErrEmptyMessage: a user message with no data (SCTP cannot carry
	// one), or a DATA chunk with no user data from the peer (RFC 9260
	// section 6.2: the association answers with ABORT, cause "No User
	// Data"). It is the public api.ErrEmptyMessage.
	ErrEmptyMessage = api.ErrEmptyMessage
	// ErrProtocolViolation: the peer sent something RFC 9260 forbids,
	// such as a SACK acknowledging a TSN we never sent. The association
	// answers with ABORT, cause "Protocol Violation".
	ErrProtocolViolation = errors.New("transfer: protocol violation by peer")
	// ErrMessageTooLarge: a user message of 2 GiB or more.
	ErrMessageTooLarge = errors.New("transfer: message too large")
	// ErrConfig: an invalid Config.
	ErrConfig = errors.New("transfer: invalid configuration")
)

// Defaults of RFC 9260 section 16 and of this package.
const (
	DefaultBuffer      = 1 << 20
	DefaultMTU         = 1452
	DefaultRTOInitial  = time.Second
	DefaultRTOMin      = time.Second
	DefaultRTOMax      = 60 * time.Second
	DefaultRTOAlpha    = 0.125
	DefaultRTOBeta     = 0.25
	DefaultGranularity = time.Millisecond
	DefaultMaxBurst    = 4
	DefaultSACKDelay   = 200 * time.Millisecond
	DefaultSACKFreq    = 2
)

// withDefaults returns c with zero fields defaulted, or an error.
func (c Config) withDefaults() (Config, error) {
	if c.RecvBuffer <= 0 {
		c.RecvBuffer = DefaultBuffer
	}
	if c.SendBuffer <= 0 {
		c.SendBuffer = DefaultBuffer
	}
	if c.MTU == 0 {
		c.MTU = DefaultMTU
	}
	if c.RTOInitial <= 0 {
		c.RTOInitial = DefaultRTOInitial
	}
	if c.RTOMin <= 0 {
		c.RTOMin = DefaultRTOMin
	}
	if c.RTOMax <= 0 {
		c.RTOMax = DefaultRTOMax
	}
	if c.RTOAlpha <= 0 {
		c.RTOAlpha = DefaultRTOAlpha
	}
	if c.RTOBeta <= 0 {
		c.RTOBeta = DefaultRTOBeta
	}
	if c.Granularity <= 0 {
		c.Granularity = DefaultGranularity
	}
	if c.MaxBurst <= 0 {
		c.MaxBurst = DefaultMaxBurst
	}
	if c.SACKDelay <= 0 {
		c.SACKDelay = DefaultSACKDelay
	}
	if c.SACKFreq <= 0 {
		c.SACKFreq = DefaultSACKFreq
	}
	if c.Scheduler == nil && c.OutStreams >= 1 && c.OutStreams <= 65535 {
		s, err := sched.New(sched.FCFS, sched.Options{Streams: c.OutStreams, Interleaved: c.Interleaved})
		if err != nil {
			return c, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c.Scheduler = s
	}
	switch {
	case c.OutStreams < 1 || c.OutStreams > 65535 || c.InStreams < 1 || c.InStreams > 65535:
		return c, fmt.Errorf("%w: stream counts %d/%d outside 1..65535", ErrConfig, c.OutStreams, c.InStreams)
	case c.MTU < 256 || c.MTU > 65535:
		return c, fmt.Errorf("%w: MTU %d outside 256..65535", ErrConfig, c.MTU)
	case c.RTOMin > c.RTOMax || c.RTOInitial > c.RTOMax:
		return c, fmt.Errorf("%w: RTO bounds", ErrConfig)
	case c.FSN > interleave.FSNLinux:
		return c, fmt.Errorf("%w: FSN convention %d", ErrConfig, c.FSN)
	case c.Recovery > RecoveryRFC9260 || c.CongestionControl > CCCubic:
		return c, fmt.Errorf("%w: recovery %d or congestion control %d", ErrConfig, c.Recovery, c.CongestionControl)
	case c.InitialWindow < 0 || c.InitialWindow > 100:
		return c, fmt.Errorf("%w: initial window %d packets outside 0..100", ErrConfig, c.InitialWindow)
	case c.SACKDelay > 500*time.Millisecond:
		return c, fmt.Errorf("%w: SACK delay over 500 ms (RFC 9260 section 6.2)", ErrConfig)
	}
	return c, nil
}
