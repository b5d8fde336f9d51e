package transfer

import (
	"errors"
	"fmt"
	"time"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Config holds the parameters of one association's data transfer, fixed
// at the end of the handshake: the groups of the association's
// configuration that the engine uses, and the values negotiated for this
// association. New applies the defaults of Timers and Paths and those
// named on the other fields; it reads Buffers as given, a zero or
// negative limit meaning none and a zero buffer api.DefaultBuffer.
type Config struct {
	// Timers bound the retransmission timeout (RTOInitial, RTOMin,
	// RTOMax); the engine uses no other field of it.
	api.Timers
	// Buffers size the send and receive buffers, bound buffer autotuning
	// (autotune.go: 0, or a value not above the buffer, keeps the buffer
	// fixed) and bound what waits to be sent (UnsentLimit,
	// StreamUnsentLimit: Engine.Queue returns ErrWouldBlock, or
	// ErrStreamFull, beyond them).
	api.Buffers
	// Paths select loss recovery and congestion control and bound bursts
	// (Recovery, CongestionControl, InitialWindow, MaxBurst); the engine
	// uses none of the multi-homing fields.
	api.Paths

	// LocalTSN is the initial TSN of our outbound DATA (our INIT's
	// Initial TSN).
	LocalTSN TSN
	// PeerTSN is the peer's initial TSN (from its INIT or INIT ACK).
	PeerTSN TSN
	// PeerRwnd is the a_rwnd the peer advertised in its INIT or INIT ACK.
	PeerRwnd uint32
	// Budget, when set, is the endpoint-wide memory budget this
	// association's received data shares with the other associations of
	// the endpoint (see Budget). Nil: only RecvBuffer bounds it.
	Budget *Budget
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
	// OutStreams and InStreams are the negotiated stream counts (1..65535).
	OutStreams, InStreams int
	// MTU is the largest SCTP packet (common header plus chunks) the path
	// carries, in bytes: the path MTU less IP (and UDP) headers. Default
	// 1452 (1500 less an IPv6 and a UDP header).
	MTU int

	// IPv6 selects the IPv6 initial cwnd (RFC 9260 section 7.2.1).
	IPv6 bool

	// RTOAlpha and RTOBeta are the smoothing factors of section 6.3.1
	// (1/8 and 1/4).
	RTOAlpha, RTOBeta float64
	// Granularity is the clock granularity G of section 6.3.1. Default 1 ms.
	Granularity time.Duration
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
	// have TSNs (the PR policies of Engine.Queue) and send FORWARD-TSN, or
	// I-FORWARD-TSN with Interleaved. Without it only messages not yet given a TSN are
	// ever abandoned (an expired lifetime, RFC 9260 section 11.1 SEND's
	// "life time"), and the receiver refuses FORWARD-TSN.
	PartialReliability bool
	// InterleaveFSN says how the I-DATA sender numbers, and the receiver
	// reads, the FSN of the second fragment of a message: api.FSNAuto
	// (the zero value) detects RFC 8260's numbering (1) or Linux's (0)
	// from what the peer sends.
	InterleaveFSN api.FSNConvention
}

// Errors returned by the engine. They work with errors.Is.
var (
	// ErrWouldBlock: the send buffer is full (Queue) or no message is
	// ready (Read). Retry after the engine made progress. It is the
	// public api.ErrWouldBlock.
	ErrWouldBlock = api.ErrWouldBlock
	// ErrStreamFull: the stream's own unsent bytes are at its limit
	// (Config.Buffers.StreamUnsentLimit, Engine.TakeStreamRoom). It
	// matches ErrWouldBlock with errors.Is.
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

// Defaults of the fields of Config that are the engine's own.
const (
	DefaultMTU         = 1452
	DefaultRTOAlpha    = 0.125
	DefaultRTOBeta     = 0.25
	DefaultGranularity = time.Millisecond
	DefaultSACKDelay   = 200 * time.Millisecond
	DefaultSACKFreq    = 2
)

// withDefaults returns c with zero fields defaulted, or an error.
func (c Config) withDefaults() (Config, error) {
	c.Timers = c.Timers.WithDefaults()
	c.Paths = c.Paths.WithDefaults()
	if c.RecvBuffer <= 0 {
		c.RecvBuffer = api.DefaultBuffer
	}
	if c.SendBuffer <= 0 {
		c.SendBuffer = api.DefaultBuffer
	}
	if c.MTU == 0 {
		c.MTU = DefaultMTU
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
	case c.SACKDelay > 500*time.Millisecond:
		return c, fmt.Errorf("%w: SACK delay over 500 ms (RFC 9260 section 6.2)", ErrConfig)
	}
	for _, err := range []error{c.Timers.Validate(), c.Paths.Validate(), api.Extensions{InterleaveFSN: c.InterleaveFSN}.Validate()} {
		if err != nil {
			return c, fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return c, nil
}
