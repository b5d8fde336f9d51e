package transfer

import "github.com/usctp/usctp/sctp/chunk"

// TSN is a Transmission Sequence Number with serial-number arithmetic
// (RFC 1982): the codec's chunk.TSN.
type TSN = chunk.TSN
