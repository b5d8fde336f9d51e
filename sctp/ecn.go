package sctp

// ecnECT0 is the ECT(0) codepoint of the IP ECN field (RFC 3168 section
// 5), set on the packets of associations that use ECN where the transport
// sets the field per packet (netio.Packet.ECN).
const ecnECT0 = 2
