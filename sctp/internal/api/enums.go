package api

import (
	"fmt"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sched"
)

// Recovery selects how an association finds lost DATA chunks.
type Recovery uint8

const (
	// RecoveryRACK finds lost chunks by time while acknowledgements
	// arrive, in the spirit of RACK-TLP (RFC 8985) adapted to SACK chunks:
	// a lost retransmission is found and sent again without waiting for
	// the retransmission timer, a lost tail costs a probe after two round
	// trips, the timer's back-off ends as soon as new data is acknowledged,
	// and a timer expiry retransmits only what was outstanding for an RTO.
	RecoveryRACK Recovery = iota
	// RecoveryRFC9260 follows RFC 9260 sections 6.3.3 and 7.2.4 to the
	// letter: a chunk is fast-retransmitted once, after three miss
	// indications; anything else waits for T3-rtx, whose back-off stays
	// until a new round-trip measurement.
	RecoveryRFC9260
)

// CongestionControl selects the congestion controller of an association's
// paths.
type CongestionControl uint8

const (
	// CongestionRFC9260 is RFC 9260 section 7.2's: slow start, one MTU
	// per round trip in congestion avoidance, halving on loss.
	CongestionRFC9260 CongestionControl = iota
	// CongestionCubic is CUBIC (RFC 9438): the window grows as a cubic
	// function of the time since the last reduction, is reduced to 0.7 of
	// itself on loss, and grows as RFC 9260's where that is faster. It
	// fills paths with a large bandwidth-delay product much sooner.
	CongestionCubic
)

// Scheduler names an outbound stream scheduler (RFC 8260 section 3). Its
// values are Linux's SCTP_SS_* numbers where Linux has the scheduler.
type Scheduler = sched.Kind

// The stream schedulers.
const (
	// SchedulerFCFS serves messages in the order they were written, across
	// all streams (Linux SCTP_SS_FCFS). It is the default.
	SchedulerFCFS = sched.FCFS
	// SchedulerPriority serves the streams with the lowest priority value
	// (the stream's scheduler value) first, strictly, and in turn among
	// equal ones (Linux SCTP_SS_PRIO).
	SchedulerPriority = sched.Priority
	// SchedulerRoundRobin serves the streams with data in turn, one
	// message each without I-DATA and one chunk each with it (Linux
	// SCTP_SS_RR).
	SchedulerRoundRobin = sched.RoundRobin
	// SchedulerFairCapacity gives every stream with data the same share of
	// the bytes sent (Linux SCTP_SS_FC).
	SchedulerFairCapacity = sched.FairCapacity
	// SchedulerWFQ gives every stream with data a share of the bytes sent
	// in proportion to its weight (the stream's scheduler value, 1 to
	// 65535; Linux SCTP_SS_WFQ).
	SchedulerWFQ = sched.WFQ
	// SchedulerRoundRobinPacket serves the streams with data in turn, one
	// packet each (not in Linux).
	SchedulerRoundRobinPacket = sched.RoundRobinPacket
)

// ParseScheduler returns the scheduler named name: "fcfs", "prio", "rr",
// "fc", "wfq", "rrp", or its number. An unknown name gives an error that
// matches sched.ErrKind.
func ParseScheduler(name string) (Scheduler, error) { return sched.ParseKind(name) }

// ValidateScheduler returns nil if k is a known scheduler, else an error
// that names the field Scheduler and matches sched.ErrKind.
func ValidateScheduler(k Scheduler) error {
	if !k.Valid() {
		return fmt.Errorf("sctp: Scheduler %d: %w", k, sched.ErrKind)
	}
	return nil
}

// FSNConvention is how the second I-DATA fragment of a message is numbered
// (RFC 8260 numbers it 1, Linux 0).
type FSNConvention = interleave.FSNConvention

// The FSN conventions.
const (
	// FSNAuto, the default, sends RFC 8260's numbering until the peer
	// shows Linux's, and reads both.
	FSNAuto = interleave.FSNAuto
	// FSNRFC sends and reads RFC 8260's numbering: the first fragment is
	// implicitly FSN 0 and the second carries FSN 1.
	FSNRFC = interleave.FSNRFC
	// FSNLinux sends and reads Linux's numbering, where the second
	// fragment carries FSN 0; Linux 6.1 to 6.12 needs it to reassemble
	// the first multi-fragment messages it receives.
	FSNLinux = interleave.FSNLinux
)
