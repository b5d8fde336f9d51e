package sctp

import (
	"errors"
	"fmt"
	"os"
)

// The original's error values. Those of its wire codec and state machine
// exist so that programs naming them build; this package returns the ones
// its documentation names.

// Errors of the association's life, named as the original names them.
var (
	ErrChunk                         = errors.New("sctp: ABORT received, with error causes")
	ErrShutdownNonEstablished        = errors.New("sctp: shutdown of an association not established")
	ErrAssociationClosedBeforeConn   = errors.New("sctp: association closed before it was established")
	ErrAssociationClosed             = errors.New("sctp: association closed")
	ErrSilentlyDiscard               = errors.New("sctp: packet silently discarded")
	ErrInitNotStoredToSend           = errors.New("sctp: no INIT stored to send")
	ErrCookieEchoNotStoredToSend     = errors.New("sctp: no COOKIE ECHO stored to send")
	ErrSCTPPacketSourcePortZero      = errors.New("sctp: packet with source port 0")
	ErrSCTPPacketDestinationPortZero = errors.New("sctp: packet with destination port 0")
	ErrInitChunkBundled              = errors.New("sctp: INIT bundled with other chunks")
	ErrInitChunkVerifyTagNotZero     = errors.New("sctp: INIT with a verification tag other than 0")
	ErrHandleInitState               = errors.New("sctp: INIT in an unexpected state")
	ErrInitAckNoCookie               = errors.New("sctp: INIT ACK without a state cookie")
	ErrInflightQueueTSNPop           = errors.New("sctp: acknowledged TSN not in flight")
	ErrTSNRequestNotExist            = errors.New("sctp: acknowledged TSN never sent")
	ErrResetPacketInStateNotExist    = errors.New("sctp: stream reset outside the established state")
	ErrParamterType                  = errors.New("sctp: unexpected parameter type")
	ErrPayloadDataStateNotExist      = errors.New("sctp: data written outside the established state")
	ErrChunkTypeUnhandled            = errors.New("sctp: chunk type not handled")
	ErrHandshakeInitAck              = errors.New("sctp: handshake failed at the INIT ACK")
	ErrHandshakeCookieEcho           = errors.New("sctp: handshake failed at the COOKIE ECHO")
	ErrTooManyReconfigRequests       = errors.New("sctp: too many reconfiguration requests outstanding")

	// ErrAssociationRestarted is the error of a write the peer's restart
	// cut short.
	ErrAssociationRestarted = errors.New("sctp: peer restarted the association")
)

// Stream errors.
var (
	ErrOutboundPacketTooLarge = errors.New("sctp: message larger than the maximum message size")
	ErrStreamClosed           = errors.New("sctp: stream closed")
	ErrReadDeadlineExceeded   = fmt.Errorf("sctp: read deadline exceeded: %w", os.ErrDeadlineExceeded)
)

// ErrUserInitiatedAbort is matched by errors.Is when the peer aborted the
// association with a User-Initiated Abort cause.
var ErrUserInitiatedAbort = errors.New("sctp: user initiated abort")

// Errors of the original's wire codec, which this package does not have.
var (
	ErrChunkTypeNotAbort     = errors.New("sctp: chunk is not an ABORT")
	ErrBuildAbortChunkFailed = errors.New("sctp: building an ABORT failed")

	ErrChunkTypeNotCtError   = errors.New("sctp: chunk is not an ERROR")
	ErrBuildErrorChunkFailed = errors.New("sctp: building an ERROR failed")

	ErrMarshalStreamFailed = errors.New("sctp: encoding a stream entry failed")
	ErrChunkTooShort       = errors.New("sctp: chunk too short")

	ErrChunkTypeNotHeartbeat      = errors.New("sctp: chunk is not a HEARTBEAT")
	ErrHeartbeatNotLongEnoughInfo = errors.New("sctp: HEARTBEAT too short for its Heartbeat Info")
	ErrParseParamTypeFailed       = errors.New("sctp: parameter type unreadable")
	ErrHeartbeatParam             = errors.New("sctp: HEARTBEAT with a parameter other than Heartbeat Info")
	ErrHeartbeatChunkUnmarshal    = errors.New("sctp: HEARTBEAT parameter unreadable")
	ErrHeartbeatExtraNonZero      = errors.New("sctp: HEARTBEAT with non-zero bytes after its parameter")
	ErrHeartbeatMarshalNoInfo     = errors.New("sctp: HEARTBEAT needs exactly one Heartbeat Info")

	// Deprecated: not returned, kept so that programs naming it build.
	ErrUnimplemented                = errors.New("sctp: unimplemented")
	ErrChunkTypeNotHeartbeatAck     = errors.New("sctp: chunk is not a HEARTBEAT ACK")
	ErrHeartbeatAckParams           = errors.New("sctp: HEARTBEAT ACK needs one parameter")
	ErrHeartbeatAckNotHeartbeatInfo = errors.New("sctp: HEARTBEAT ACK parameter is not Heartbeat Info")
	ErrHeartbeatAckMarshalParam     = errors.New("sctp: HEARTBEAT ACK parameter unencodable")

	ErrChunkTypeNotTypeInit          = errors.New("sctp: chunk is not an INIT")
	ErrChunkValueNotLongEnough       = errors.New("sctp: chunk too short for its mandatory parameters")
	ErrChunkTypeInitFlagZero         = errors.New("sctp: INIT with flags set")
	ErrChunkTypeInitUnmarshalFailed  = errors.New("sctp: INIT unreadable")
	ErrChunkTypeInitMarshalFailed    = errors.New("sctp: INIT unencodable")
	ErrChunkTypeInitInitateTagZero   = errors.New("sctp: INIT with Initiate Tag 0")
	ErrInitInboundStreamRequestZero  = errors.New("sctp: INIT with 0 inbound streams")
	ErrInitOutboundStreamRequestZero = errors.New("sctp: INIT with 0 outbound streams")
	ErrInitAdvertisedReceiver1500    = errors.New("sctp: INIT with a_rwnd below 1500")
	ErrInitUnknownParam              = errors.New("sctp: INIT with an unknown parameter")

	ErrChunkTypeNotInitAck              = errors.New("sctp: chunk is not an INIT ACK")
	ErrChunkNotLongEnoughForParams      = errors.New("sctp: chunk too short for its mandatory parameters")
	ErrChunkTypeInitAckFlagZero         = errors.New("sctp: INIT ACK with flags set")
	ErrInitAckUnmarshalFailed           = errors.New("sctp: INIT ACK unreadable")
	ErrInitCommonDataMarshalFailed      = errors.New("sctp: INIT ACK unencodable")
	ErrChunkTypeInitAckInitateTagZero   = errors.New("sctp: INIT ACK with Initiate Tag 0")
	ErrInitAckInboundStreamRequestZero  = errors.New("sctp: INIT ACK with 0 inbound streams")
	ErrInitAckOutboundStreamRequestZero = errors.New("sctp: INIT ACK with 0 outbound streams")
	ErrInitAckAdvertisedReceiver1500    = errors.New("sctp: INIT ACK with a_rwnd below 1500")

	ErrInitChunkParseParamTypeFailed = errors.New("sctp: INIT parameter type unreadable")
	ErrInitAckMarshalParam           = errors.New("sctp: INIT or INIT ACK parameter unencodable")

	ErrChunkParseParamTypeFailed        = errors.New("sctp: RE-CONFIG parameter type unreadable")
	ErrChunkMarshalParamAReconfigFailed = errors.New("sctp: RE-CONFIG first parameter unencodable")
	ErrChunkMarshalParamBReconfigFailed = errors.New("sctp: RE-CONFIG second parameter unencodable")

	ErrChunkTypeNotSack           = errors.New("sctp: chunk is not a SACK")
	ErrSackSizeNotLargeEnoughInfo = errors.New("sctp: SACK too short for its header")
	ErrSackSizeNotMatchPredicted  = errors.New("sctp: SACK length does not match its counts")

	ErrInvalidChunkSize     = errors.New("sctp: invalid chunk size")
	ErrChunkTypeNotShutdown = errors.New("sctp: chunk is not a SHUTDOWN")

	ErrChunkHeaderTooSmall       = errors.New("sctp: chunk header too short")
	ErrChunkHeaderNotEnoughSpace = errors.New("sctp: chunk longer than the packet")
	ErrChunkHeaderPaddingNonZero = errors.New("sctp: chunk padding not zero")

	ErrBuildErrorCaseHandle = errors.New("sctp: error cause not encodable")
	ErrCauseTooShort        = errors.New("sctp: error cause too short")
	ErrCauseLengthInvalid   = errors.New("sctp: error cause length invalid")

	ErrPacketRawTooSmall           = errors.New("sctp: packet shorter than the common header")
	ErrParseSCTPChunkNotEnoughData = errors.New("sctp: packet too short for a chunk header")
	ErrUnmarshalUnknownChunkType   = errors.New("sctp: packet with an unknown chunk type")
	ErrChecksumMismatch            = errors.New("sctp: checksum mismatch")

	ErrZeroChecksumParamTooShort = errors.New("sctp: Zero Checksum Acceptable parameter too short")
	// RFC 9653 section 4: the parameter's length is 8.
	ErrZeroChecksumParamInvalidLength = errors.New("sctp: Zero Checksum Acceptable parameter length not 8")

	ErrParamHeaderTooShort                  = errors.New("sctp: parameter header too short")
	ErrParamHeaderSelfReportedLengthShorter = errors.New("sctp: parameter length shorter than its header")
	ErrParamHeaderSelfReportedLengthLonger  = errors.New("sctp: parameter length longer than the data")
	ErrParamHeaderParseFailed               = errors.New("sctp: parameter type unreadable")

	ErrUnexpectedChunkPoppedUnordered = errors.New("sctp: unexpected chunk popped (unordered)")
	ErrUnexpectedChunkPoppedOrdered   = errors.New("sctp: unexpected chunk popped (ordered)")
	ErrUnexpectedChunkPoppedStream    = errors.New("sctp: unexpected chunk popped (stream)")
	ErrUnexpectedQState               = errors.New("sctp: unexpected send queue state")
	ErrPendingQueueModeChangeNonEmpty = errors.New("sctp: interleaving switched with data queued")

	// Deprecated: the misspelt name of ErrUnexpectedChunkPoppedUnordered.
	ErrUnexpectedChuckPoppedUnordered = ErrUnexpectedChunkPoppedUnordered
	// Deprecated: the misspelt name of ErrUnexpectedChunkPoppedOrdered.
	ErrUnexpectedChuckPoppedOrdered = ErrUnexpectedChunkPoppedOrdered

	ErrChunkPayloadSmall = errors.New("sctp: DATA chunk shorter than its header")

	ErrChunkTypeNotCookieAck        = errors.New("sctp: chunk is not a COOKIE ACK")
	ErrChunkTypeNotCookieEcho       = errors.New("sctp: chunk is not a COOKIE ECHO")
	ErrChunkTypeNotShutdownAck      = errors.New("sctp: chunk is not a SHUTDOWN ACK")
	ErrChunkTypeNotShutdownComplete = errors.New("sctp: chunk is not a SHUTDOWN COMPLETE")

	ErrParamPacketTooShort          = errors.New("sctp: parameter too short")
	ErrProtocolViolationUnmarshal   = errors.New("sctp: Protocol Violation cause unreadable")
	ErrReconfigRespParamTooShort    = errors.New("sctp: Re-configuration Response parameter too short")
	ErrSSNResetRequestParamTooShort = errors.New("sctp: Outgoing SSN Reset Request parameter too short")
)

// ErrInvalidAlgorithmType names an HMAC algorithm nobody knows.
var ErrInvalidAlgorithmType = errors.New("sctp: unknown HMAC algorithm")

// ErrInvalidChunkLength is a chunk whose length field does not fit.
var ErrInvalidChunkLength = errors.New("sctp: invalid chunk length")

// ErrInvalidSCTPChunk is a chunk that cannot be read.
var ErrInvalidSCTPChunk = errors.New("sctp: invalid chunk")

// ErrParamTypeUnhandled is a parameter type this end does not handle.
var ErrParamTypeUnhandled = errors.New("sctp: parameter type not handled")

// Errors of the options.
var (
	errNilNetConn            = errors.New("sctp: no net.Conn (WithNetConn)")
	errNilLoggerFactory      = errors.New("sctp: nil logger factory")
	errZeroMTU               = errors.New("sctp: MTU 0")
	errMTUTooSmall           = errors.New("sctp: MTU too small for one DATA chunk")
	errZeroReceiveBuffer     = errors.New("sctp: maximum receive buffer size 0")
	errZeroMaxMessageSize    = errors.New("sctp: maximum message size 0")
	errInvalidRTOMax         = errors.New("sctp: RTOMax not positive")
	errInvalidSNAPToken      = errors.New("sctp: empty SNAP token")
	errBadSNAPToken          = errors.New("sctp: SNAP token refused")
	errNilStreamScheduler    = errors.New("sctp: nil stream scheduler factory")
	errStreamSchedulerWeight = errors.New("sctp: stream scheduler weight 0")
	errStreamScheduler       = errors.New("sctp: custom stream schedulers are not supported (usctp schedules streams itself)")
	errInvalidRACKOption     = errors.New("sctp: invalid RACK option")
)
