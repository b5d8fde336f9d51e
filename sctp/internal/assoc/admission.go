package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/ratelimit"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// What an endpoint lets hostile peers cost it: a memory budget
// shared by the received data of all its associations, bounds on the
// associations it holds and on those not accepted yet, and a rate limit on
// the packets it answers without an association. The rate limit is by
// pressure: a source is held to its burst (twice InitRate) and InitRate
// answers a second only once the reserve (InitReserve) that lets one host
// open many associations at once is spent, which answers to forged
// addresses do and answers confirmed by a COOKIE ECHO do not.

// pendingRecvBuffer is the receive buffer of an association not accepted
// yet (Config.Limits.Backlog > 0): a full accept queue of peers sending data
// costs little; Accept gives it the configured one.
const pendingRecvBuffer = 64 << 10

// setupLimits makes the endpoint's budget from its configuration; the
// rate limiter is made when first needed (newLimiter).
func (ep *Endpoint) setupLimits() {
	if ep.cfg.MemoryBudget >= 0 {
		ep.budget = transfer.NewBudget(ep.cfg.MemoryBudget)
	}
	if ep.cfg.SendBudget > 0 {
		ep.sendBudget = transfer.NewSendBudget(ep.cfg.SendBudget)
	}
	if ep.cfg.RecvBudget > 0 {
		ep.recvBudget = transfer.NewRecvBudget(ep.cfg.RecvBudget)
	}
}

// newLimiter makes the rate limiter of out-of-the-blue answers. Its table
// of sources is some 200 KB: made on the first packet to answer, so that
// the endpoint of each dialed association does not carry one for nothing.
func (ep *Endpoint) newLimiter() {
	c := ratelimit.Config{Reserve: ep.cfg.InitReserve}
	if r := ep.cfg.InitRate; r > 0 {
		c.Rate, c.Burst = r, 2*r
	}
	ep.limiter = ratelimit.New(c)
}

// answerConfirmed tells the rate limiter that the COOKIE ECHO p, which
// created an association, confirms an answer: the INIT ACK reached the
// host at p's source, which is no reflector's victim.
func (ep *Endpoint) answerConfirmed(now time.Time, p *inPacket) {
	if ep.limiter != nil {
		ep.limiter.Confirm(now, p.from.Addr())
	}
}

// mayAnswer reports whether the rate limit lets the endpoint answer the
// out-of-the-blue packet p; a refusal is counted and the packet dropped.
func (ep *Endpoint) mayAnswer(now time.Time, p *inPacket) bool {
	if ep.cfg.InitRate < 0 {
		return true
	}
	if ep.limiter == nil {
		ep.newLimiter()
	}
	if ep.limiter.Allow(now, p.from.Addr()) {
		return true
	}
	ep.stats.RateLimited++
	return false
}

// admit decides whether a valid COOKIE ECHO from p may create an
// association (c is its cookie): not when the endpoint holds
// MaxAssociations, or its memory budget is nearly spent (both answered
// with an ABORT "Out of Resource"), nor when Backlog associations wait to
// be accepted (dropped silently: the peer retransmits its COOKIE ECHO and
// may find room then).
func (ep *Endpoint) admit(p *inPacket, c *cookie) bool {
	if max := ep.cfg.MaxAssociations; max > 0 && len(ep.assocs) >= max {
		ep.stats.AssocsRefused++
		ep.refuseOutOfResource(p, c)
		return false
	}
	if ep.budget != nil && !ep.budget.Admit() {
		ep.stats.MemoryRefused++
		ep.refuseOutOfResource(p, c)
		return false
	}
	if b := ep.cfg.Backlog; b > 0 && ep.pending >= b {
		ep.stats.BacklogDropped++
		return false
	}
	return true
}

// refuseOutOfResource answers a COOKIE ECHO the endpoint has no resources
// for. Section 5.1: "If an endpoint receives an INIT, INIT ACK, or COOKIE
// ECHO chunk but decides not to establish the new association due to
// missing mandatory parameters in the received INIT or INIT ACK chunk,
// invalid parameter values, or lack of local resources, it SHOULD respond
// with an ABORT chunk."
func (ep *Endpoint) refuseOutOfResource(p *inPacket, c *cookie) {
	cause := appendCause(ep.scratch[:0], chunk.CauseOutOfResource, nil)
	ep.scratch = cause[:0]
	ep.replyAbort(p.from, p.dstPort, p.srcPort, c.peerTag, false, cause)
}

// startPending marks a, being created from a COOKIE ECHO, as not accepted
// yet: until Accept its engine has a small receive buffer (pendingBuffer),
// also after a restart of the peer.
func (ep *Endpoint) startPending(a *Assoc) {
	if ep.cfg.Backlog <= 0 {
		return
	}
	a.pendingAccept = true
	ep.pending++
}

// pendingBuffer puts the new engine of an association not accepted yet on
// pendingRecvBuffer (when smaller than the configured buffer), the a_rwnd
// our INIT ACK announced (initAckRwnd): the engine knows what the peer was
// told, and Accept sends a window update at once.
func (a *Assoc) pendingBuffer() {
	if a.pendingAccept && a.data.eng != nil {
		n := min(pendingRecvBuffer, a.ep.cfg.RecvBuffer)
		a.data.eng.SetRecvBuffer(n)
		a.data.eng.SetAdvertisedWindow(n)
	}
}

// initAckRwnd returns the a_rwnd our INIT ACK announces: the window the
// association its COOKIE ECHO creates will have. With a backlog
// (Config.Limits.Backlog > 0) that association is not accepted yet and runs on
// pendingRecvBuffer until Accept; announcing the configured buffer would
// invite the peer to send more than it will take.
func (ep *Endpoint) initAckRwnd() uint32 {
	if ep.cfg.Backlog > 0 {
		return uint32(min(pendingRecvBuffer, ep.cfg.RecvBuffer))
	}
	return ep.cfg.rwnd()
}

// Accept tells the core that the user took the association (the shell's
// Accept returned it): it no longer counts against Config.Limits.Backlog, and
// gets the configured receive buffer, a window update being sent at once
// when the window grew.
func (a *Assoc) Accept(now time.Time) {
	if !a.pendingAccept {
		return
	}
	a.pendingAccept = false
	a.ep.pending--
	if e := a.data.eng; e != nil && !a.closed {
		e.SetRecvBuffer(a.ep.cfg.RecvBuffer)
		a.ep.markReady(a) // the window update, when due
	}
}

// leave undoes, as a leaves the endpoint's table, what it counted against
// the endpoint's limits.
func (ep *Endpoint) leave(a *Assoc) {
	if a.pendingAccept {
		a.pendingAccept = false
		ep.pending--
	}
}
