package sctp

import "fmt"

// PayloadProtocolIdentifier is an enum for DataChannel payload types: the
// Payload Protocol Identifier of an SCTP message (RFC 8831 section 8).
type PayloadProtocolIdentifier uint32

// The payload protocol identifiers of WebRTC data channels (RFC 8831
// section 8, in IANA's SCTP Payload Protocol Identifiers registry).
const (
	PayloadTypeUnknown           PayloadProtocolIdentifier = 0
	PayloadTypeWebRTCDCEP        PayloadProtocolIdentifier = 50
	PayloadTypeWebRTCString      PayloadProtocolIdentifier = 51
	PayloadTypeWebRTCBinary      PayloadProtocolIdentifier = 53
	PayloadTypeWebRTCStringEmpty PayloadProtocolIdentifier = 56
	PayloadTypeWebRTCBinaryEmpty PayloadProtocolIdentifier = 57
)

// String returns the name of a WebRTC payload type, or the number of
// another.
func (p PayloadProtocolIdentifier) String() string {
	switch p {
	case PayloadTypeWebRTCDCEP:
		return "WebRTC DCEP"
	case PayloadTypeWebRTCString:
		return "WebRTC String"
	case PayloadTypeWebRTCBinary:
		return "WebRTC Binary"
	case PayloadTypeWebRTCStringEmpty:
		return "WebRTC String (Empty)"
	case PayloadTypeWebRTCBinaryEmpty:
		return "WebRTC Binary (Empty)"
	}
	return fmt.Sprintf("Unknown Payload Protocol Identifier: %d", uint32(p))
}

// The reliability of a stream's messages (Stream.SetReliabilityParams).
const (
	// ReliabilityTypeReliable: every message is delivered.
	ReliabilityTypeReliable byte = 0
	// ReliabilityTypeRexmit: a message is given up after a number of
	// retransmissions.
	ReliabilityTypeRexmit byte = 1
	// ReliabilityTypeTimed: a message is given up once its lifetime ended.
	ReliabilityTypeTimed byte = 2
)

// StreamState says whether a stream is open, being reset or closed.
type StreamState int

// The stream states.
const (
	StreamStateOpen    StreamState = iota // open: the state of a new stream
	StreamStateClosing                    // its outgoing side's reset is under way
	StreamStateClosed                     // reset, or closed
)

// String returns "open", "closing" or "closed".
func (ss StreamState) String() string {
	switch ss {
	case StreamStateOpen:
		return "open"
	case StreamStateClosing:
		return "closing"
	case StreamStateClosed:
		return "closed"
	}
	return "unknown"
}

// PartialReliabilityMode is the partial reliability the two ends agreed
// on: none, FORWARD-TSN (RFC 3758) or I-FORWARD-TSN (RFC 8260).
type PartialReliabilityMode int

// The partial reliability modes.
const (
	PartialReliabilityModeNone PartialReliabilityMode = iota
	PartialReliabilityModeForwardTSN
	PartialReliabilityModeIForwardTSN
)

// AssociationMetadata is what the two ends agreed on at the handshake.
type AssociationMetadata struct {
	// MessageInterleavingEnabled: both ends use I-DATA (RFC 8260).
	MessageInterleavingEnabled bool `json:"messageInterleavingEnabled"`

	// PartialReliabilityMode: the chunk that skips messages given up.
	PartialReliabilityMode PartialReliabilityMode `json:"partialReliabilityMode"`

	// ZeroChecksumSendingEnabled: this end sends a zero checksum (RFC 9653).
	ZeroChecksumSendingEnabled bool `json:"zeroChecksumSendingEnabled"`

	// ZeroChecksumReceivingEnabled: the peer may send a zero checksum.
	ZeroChecksumReceivingEnabled bool `json:"zeroChecksumReceivingEnabled"`
}
