package transfer

import (
	"errors"
	"fmt"
	"time"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Config holds the parameters of one association's data transfer, fixed at
// the end of the handshake. New applies the defaults of Timers, Paths and
// the fields that name one; a zero or negative Buffers limit means none and
// a zero buffer api.DefaultBuffer.
type Config struct {
	// Timers bound the RTO (RTOInitial, RTOMin, RTOMax).
	api.Timers
	// Buffers size the send and receive buffers, bound autotuning
	// (autotune.go) and bound what waits to be sent (UnsentLimit,
	// StreamUnsentLimit).
	api.Buffers
	// Paths select loss recovery and congestion control and bound bursts.
	api.Paths

	// LocalTSN is the initial TSN of our outbound DATA.
	LocalTSN TSN
	// PeerTSN is the peer's initial TSN (from its INIT or INIT ACK).
	PeerTSN TSN
	// PeerRwnd is the a_rwnd the peer advertised in its INIT or INIT ACK.
	PeerRwnd uint32
	// Budget, when set, is the endpoint-wide memory budget for received data
	// (see Budget). Nil: only RecvBuffer bounds it.
	Budget *Budget
	// SendBudget, when set, is the endpoint-wide send budget (see
	// SendBudget). Nil: only SendBuffer bounds it.
	SendBudget *SendBudget
	// RecvBudget, when set, is the endpoint-wide receive budget shared by the
	// associations receiving at the same time (see RecvBudget). Nil: only
	// RecvBuffer bounds it.
	RecvBudget *RecvBudget
	// OutStreams and InStreams are the negotiated stream counts (1..65535).
	OutStreams, InStreams int
	// MTU is the largest SCTP packet the path carries, in bytes: the path MTU
	// less IP (and UDP) headers. Default 1452.
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
	// Scheduler picks the stream the next new DATA chunk comes from; nil
	// selects FCFS. Without I-DATA it is asked only at message boundaries.
	Scheduler sched.Scheduler
	// Interleaved selects I-DATA and I-FORWARD-TSN (RFC 8260), once both
	// endpoints listed I-DATA: the sender asks the scheduler for a stream
	// after every chunk, and the receiver takes I-DATA and treats DATA as a
	// protocol violation (and the other way round without it).
	Interleaved bool
	// PartialReliability says both endpoints announced FORWARD-TSN support
	// (RFC 3758 section 3.3): the sender may abandon messages that have TSNs
	// and send (I-)FORWARD-TSN. Without it only messages not yet given a TSN
	// are abandoned (RFC 9260 section 11.1 "life time"), and the receiver
	// refuses FORWARD-TSN.
	PartialReliability bool
	// InterleaveFSN says how I-DATA numbers the FSN of a message's second
	// fragment; api.FSNAuto detects RFC 8260's (1) or Linux's (0).
	InterleaveFSN api.FSNConvention
}

// Errors returned by the engine. They work with errors.Is.
var (
	// ErrWouldBlock: the send buffer is full (Queue) or no message is
	// ready (Read). It is api.ErrWouldBlock.
	ErrWouldBlock = api.ErrWouldBlock
	// ErrStreamFull: the stream's unsent bytes are at its limit. It
	// matches ErrWouldBlock.
	ErrStreamFull = fmt.Errorf("%w: stream queue full", ErrWouldBlock)
	// ErrStreamID: a stream id outside the negotiated range.
	ErrStreamID = api.ErrStreamID
	// ErrEmptyMessage: a user message with no data, or a DATA chunk with
	// no user data (RFC 9260 section 6.2: ABORT "No User Data").
	ErrEmptyMessage = api.ErrEmptyMessage
	// ErrProtocolViolation: the peer sent something RFC 9260 forbids; the
	// association answers with ABORT "Protocol Violation".
	ErrProtocolViolation = errors.New("sctp: protocol violation by the peer")
	// ErrMessageTooLarge: a user message of 2 GiB or more.
	ErrMessageTooLarge = errors.New("sctp: message too large (2 GiB or more)")
	// ErrConfig: an invalid Config.
	ErrConfig = errors.New("sctp: invalid configuration")
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
