package sctp

import (
	"fmt"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// PRPolicy is a partial reliability policy (PR-SCTP, RFC 3758 and RFC
// 7496): when the association may give up a message instead of delivering
// it. The numbering is Linux's SCTP_PR_SCTP_* (SCTP_PR_SCTP_NONE, TTL, RTX,
// PRIO).
type PRPolicy = api.PRPolicy

// The partial reliability policies.
const (
	PRNone = api.PRNone // reliable (the default)
	PRTTL  = api.PRTTL  // timed reliability (RFC 3758 section 4.1): PR.Value is the lifetime in milliseconds
	PRRtx  = api.PRRtx  // limited retransmissions (RFC 7496 section 3.1): PR.Value is the most retransmissions of each chunk
	PRPrio = api.PRPrio // priority (RFC 7496 section 3.2): PR.Value is the priority, 0 the most important
)

// ParsePRPolicy returns the policy named s (see PRPolicy.String).
func ParsePRPolicy(s string) (PRPolicy, error) {
	for p := PRNone; p <= PRPrio; p++ {
		if s == p.String() {
			return p, nil
		}
	}
	return PRNone, fmt.Errorf("sctp: unknown PR-SCTP policy %q (none, ttl, rtx, prio)", s)
}

// PR is the partial reliability of a message: a policy and its value (as
// Linux's struct sctp_prinfo). The zero PR is fully reliable. Lifetime,
// MaxRetransmits and Priority build the three policies.
//
// A message given up is reported in an EventSendFailed event (Event.PR
// names the policy, Event.MaybeDelivered says whether any of it was transmitted) and
// counted in Stats.PRAbandoned. A message is given up whole, never in part:
// if it was partly delivered to the peer's reader, the reader's next read
// reports RecvInfo.Aborted. Messages that never got onto the wire are given
// up on any association; those sent need PR-SCTP negotiated (both
// endpoints offer it: see Config.Extensions.DisablePartialReliability),
// which the receiver learns from a FORWARD-TSN chunk (I-FORWARD-TSN with
// interleaving); without it a sent message is delivered reliably.
type PR = api.PR

// Lifetime returns the timed-reliability policy: the message is given up
// once d has passed since it was written (RFC 3758 section 4.1), whether
// it is still queued or sent and not acknowledged. d is counted in whole
// milliseconds, rounded up, at most about 24 days.
func Lifetime(d time.Duration) PR {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return PR{Policy: PRTTL, Value: uint32(min(max(ms, 0), 1<<31-1))}
}

// MaxRetransmits returns the limited-retransmissions policy: the message
// is given up when one of its chunks would be retransmitted (by timer or
// fast retransmit) more than n times (RFC 7496 section 3.1); 0 sends it
// once, as WebRTC's maxRetransmits=0.
func MaxRetransmits(n int) PR {
	return PR{Policy: PRRtx, Value: uint32(min(max(n, 0), 1<<31-1))}
}

// Priority returns the priority policy (RFC 7496 section 3.2): when the
// send buffer is full, a message of priority p makes room by giving up
// queued, not yet sent messages of the priority policy with a higher
// value (less important), if that makes enough room. 0 is the most
// important. Reliable messages are never given up for it.
func Priority(p uint16) PR { return PR{Policy: PRPrio, Value: uint32(p)} }

// PartialReliability reports whether PR-SCTP was negotiated: both endpoints
// offered it (RFC 3758 section 4.2's "forward tsn supported"), so messages
// sent under a PR policy may be given up after they were sent. Without it
// only messages not yet sent are.
func (as *Association) PartialReliability() bool {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.PartialReliability()
}
