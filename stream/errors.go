package stream

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidStream is the error, matched with errors.Is, for a stream
	// identifier outside the negotiated range; the error itself is a
	// *RangeError naming the stream.
	ErrInvalidStream = errors.New("stream: invalid stream identifier")

	// ErrTooManyStreams is returned when a change would take a direction
	// above 65535 streams.
	ErrTooManyStreams = errors.New("stream: more than 65535 streams")

	// ErrAddPending is returned by AddOut while an earlier Add Outgoing
	// Streams request is still unanswered.
	ErrAddPending = errors.New("stream: an add-streams request is already pending")
)

// RangeError reports a stream identifier, from the peer or the user, that
// is not below the negotiated stream count of its direction.
type RangeError struct {
	SID     uint16 // the identifier
	Count   int    // the streams negotiated in that direction
	Inbound bool   // an inbound (receive) stream, else outbound
}

// Error describes the identifier and the range it missed.
func (e *RangeError) Error() string {
	dir := "outbound"
	if e.Inbound {
		dir = "inbound"
	}
	return fmt.Sprintf("stream: invalid %s stream %d (%d negotiated)", dir, e.SID, e.Count)
}

// Unwrap returns ErrInvalidStream.
func (e *RangeError) Unwrap() error { return ErrInvalidStream }
