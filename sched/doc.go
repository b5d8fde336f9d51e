// Package sched implements the SCTP stream schedulers of RFC 8260 section 3:
// first come first served, round robin, round robin per packet, priority,
// fair capacity and weighted fair queueing.
package sched
