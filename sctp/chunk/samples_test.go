package chunk

import (
	"net/netip"
)

// sample is one valid chunk built with the encoders, and the text
// AppendText must give for it.
type sample struct {
	name  string
	chunk []byte
	text  string
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

var (
	v4 = netip.MustParseAddr("192.0.2.1")
	v6 = netip.MustParseAddr("2001:db8::1")
)

// initParams is a parameter list holding every INIT/INIT-ACK parameter.
func initParams() []byte {
	var b []byte
	b = must(AppendAddrParam(b, v4))
	b = must(AppendAddrParam(b, v6))
	b = AppendUint32Param(b, ParamCookiePreservative, 5000)
	b = must(AppendHostNameParam(b, "host a.example"))
	b = must(AppendUint16sParam(b, ParamSupportedAddressTypes, []uint16{5, 6}))
	b = AppendEmptyParam(b, ParamECNCapable)
	b = AppendUint32Param(b, ParamZeroChecksum, 1)
	b = must(AppendParam(b, ParamRandom, make([]byte, 32)))
	b = must(AppendParam(b, ParamChunkList, []byte{byte(TypeASCONF), byte(TypeASCONFAck)}))
	b = must(AppendUint16sParam(b, ParamHMACAlgo, []uint16{HMACSHA256, HMACSHA1}))
	b = must(AppendParam(b, ParamPadding, make([]byte, 7)))
	b = must(AppendParam(b, ParamSupportedExtensions, []byte{byte(TypeReconfig), byte(TypeForwardTSN), byte(TypeIData), byte(TypeASCONF)}))
	b = AppendEmptyParam(b, ParamForwardTSNSupported)
	b = AppendUint32Param(b, ParamAdaptationLayer, 0xbeef)
	b = must(AppendParam(b, 0xC0FE, []byte{1, 2, 3})) // unknown, skip-report
	return b
}

func initAckParams() []byte {
	b := must(AppendParam(nil, ParamStateCookie, make([]byte, 40)))
	unk := must(AppendParam(nil, 0x4321, []byte{9, 9}))
	b = must(AppendParam(b, ParamUnrecognizedParameter, unk))
	return b
}

func allCauses() []byte {
	var b []byte
	b = AppendInvalidStreamCause(b, 77)
	b = must(AppendMissingParamsCause(b, []ParamType{ParamStateCookie, ParamIPv4Address}))
	b = AppendUint32Cause(b, CauseStaleCookie, 1234)
	b = must(AppendCause(b, CauseOutOfResource, nil))
	b = must(AppendCause(b, CauseUnresolvableAddress, must(AppendHostNameParam(nil, "x"))))
	b = must(AppendCause(b, CauseUnrecognizedChunk, []byte{0xfe, 0, 0, 6, 1, 2, 0, 0}))
	b = must(AppendCause(b, CauseInvalidParam, nil))
	b = must(AppendCause(b, CauseUnrecognizedParams, must(AppendParam(nil, 0x8123, []byte{1}))))
	b = AppendUint32Cause(b, CauseNoUserData, 42)
	b = must(AppendCause(b, CauseCookieWhileShutdown, nil))
	b = must(AppendCause(b, CauseRestartNewAddresses, must(AppendAddrParam(nil, v4))))
	b = must(AppendCause(b, CauseUserAbort, []byte("bye now")))
	b = must(AppendCause(b, CauseProtocolViolation, []byte("bad")))
	b = AppendHMACCause(b, 2)
	for _, c := range []CauseCode{CauseDeleteLastAddress, CauseResourceShortage, CauseDeleteSourceAddress,
		CauseIllegalASCONFAck, CauseNoAuthorization} {
		p, _ := (&ASCONFParam{Type: ParamDeleteIPAddress, CorrelationID: 3,
			Address: Param{ParamIPv4Address, []byte{192, 0, 2, 1}}}).Append(nil)
		b = must(AppendCause(b, c, p))
	}
	b = must(AppendCause(b, 0x0999, []byte{1, 2, 3, 4, 5}))
	return b
}

const allCausesText = " cause=INVALID-STREAM-IDENTIFIER sid=77" +
	" cause=MISSING-MANDATORY-PARAMETER types=7,5" +
	" cause=STALE-COOKIE staleness_us=1234" +
	" cause=OUT-OF-RESOURCE" +
	" cause=UNRESOLVABLE-ADDRESS params=HOST-NAME-ADDRESS" +
	" cause=UNRECOGNIZED-CHUNK-TYPE type=UNKNOWN-0xfe" +
	" cause=INVALID-MANDATORY-PARAMETER" +
	" cause=UNRECOGNIZED-PARAMETERS params=UNKNOWN-0x8123" +
	" cause=NO-USER-DATA tsn=42" +
	" cause=COOKIE-RECEIVED-WHILE-SHUTTING-DOWN" +
	" cause=RESTART-WITH-NEW-ADDRESSES params=IPV4-ADDRESS" +
	` cause=USER-INITIATED-ABORT reason="bye\x20now"` +
	` cause=PROTOCOL-VIOLATION reason="bad"` +
	" cause=UNSUPPORTED-HMAC-IDENTIFIER hmac_id=2" +
	" cause=DELETE-LAST-REMAINING-ADDRESS params=DELETE-IP-ADDRESS" +
	" cause=RESOURCE-SHORTAGE params=DELETE-IP-ADDRESS" +
	" cause=DELETE-SOURCE-ADDRESS params=DELETE-IP-ADDRESS" +
	" cause=ILLEGAL-ASCONF-ACK params=DELETE-IP-ADDRESS" +
	" cause=NO-AUTHORIZATION params=DELETE-IP-ADDRESS" +
	" cause=UNKNOWN-0x0999 len=5"

func asconfParams() []byte {
	b := must(AppendASCONFAddrParam(nil, ParamAddIPAddress, 1, v6))
	b = must(AppendASCONFAddrParam(b, ParamDeleteIPAddress, 2, v4))
	b = must(AppendASCONFAddrParam(b, ParamSetPrimaryAddress, 3, v4))
	b = AppendUint32Param(b, ParamAdaptationLayer, 7)
	return b
}

func asconfAckParams() []byte {
	b := AppendUint32Param(nil, ParamSuccessIndication, 1)
	causes := AppendInvalidStreamCause(nil, 1)
	causes = must(AppendCause(causes, CauseResourceShortage, must(AppendASCONFAddrParam(nil, ParamAddIPAddress, 2, v4))))
	b = must((&ASCONFParam{Type: ParamErrorCauseIndication, CorrelationID: 2, Causes: causes}).Append(b))
	return b
}

func reconfigParams(ps ...ReconfigParam) []byte {
	var b []byte
	for _, p := range ps {
		b = must(p.Append(b))
	}
	return b
}

func samples() []sample {
	payload := make([]byte, 1452)
	for i := range payload {
		payload[i] = byte(i)
	}
	asconf := &ASCONF{Serial: 9, Params: asconfParams()}
	asconf.Address = Param{ParamIPv4Address, []byte{192, 0, 2, 1}}
	return []sample{
		{"DATA", must((&Data{Flags: FlagBeginning | FlagEnd, TSN: 7, SID: 1, SSN: 2, PPID: 51, Payload: []byte("hello")}).Append(nil)),
			"DATA tsn=7 sid=1 ssn=2 ppid=51 flags=BE len=5"},
		{"DATA-full", must((&Data{Flags: FlagUnordered | FlagImmediate, TSN: 0xffffffff, SID: 65535, SSN: 65535, PPID: 0xffffffff, Payload: payload}).Append(nil)),
			"DATA tsn=4294967295 sid=65535 ssn=65535 ppid=4294967295 flags=UI len=1452"},
		{"DATA-empty", must((&Data{TSN: 1}).Append(nil)), "DATA tsn=1 sid=0 ssn=0 ppid=0 flags=- len=0"},
		{"I-DATA-first", must((&IData{Flags: FlagBeginning, TSN: 10, SID: 3, MID: 4, PPID: 53, FSN: 99, Payload: []byte("abc")}).Append(nil)),
			"I-DATA tsn=10 sid=3 mid=4 fsn=0 ppid=53 flags=B len=3"},
		{"I-DATA-middle", must((&IData{Flags: FlagUnordered | FlagEnd, TSN: 11, SID: 3, MID: 4, PPID: 53, FSN: 1, Payload: []byte("defg")}).Append(nil)),
			"I-DATA tsn=11 sid=3 mid=4 fsn=1 flags=UE len=4"},
		{"INIT", must((&Init{Tag: 0xdeadbeef, ARwnd: 106496, OutStreams: 10, InStreams: 65535, InitialTSN: 1, Params: initParams()}).Append(nil)),
			"INIT init_tag=0xdeadbeef a_rwnd=106496 os=10 mis=65535 init_tsn=1" +
				" param=IPV4-ADDRESS addr=192.0.2.1 param=IPV6-ADDRESS addr=2001:db8::1" +
				" param=COOKIE-PRESERVATIVE increment_ms=5000" +
				` param=HOST-NAME-ADDRESS name="host\x20a.example"` +
				" param=SUPPORTED-ADDRESS-TYPES ids=5,6 param=ECN-CAPABLE" +
				" param=ZERO-CHECKSUM-ACCEPTABLE edmid=1 param=RANDOM len=32" +
				" param=CHUNK-LIST types=ASCONF,ASCONF-ACK param=REQUESTED-HMAC-ALGORITHM ids=3,1" +
				" param=PADDING len=7 param=SUPPORTED-EXTENSIONS types=RE-CONFIG,FORWARD-TSN,I-DATA,ASCONF" +
				" param=FORWARD-TSN-SUPPORTED param=ADAPTATION-LAYER-INDICATION code=0xbeef" +
				" param=UNKNOWN-0xc0fe len=3 action=skip-report"},
		{"INIT-ACK", must((&Init{Ack: true, Tag: 1, ARwnd: 2, OutStreams: 3, InStreams: 4, InitialTSN: 5, Params: initAckParams()}).Append(nil)),
			"INIT-ACK init_tag=0x1 a_rwnd=2 os=3 mis=4 init_tsn=5 param=STATE-COOKIE len=40" +
				" param=UNRECOGNIZED-PARAMETER type=UNKNOWN-0x4321"},
		{"SACK", must(AppendSack(nil, 100, 65536, []GapBlock{{2, 3}, {5, 9}}, []TSN{98, 99})),
			"SACK cum_tsn=100 a_rwnd=65536 gaps=2-3,5-9 dups=98,99"},
		{"SACK-plain", must(AppendSack(nil, 1, 2, nil, nil)), "SACK cum_tsn=1 a_rwnd=2 gaps=- dups=-"},
		{"NR-SACK", must(AppendNRSack(nil, FlagAllNR, 100, 5, []GapBlock{{2, 3}}, []GapBlock{{2, 2}, {4, 4}}, []TSN{7})),
			"NR-SACK all_nr=1 cum_tsn=100 a_rwnd=5 gaps=2-3 nr_gaps=2-2,4-4 dups=7"},
		{"HEARTBEAT", must(AppendHeartbeat(nil, false, []byte("0123456789"))), "HEARTBEAT param=HEARTBEAT-INFO len=10"},
		{"HEARTBEAT-ACK", must(AppendHeartbeat(nil, true, []byte("0123456789"))), "HEARTBEAT-ACK param=HEARTBEAT-INFO len=10"},
		{"ABORT", must((&Abort{Flags: FlagT, Causes: must(AppendCause(nil, CauseUserAbort, []byte("x")))}).Append(nil)),
			`ABORT t=1 cause=USER-INITIATED-ABORT reason="x"`},
		{"ABORT-empty", must((&Abort{}).Append(nil)), "ABORT t=0"},
		{"ERROR", must(AppendError(nil, allCauses())), "ERROR" + allCausesText},
		{"SHUTDOWN", AppendShutdown(nil, 12345), "SHUTDOWN cum_tsn=12345"},
		{"SHUTDOWN-ACK", AppendEmpty(nil, TypeShutdownAck, 0), "SHUTDOWN-ACK"},
		{"SHUTDOWN-COMPLETE", AppendEmpty(nil, TypeShutdownComplete, FlagT), "SHUTDOWN-COMPLETE t=1"},
		{"COOKIE-ECHO", must(AppendCookieEcho(nil, make([]byte, 41))), "COOKIE-ECHO cookie_len=41"},
		{"COOKIE-ACK", AppendEmpty(nil, TypeCookieAck, 0), "COOKIE-ACK"},
		{"ECNE", AppendECNE(nil, 77), "ECNE tsn=77"},
		{"CWR", AppendCWR(nil, 78), "CWR tsn=78"},
		{"AUTH", must((&Auth{KeyID: 1, HMACID: HMACSHA1, HMAC: make([]byte, 20)}).Append(nil)), "AUTH key_id=1 hmac_id=1 hmac_len=20"},
		{"FORWARD-TSN", must(AppendForwardTSN(nil, 500, []StreamSSN{{1, 2}, {3, 4}})), "FORWARD-TSN new_cum_tsn=500 streams=1:2,3:4"},
		{"I-FORWARD-TSN", must(AppendIForwardTSN(nil, 600, []StreamMID{{1, false, 2}, {3, true, 4}})), "I-FORWARD-TSN new_cum_tsn=600 streams=1:2,3:4:u"},
		{"ASCONF", must(asconf.Append(nil)),
			"ASCONF serial=9 addr=192.0.2.1 param=ADD-IP-ADDRESS corr=1 addr=2001:db8::1" +
				" param=DELETE-IP-ADDRESS corr=2 addr=192.0.2.1 param=SET-PRIMARY-ADDRESS corr=3 addr=192.0.2.1" +
				" param=ADAPTATION-LAYER-INDICATION code=0x7"},
		{"ASCONF-ACK", must((&ASCONF{Ack: true, Serial: 9, Params: asconfAckParams()}).Append(nil)),
			"ASCONF-ACK serial=9 param=SUCCESS-INDICATION corr=1 param=ERROR-CAUSE-INDICATION corr=2" +
				" cause=INVALID-STREAM-IDENTIFIER sid=1 cause=RESOURCE-SHORTAGE params=ADD-IP-ADDRESS"},
		{"RE-CONFIG-out-in", must((&Reconfig{Params: reconfigParams(
			ReconfigParam{Type: ParamOutgoingSSNReset, ReqSeq: 1, RespSeq: 2, LastTSN: 3, Streams: MakeList16(nil, 4, 5, 6)},
			ReconfigParam{Type: ParamIncomingSSNReset, ReqSeq: 7})}).Append(nil)),
			"RE-CONFIG param=OUTGOING-SSN-RESET-REQUEST req_seq=1 resp_seq=2 last_tsn=3 streams=4,5,6" +
				" param=INCOMING-SSN-RESET-REQUEST req_seq=7 streams=-"},
		{"RE-CONFIG-tsn", must((&Reconfig{Params: reconfigParams(ReconfigParam{Type: ParamSSNTSNReset, ReqSeq: 8})}).Append(nil)),
			"RE-CONFIG param=SSN-TSN-RESET-REQUEST req_seq=8"},
		{"RE-CONFIG-resp", must((&Reconfig{Params: reconfigParams(
			ReconfigParam{Type: ParamReconfigResponse, RespSeq: 8, Result: ReconfigSuccessPerformed},
			ReconfigParam{Type: ParamReconfigResponse, RespSeq: 9, Result: ReconfigDenied, HasTSNs: true, SenderNextTSN: 10, ReceiverNextTSN: 11})}).Append(nil)),
			"RE-CONFIG param=RE-CONFIG-RESPONSE resp_seq=8 result=success-performed" +
				" param=RE-CONFIG-RESPONSE resp_seq=9 result=denied sender_next_tsn=10 receiver_next_tsn=11"},
		{"RE-CONFIG-add", must((&Reconfig{Params: reconfigParams(
			ReconfigParam{Type: ParamAddOutgoingStreams, ReqSeq: 12, NewStreams: 100},
			ReconfigParam{Type: ParamAddIncomingStreams, ReqSeq: 13, NewStreams: 200})}).Append(nil)),
			"RE-CONFIG param=ADD-OUTGOING-STREAMS-REQUEST req_seq=12 new_streams=100" +
				" param=ADD-INCOMING-STREAMS-REQUEST req_seq=13 new_streams=200"},
		{"PAD", must(AppendPad(nil, 103)), "PAD len=99"},
		{"unknown-skip", must(Chunk{Type: 0xbf, Flags: 0x5a, Value: []byte{1, 2, 3, 4, 5}}.Append(nil)),
			"UNKNOWN-0xbf flags=0x5a len=5 action=skip"},
		{"unknown-stop", must(Chunk{Type: 0x3f, Value: nil}.Append(nil)), "UNKNOWN-0x3f flags=0x0 len=0 action=stop"},
	}
}

// samplePacket wraps chunks in a packet with a valid checksum.
func samplePacket(chunks ...[]byte) []byte {
	b := Header{SrcPort: 5000, DstPort: 5001, Tag: 0x01020304}.Append(nil)
	for _, c := range chunks {
		b = append(b, c...)
	}
	SetChecksum(b)
	return b
}
