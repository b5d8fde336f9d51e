package sched

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind names a stream scheduler. Its values are the Linux kernel's numbers
// for SCTP_STREAM_SCHEDULER (enum sctp_sched_type) where Linux has the
// scheduler; RoundRobinPacket, which Linux lacks, takes the next free number.
type Kind uint8

// The schedulers of RFC 8260 section 3.
const (
	// FCFS serves messages in the order they were queued, across all
	// streams (RFC 8260 section 3.1, Linux SCTP_SS_FCFS).
	FCFS Kind = 0
	// Priority serves the active streams with the lowest priority value
	// first, strictly, and round robin among streams of equal priority
	// (RFC 8260 section 3.4, Linux SCTP_SS_PRIO).
	Priority Kind = 1
	// RoundRobin serves active streams in turn, one message each without
	// I-DATA and one chunk each with it (RFC 8260 section 3.2, Linux
	// SCTP_SS_RR).
	RoundRobin Kind = 2
	// FairCapacity gives every active stream the same share of the bytes
	// sent (RFC 8260 section 3.5, Linux SCTP_SS_FC).
	FairCapacity Kind = 3
	// WFQ gives every active stream a share of the bytes sent proportional
	// to its weight (RFC 8260 section 3.6, Linux SCTP_SS_WFQ).
	WFQ Kind = 4
	// RoundRobinPacket serves active streams in turn, one packet each, so
	// that a packet carries data of one stream (RFC 8260 section 3.3; not
	// in Linux). A stream that runs dry before the packet is full lets the
	// next one fill the rest, as in usrsctp.
	RoundRobinPacket Kind = 5
)

// numKinds is one more than the largest Kind.
const numKinds = 6

var kindNames = [numKinds]string{
	FCFS:             "fcfs",
	Priority:         "prio",
	RoundRobin:       "rr",
	FairCapacity:     "fc",
	WFQ:              "wfq",
	RoundRobinPacket: "rrp",
}

// String returns the scheduler's short name ("fcfs", "prio", "rr", "fc",
// "wfq", "rrp"), or "Kind(n)" for an unknown value.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Valid reports whether k names a scheduler.
func (k Kind) Valid() bool { return k < numKinds }

// ParseKind returns the scheduler named name: one of the short names
// "fcfs", "prio", "rr", "fc", "wfq" and "rrp" (case-insensitive), or a
// decimal number, the Linux SCTP_STREAM_SCHEDULER value (0 to 4; 5 is
// RoundRobinPacket).
func ParseKind(name string) (Kind, error) {
	for k, n := range kindNames {
		if strings.EqualFold(name, n) {
			return Kind(k), nil
		}
	}
	if v, err := strconv.ParseUint(name, 10, 8); err == nil && v < numKinds {
		return Kind(v), nil
	}
	return 0, fmt.Errorf("sched: unknown scheduler %q (want fcfs, prio, rr, fc, wfq, rrp or 0-5): %w", name, ErrKind)
}
