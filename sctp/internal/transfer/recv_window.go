package transfer

import "github.com/usctp/usctp/interleave"

// The receive window: the receive buffer, the memory limit of held data,
// the last advertised a_rwnd, the endpoint budgets and autotuning.

// recvWindow is the receiver's window state.
type recvWindow struct {
	capacity  int    // receive buffer: a_rwnd when empty
	memLimit  int    // what held data may cost in memory (see receiver.charged)
	pdPoint   int    // held bytes that start partial delivery
	updateMin int    // window opening that warrants a window update
	lastAdv   int    // a_rwnd of the last SACK
	advRecv   uint64 // Stats.BytesReceived when lastAdv was sent

	budget   *Budget // the endpoint's memory budget (Config.Budget; nil: none)
	budgeted int     // what this receiver charged to budget
	// recvBudget (recvbudget.go): sharePeriod is the budget period in which
	// this receiver last received, shareCounted whether it counted as
	// active, shareBase and shareSeen BytesReceived at its start and at the
	// last DATA packet.
	recvBudget   *RecvBudget
	sharePeriod  uint32
	shareCounted bool
	shareBase    uint64
	shareSeen    uint64

	tune rcvTune // buffer autotuning (autotune.go)
}

// setCapacity sets the receive buffer for packets of up to mtu bytes.
func (w *recvWindow) setCapacity(n, mtu int) {
	w.capacity = n
	w.memLimit = memFactor * n
	w.pdPoint = max(n/2, 1)
	// A quarter of the buffer or an MTU, never over half the buffer (RFC
	// 1122 4.2.3.3): with 64 KB packets and a small buffer an MTU exceeds
	// the window, which would never open enough for an update.
	w.updateMin = min(max(n/4, mtu), max(n/2, 1))
}

// setRecvBuffer changes the receive buffer (at least one MTU); the
// endpoint keeps unaccepted associations on a small one. Data held beyond
// a smaller buffer stays; a larger buffer makes a window update due.
func (r *receiver) setRecvBuffer(n int) {
	n = max(n, r.cfg.MTU)
	if n == r.win.capacity {
		return
	}
	grew := n > r.win.capacity
	r.win.setCapacity(n, r.cfg.MTU)
	r.cfg.RecvBuffer = n
	if grew && r.window()-r.win.peerWindow(r.stats.BytesReceived) >= r.updateAt() {
		r.acks.dueNow = true
		r.stats.WindowUpdates++
	}
	r.checkPartial()
}

// setAdvertised is Engine.SetAdvertisedWindow.
func (r *receiver) setAdvertised(n int) { r.win.lastAdv, r.win.advRecv = n, r.stats.BytesReceived }

// peerWindow returns the window the peer sees now: the last a_rwnd less
// the bytes received since. A window update is due when ours exceeds it by
// updateAt, as Linux TCP compares with what is left of its announced
// window; otherwise a window that one packet filled and the reader emptied
// would wait for the delayed SACK on every round trip.
func (w *recvWindow) peerWindow(received uint64) int {
	return max(w.lastAdv-int(received-w.advRecv), 0)
}

// memFactor is the memory limit of held data over the receive buffer, as
// Linux doubles SO_RCVBUF. MTU-sized chunks stay below it before the
// window fills; tiny fragments hit it first, bounding memory, not bytes.
const memFactor = 2

// window returns the a_rwnd we would advertise now: the buffer room, or
// less as held data's memory cost nears the limit, at most half of what is
// left of an endpoint Budget or of our guaranteed share of it, and at most
// a RecvBudget share.
func (r *receiver) window() int {
	c := r.charged()
	w := min(r.win.capacity-r.held(), (r.win.memLimit-c)/memFactor)
	if r.win.budget != nil {
		w = min(w, r.win.budget.roomFor(c)/memFactor)
	}
	if s := r.win.shareCap(); s > 0 {
		w = min(w, s)
	}
	return max(w, 0)
}

// chunkCost is what a chunk of n user bytes costs held.
func chunkCost(n int) int { return interleave.FragCost(n) }

// full reports whether n user bytes do not fit the buffer or memory limit.
func (r *receiver) full(n int) bool {
	// A chunk may make its stream's record charged too (SideCost).
	cost := chunkCost(n) + interleave.SideCost
	c := r.charged()
	return r.held()+n > r.win.capacity || c+cost > r.win.memLimit ||
		(r.win.budget != nil && cost > r.win.budget.roomFor(c))
}

// advertise returns the a_rwnd for a SACK, avoiding receiver silly window
// syndrome (6.2, RFC 1122): a window below both a full-sized chunk and half
// the buffer is advertised as 0.
func (r *receiver) advertise() int {
	w := r.window()
	if w < min(r.cfg.MTU, r.effCapacity()/2) {
		return 0
	}
	return w
}

// effCapacity returns the receive buffer, or the smaller receive budget
// share, or the smaller window the endpoint Budget allows with nothing
// held: what the SWS and window update rules are measured against, so a
// window the budget holds below a quarter of the buffer still opens with
// window updates.
func (r *receiver) effCapacity() int {
	n := r.win.capacity
	if s := r.win.shareCap(); s > 0 && s < n {
		n = s
	}
	if b := r.win.budget; b != nil {
		c := r.charged()
		n = min(n, max((c+b.roomFor(c))/memFactor, r.cfg.MTU))
	}
	return n
}

// shareBlocked reports whether a receive budget share binds the window and
// the peer's view of it is below a full chunk while ours is open: one
// packet can fill a share, so waiting for a second would stall.
func (r *receiver) shareBlocked() bool {
	n := r.effCapacity()
	if n == r.win.capacity {
		return false
	}
	sws := min(r.cfg.MTU, n/2)
	return r.win.peerWindow(r.stats.BytesReceived) < sws && r.window() >= sws
}

// updateAt returns the window opening that warrants a window update,
// relative to effCapacity.
func (r *receiver) updateAt() int {
	n := r.effCapacity()
	if n == r.win.capacity {
		return r.win.updateMin
	}
	return min(max(n/4, r.cfg.MTU), max(n/2, 1))
}
