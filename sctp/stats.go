package sctp

import "github.com/usctp/usctp/sctp/internal/api"

// Stats is a snapshot of an endpoint's or an association's counters: what a
// user or an operator asks when something goes wrong. Counters only grow;
// the path values (RTT, RTO, cwnd) are current values.
type Stats = api.Stats

// Counters are the scalar counters of Stats.
type Counters = api.Counters

// ChunkCounts counts chunks by chunk type (Stats.ChunksIn, ChunksOut):
// index it with the 8-bit type; it prints the counts that are not zero,
// by chunk name.
type ChunkCounts = api.ChunkCounts

// ASCONFCounters count the peer's ASCONF requests and ours (RFC 5061).
type ASCONFCounters = api.ASCONFCounters

// AuthCounters counts AUTH chunks (RFC 4895) and the chunks dropped for
// want of a valid one.
type AuthCounters = api.AuthCounters

// ReconfCounters counts the RE-CONFIG exchange (RFC 6525).
type ReconfCounters = api.ReconfCounters
