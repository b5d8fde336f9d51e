package chunk

import "strconv"

// Type is a chunk type (RFC 9260 section 3.2 and the extensions' IANA
// registrations).
type Type uint8

// Chunk types.
const (
	TypeData             Type = 0   // DATA, RFC 9260 section 3.3.1
	TypeInit             Type = 1   // INIT, RFC 9260 section 3.3.2
	TypeInitAck          Type = 2   // INIT-ACK, RFC 9260 section 3.3.3
	TypeSack             Type = 3   // SACK, RFC 9260 section 3.3.4
	TypeHeartbeat        Type = 4   // HEARTBEAT, RFC 9260 section 3.3.5
	TypeHeartbeatAck     Type = 5   // HEARTBEAT-ACK, RFC 9260 section 3.3.6
	TypeAbort            Type = 6   // ABORT, RFC 9260 section 3.3.7
	TypeShutdown         Type = 7   // SHUTDOWN, RFC 9260 section 3.3.8
	TypeShutdownAck      Type = 8   // SHUTDOWN-ACK, RFC 9260 section 3.3.9
	TypeError            Type = 9   // ERROR, RFC 9260 section 3.3.10
	TypeCookieEcho       Type = 10  // COOKIE-ECHO, RFC 9260 section 3.3.11
	TypeCookieAck        Type = 11  // COOKIE-ACK, RFC 9260 section 3.3.12
	TypeECNE             Type = 12  // ECNE, RFC 9260 appendix A
	TypeCWR              Type = 13  // CWR, RFC 9260 appendix A
	TypeShutdownComplete Type = 14  // SHUTDOWN-COMPLETE, RFC 9260 section 3.3.13
	TypeAuth             Type = 15  // AUTH, RFC 4895 section 4.2
	TypeNRSack           Type = 16  // NR-SACK, draft-tuexen-tsvwg-sctp-multipath (Linux/FreeBSD numbering)
	TypeIData            Type = 64  // I-DATA, RFC 8260 section 2.1
	TypeASCONFAck        Type = 128 // ASCONF-ACK, RFC 5061 section 4.1.2
	TypeReconfig         Type = 130 // RE-CONFIG, RFC 6525 section 3.1
	TypePad              Type = 132 // PAD, RFC 4820 section 3
	TypeForwardTSN       Type = 192 // FORWARD-TSN, RFC 3758 section 3.2
	TypeASCONF           Type = 193 // ASCONF, RFC 5061 section 4.1.1
	TypeIForwardTSN      Type = 194 // I-FORWARD-TSN, RFC 8260 section 2.3.1
)

// Chunk flags.
const (
	FlagEnd       uint8 = 0x01 // DATA/I-DATA E bit: last fragment
	FlagBeginning uint8 = 0x02 // DATA/I-DATA B bit: first fragment
	FlagUnordered uint8 = 0x04 // DATA/I-DATA U bit: unordered
	FlagImmediate uint8 = 0x08 // DATA/I-DATA I bit: SACK immediately (RFC 9260 section 3.3.1)
	// FlagT is the T bit of ABORT and SHUTDOWN-COMPLETE: the sender
	// reflected the receiver's own verification tag (RFC 9260 section 3.3.7).
	FlagT uint8 = 0x01
	// FlagAllNR is the A bit of NR-SACK: every out-of-order TSN is
	// non-renegable.
	FlagAllNR uint8 = 0x01
)

// Action returns what a receiver that does not know t must do (RFC 9260
// section 3.2).
func (t Type) Action() Action { return Action(t >> 6) }

// Known reports whether this package knows the chunk type t.
func (t Type) Known() bool { return chunkNames[t] != "" }

var chunkNames = [256]string{
	TypeData: "DATA", TypeInit: "INIT", TypeInitAck: "INIT-ACK", TypeSack: "SACK",
	TypeHeartbeat: "HEARTBEAT", TypeHeartbeatAck: "HEARTBEAT-ACK", TypeAbort: "ABORT",
	TypeShutdown: "SHUTDOWN", TypeShutdownAck: "SHUTDOWN-ACK", TypeError: "ERROR",
	TypeCookieEcho: "COOKIE-ECHO", TypeCookieAck: "COOKIE-ACK", TypeECNE: "ECNE",
	TypeCWR: "CWR", TypeShutdownComplete: "SHUTDOWN-COMPLETE", TypeAuth: "AUTH",
	TypeNRSack: "NR-SACK", TypeIData: "I-DATA", TypeASCONFAck: "ASCONF-ACK",
	TypeReconfig: "RE-CONFIG", TypePad: "PAD", TypeForwardTSN: "FORWARD-TSN",
	TypeASCONF: "ASCONF", TypeIForwardTSN: "I-FORWARD-TSN",
}

// String returns the RFC name in upper case with hyphens ("INIT-ACK",
// "I-DATA", "RE-CONFIG"), or "UNKNOWN-0xNN" for an unknown type.
func (t Type) String() string {
	if s := chunkNames[t]; s != "" {
		return s
	}
	return "UNKNOWN-0x" + hexN(uint64(t), 2)
}

// ParamType is a parameter type (RFC 9260 section 3.2.1 and extensions).
type ParamType uint16

// Parameter types.
const (
	ParamHeartbeatInfo         ParamType = 1      // RFC 9260 section 3.3.5
	ParamIPv4Address           ParamType = 5      // RFC 9260 section 3.3.2.1
	ParamIPv6Address           ParamType = 6      // RFC 9260 section 3.3.2.1
	ParamStateCookie           ParamType = 7      // RFC 9260 section 3.3.3.1
	ParamUnrecognizedParameter ParamType = 8      // RFC 9260 section 3.3.3.1
	ParamCookiePreservative    ParamType = 9      // RFC 9260 section 3.3.2.1
	ParamHostNameAddress       ParamType = 11     // RFC 9260 section 3.3.2.1 (deprecated)
	ParamSupportedAddressTypes ParamType = 12     // RFC 9260 section 3.3.2.1
	ParamOutgoingSSNReset      ParamType = 13     // RFC 6525 section 4.1
	ParamIncomingSSNReset      ParamType = 14     // RFC 6525 section 4.2
	ParamSSNTSNReset           ParamType = 15     // RFC 6525 section 4.3
	ParamReconfigResponse      ParamType = 16     // RFC 6525 section 4.4
	ParamAddOutgoingStreams    ParamType = 17     // RFC 6525 section 4.5
	ParamAddIncomingStreams    ParamType = 18     // RFC 6525 section 4.6
	ParamECNCapable            ParamType = 0x8000 // RFC 9260 appendix A
	ParamZeroChecksum          ParamType = 0x8001 // RFC 9653 section 4
	ParamRandom                ParamType = 0x8002 // RFC 4895 section 3.1
	ParamChunkList             ParamType = 0x8003 // RFC 4895 section 3.2
	ParamHMACAlgo              ParamType = 0x8004 // RFC 4895 section 3.3
	ParamPadding               ParamType = 0x8005 // RFC 4820 section 4
	ParamSupportedExtensions   ParamType = 0x8008 // RFC 5061 section 4.2.7
	ParamForwardTSNSupported   ParamType = 0xC000 // RFC 3758 section 3.1
	ParamAddIPAddress          ParamType = 0xC001 // RFC 5061 section 4.2.1
	ParamDeleteIPAddress       ParamType = 0xC002 // RFC 5061 section 4.2.2
	ParamErrorCauseIndication  ParamType = 0xC003 // RFC 5061 section 4.2.3
	ParamSetPrimaryAddress     ParamType = 0xC004 // RFC 5061 section 4.2.4
	ParamSuccessIndication     ParamType = 0xC005 // RFC 5061 section 4.2.5
	ParamAdaptationLayer       ParamType = 0xC006 // RFC 5061 section 4.2.6
)

// Action returns what a receiver that does not know t must do (RFC 9260
// section 3.2.1).
func (t ParamType) Action() Action { return Action(t >> 14) }

// Known reports whether this package knows the parameter type t.
func (t ParamType) Known() bool { _, ok := paramNames[t]; return ok }

var paramNames = map[ParamType]string{
	ParamHeartbeatInfo: "HEARTBEAT-INFO", ParamIPv4Address: "IPV4-ADDRESS",
	ParamIPv6Address: "IPV6-ADDRESS", ParamStateCookie: "STATE-COOKIE",
	ParamUnrecognizedParameter: "UNRECOGNIZED-PARAMETER",
	ParamCookiePreservative:    "COOKIE-PRESERVATIVE", ParamHostNameAddress: "HOST-NAME-ADDRESS",
	ParamSupportedAddressTypes: "SUPPORTED-ADDRESS-TYPES",
	ParamOutgoingSSNReset:      "OUTGOING-SSN-RESET-REQUEST",
	ParamIncomingSSNReset:      "INCOMING-SSN-RESET-REQUEST",
	ParamSSNTSNReset:           "SSN-TSN-RESET-REQUEST",
	ParamReconfigResponse:      "RE-CONFIG-RESPONSE",
	ParamAddOutgoingStreams:    "ADD-OUTGOING-STREAMS-REQUEST",
	ParamAddIncomingStreams:    "ADD-INCOMING-STREAMS-REQUEST",
	ParamECNCapable:            "ECN-CAPABLE", ParamZeroChecksum: "ZERO-CHECKSUM-ACCEPTABLE",
	ParamRandom: "RANDOM", ParamChunkList: "CHUNK-LIST", ParamHMACAlgo: "REQUESTED-HMAC-ALGORITHM",
	ParamPadding: "PADDING", ParamSupportedExtensions: "SUPPORTED-EXTENSIONS",
	ParamForwardTSNSupported: "FORWARD-TSN-SUPPORTED", ParamAddIPAddress: "ADD-IP-ADDRESS",
	ParamDeleteIPAddress: "DELETE-IP-ADDRESS", ParamErrorCauseIndication: "ERROR-CAUSE-INDICATION",
	ParamSetPrimaryAddress: "SET-PRIMARY-ADDRESS", ParamSuccessIndication: "SUCCESS-INDICATION",
	ParamAdaptationLayer: "ADAPTATION-LAYER-INDICATION",
}

// String returns the parameter's name in upper case with hyphens, or
// "UNKNOWN-0xNNNN".
func (t ParamType) String() string {
	if s, ok := paramNames[t]; ok {
		return s
	}
	return "UNKNOWN-0x" + hexN(uint64(t), 4)
}

// CauseCode is an error cause code (RFC 9260 section 3.3.10 and extensions).
type CauseCode uint16

// Error cause codes.
const (
	CauseInvalidStream       CauseCode = 1      // Invalid Stream Identifier
	CauseMissingParam        CauseCode = 2      // Missing Mandatory Parameter
	CauseStaleCookie         CauseCode = 3      // Stale Cookie Error
	CauseOutOfResource       CauseCode = 4      // Out of Resource
	CauseUnresolvableAddress CauseCode = 5      // Unresolvable Address
	CauseUnrecognizedChunk   CauseCode = 6      // Unrecognized Chunk Type
	CauseInvalidParam        CauseCode = 7      // Invalid Mandatory Parameter
	CauseUnrecognizedParams  CauseCode = 8      // Unrecognized Parameters
	CauseNoUserData          CauseCode = 9      // No User Data
	CauseCookieWhileShutdown CauseCode = 10     // Cookie Received While Shutting Down
	CauseRestartNewAddresses CauseCode = 11     // Restart of an Association with New Addresses
	CauseUserAbort           CauseCode = 12     // User-Initiated Abort
	CauseProtocolViolation   CauseCode = 13     // Protocol Violation
	CauseUnsupportedHMAC     CauseCode = 0x0105 // Unsupported HMAC Identifier, RFC 4895 section 4.1
	CauseDeleteLastAddress   CauseCode = 0xA0   // Request to Delete Last Remaining IP Address, RFC 5061
	CauseResourceShortage    CauseCode = 0xA1   // Operation Refused Due to Resource Shortage, RFC 5061
	CauseDeleteSourceAddress CauseCode = 0xA2   // Request to Delete Source IP Address, RFC 5061
	CauseIllegalASCONFAck    CauseCode = 0xA3   // Association Aborted Due to Illegal ASCONF-ACK, RFC 5061
	CauseNoAuthorization     CauseCode = 0xA4   // Request Refused - No Authorization, RFC 5061
)

var causeNames = map[CauseCode]string{
	CauseInvalidStream: "INVALID-STREAM-IDENTIFIER", CauseMissingParam: "MISSING-MANDATORY-PARAMETER",
	CauseStaleCookie: "STALE-COOKIE", CauseOutOfResource: "OUT-OF-RESOURCE",
	CauseUnresolvableAddress: "UNRESOLVABLE-ADDRESS", CauseUnrecognizedChunk: "UNRECOGNIZED-CHUNK-TYPE",
	CauseInvalidParam: "INVALID-MANDATORY-PARAMETER", CauseUnrecognizedParams: "UNRECOGNIZED-PARAMETERS",
	CauseNoUserData: "NO-USER-DATA", CauseCookieWhileShutdown: "COOKIE-RECEIVED-WHILE-SHUTTING-DOWN",
	CauseRestartNewAddresses: "RESTART-WITH-NEW-ADDRESSES", CauseUserAbort: "USER-INITIATED-ABORT",
	CauseProtocolViolation: "PROTOCOL-VIOLATION", CauseUnsupportedHMAC: "UNSUPPORTED-HMAC-IDENTIFIER",
	CauseDeleteLastAddress: "DELETE-LAST-REMAINING-ADDRESS", CauseResourceShortage: "RESOURCE-SHORTAGE",
	CauseDeleteSourceAddress: "DELETE-SOURCE-ADDRESS", CauseIllegalASCONFAck: "ILLEGAL-ASCONF-ACK",
	CauseNoAuthorization: "NO-AUTHORIZATION",
}

// Known reports whether this package knows the cause code c.
func (c CauseCode) Known() bool { _, ok := causeNames[c]; return ok }

// String returns the cause's name in upper case with hyphens, or
// "UNKNOWN-0xNNNN".
func (c CauseCode) String() string {
	if s, ok := causeNames[c]; ok {
		return s
	}
	return "UNKNOWN-0x" + hexN(uint64(c), 4)
}

func hexN(v uint64, n int) string {
	s := strconv.FormatUint(v, 16)
	for len(s) < n {
		s = "0" + s
	}
	return s
}
