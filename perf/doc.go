// Package perf runs netperf-style SCTP tests (SCTP_STREAM, SCTP_STREAM_MANY,
// SCTP_RR, SCTP_RR_MANY) over pluggable SCTP stacks.
package perf
