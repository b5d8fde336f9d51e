package sctp

// Stream scheduling under I-DATA (RFC 8260), which this package offers by
// default as the original does: usctp's own schedulers take the place of
// the original's. Round robin and weighted fair queueing map to usctp's
// (sctp.SchedulerRoundRobin, sctp.SchedulerWFQ with the weights as stream
// values); a custom scheduler cannot be plugged in.

// interleavingSettings are what the interleaving options chose.
type interleavingSettings struct {
	roundRobin bool              // round robin instead of WFQ
	custom     bool              // a custom factory was given (refused)
	weights    map[uint16]uint16 // WFQ weights by stream
}

// StreamSchedulerChunk is the scheduler-visible view of a DATA or I-DATA
// chunk. Stream reset chunks are control markers queued with data to
// preserve ordering.
type StreamSchedulerChunk interface {
	StreamIdentifier() uint16
	UserDataLen() int
	IsStreamReset() bool

	chunkPayloadData() *chunkPayloadData
}

// chunkPayloadData stands for the original's DATA chunk, which custom
// schedulers cannot reach either.
type chunkPayloadData struct{}

// InterleavingStreamScheduler schedules I-DATA chunks across streams when
// RFC 8260 user message interleaving is negotiated.
type InterleavingStreamScheduler interface {
	// Reset forgets every stream: called before the first use and when
	// the association lets go of the scheduler.
	Reset()
	Push(StreamSchedulerChunk)
	Peek() StreamSchedulerChunk
	Pop(StreamSchedulerChunk) error
}

// InterleavingStreamSchedulerFactory creates an empty interleaving stream
// scheduler.
type InterleavingStreamSchedulerFactory func() InterleavingStreamScheduler

// AssociationInterleavingOption is a setting of RFC 8260 user message
// interleaving.
type AssociationInterleavingOption func(*interleavingSettings) error

// WithInterleavingStreamSchedulerFactory selects a custom stream
// scheduler factory. usctp schedules streams itself: an association
// given one fails to start with an error saying so.
func WithInterleavingStreamSchedulerFactory(
	newScheduler InterleavingStreamSchedulerFactory,
) AssociationInterleavingOption {
	return func(s *interleavingSettings) error {
		if newScheduler == nil {
			return errNilStreamScheduler
		}
		s.custom = true
		return nil
	}
}

// WithInterleavingWeightedFairQueueingScheduler selects the RFC 8260
// weighted fair queueing stream scheduler (usctp's sctp.SchedulerWFQ).
func WithInterleavingWeightedFairQueueingScheduler() AssociationInterleavingOption {
	return func(s *interleavingSettings) error {
		s.roundRobin, s.custom = false, false
		return nil
	}
}

// WithInterleavingWeightedFairQueueingWeight gives stream streamID the
// weight weight under weighted fair queueing: streams with data waiting
// share the sending in proportion to their weights.
func WithInterleavingWeightedFairQueueingWeight(streamID uint16, weight uint16) AssociationInterleavingOption {
	return func(s *interleavingSettings) error {
		if weight == 0 {
			return errStreamSchedulerWeight
		}
		if s.weights == nil {
			s.weights = map[uint16]uint16{}
		}
		s.weights[streamID] = weight
		s.roundRobin, s.custom = false, false
		return nil
	}
}

// WithInterleavingRoundRobinScheduler selects the round-robin stream
// scheduler (usctp's sctp.SchedulerRoundRobin).
func WithInterleavingRoundRobinScheduler() AssociationInterleavingOption {
	return func(s *interleavingSettings) error {
		s.roundRobin, s.custom = true, false
		return nil
	}
}

// WithInterleavingOptions configures RFC 8260 user message interleaving
// options. The default interleaving stream scheduler is weighted fair
// queueing.
func WithInterleavingOptions(opts ...AssociationInterleavingOption) AssociationOption {
	return sharedOption(func(c *Config) error {
		s := c.interleaving
		if s.weights != nil {
			w := make(map[uint16]uint16, len(s.weights))
			for k, v := range s.weights {
				w[k] = v
			}
			s.weights = w
		}
		for _, o := range opts {
			if o == nil {
				continue
			}
			if err := o(&s); err != nil {
				return err
			}
		}
		c.interleaving = s
		return nil
	})
}
