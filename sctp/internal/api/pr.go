package api

import (
	"fmt"
	"time"
)

// PRPolicy is a partial reliability policy (PR-SCTP, RFC 3758 and RFC
// 7496): when the association may give up a message instead of delivering
// it. The numbering is Linux's SCTP_PR_SCTP_* (SCTP_PR_SCTP_NONE, TTL, RTX,
// PRIO).
type PRPolicy uint8

// The partial reliability policies.
const (
	PRNone PRPolicy = iota // reliable (the default)
	PRTTL                  // timed reliability (RFC 3758 section 4.1): PR.Value is the lifetime in milliseconds
	PRRtx                  // limited retransmissions (RFC 7496 section 3.1): PR.Value is the most retransmissions of each chunk
	PRPrio                 // priority (RFC 7496 section 3.2): PR.Value is the priority, 0 the most important
)

var prNames = [...]string{"none", "ttl", "rtx", "prio"}

// String returns the policy's name as sctpcat's -pr-policy flag takes it:
// none, ttl, rtx or prio.
func (p PRPolicy) String() string {
	if int(p) < len(prNames) {
		return prNames[p]
	}
	return fmt.Sprintf("PRPolicy(%d)", uint8(p))
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
// endpoints offer it: see Config.Extensions.DisablePartialReliability), which the
// receiver learns from a FORWARD-TSN chunk (I-FORWARD-TSN with
// interleaving); without it a sent message is delivered reliably.
type PR struct {
	Policy PRPolicy
	Value  uint32
}

// String formats the policy and value, for example "ttl 100ms".
func (p PR) String() string {
	switch p.Policy {
	case PRNone:
		return "reliable"
	case PRTTL:
		return fmt.Sprintf("ttl %v", time.Duration(p.Value)*time.Millisecond)
	}
	return fmt.Sprintf("%v %d", p.Policy, p.Value)
}
