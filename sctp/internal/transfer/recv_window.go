package transfer

import "github.com/usctp/usctp/interleave"

// The receive window: the receive buffer and the memory limit of the data
// held, what the last SACK advertised, and the endpoint's budgets the
// window shares (Budget in budget.go, RecvBudget in recvbudget.go), with
// autotuning of the buffer (autotune.go).

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
	// recvBudget, when set, is the endpoint's receive budget: while
	// other associations receive too, the window and held data stay
	// within a share of it (recvbudget.go). sharePeriod is the budget's
	// period in which this receiver last received, shareCounted whether
	// it was counted as active in it, shareBase and shareSeen
	// Stats.BytesReceived at its start and at the last packet with DATA.
	recvBudget   *RecvBudget
	sharePeriod  uint32
	shareCounted bool
	shareBase    uint64
	shareSeen    uint64

	tune rcvTune // buffer autotuning (autotune.go)
}

// setCapacity sets the receive buffer and what follows from it, for
// packets of up to mtu bytes.
func (w *recvWindow) setCapacity(n, mtu int) {
	w.capacity = n
	w.memLimit = memFactor * n
	w.pdPoint = max(n/2, 1)
	// A quarter of the buffer or an MTU, but never over half the buffer
	// (RFC 1122 4.2.3.3's min(buffer/2, MSS)): with 64 KB packets and a
	// small buffer an MTU is more than the whole window, which would then
	// never open enough for a window update.
	w.updateMin = min(max(n/4, mtu), max(n/2, 1))
}

// setRecvBuffer changes the receive buffer of a live association (at least
// one MTU): the endpoint keeps the associations not accepted yet on a small
// one, so that a full accept queue of peers sending data costs little, and
// gives them the configured one when they are accepted. Data held beyond a
// smaller buffer stays (nothing accepted is dropped); the window is closed
// until it drains. A larger buffer makes a window update due.
func (r *receiver) setRecvBuffer(n int) {
	n = max(n, r.cfg.MTU)
	if n == r.win.capacity {
		return
	}
	grew := n > r.win.capacity
	r.win.setCapacity(n, r.cfg.MTU)
	r.cfg.RecvBuffer = n
	if grew && r.window()-r.win.peerWindow(r.stats.BytesReceived) >= r.win.updateAt(r.cfg.MTU) {
		r.acks.dueNow = true
		r.stats.WindowUpdates++
	}
	r.checkPartial()
}

// setAdvertised tells the receiver the a_rwnd the peer was last told
// outside its SACKs (the INIT or INIT ACK that announced a window other
// than the receive buffer it was made with), so that a window opening
// past it makes a window update due.
func (r *receiver) setAdvertised(n int) { r.win.lastAdv, r.win.advRecv = n, r.stats.BytesReceived }

// peerWindow returns the window the peer sees now, with received the
// bytes received so far (Stats.BytesReceived): the last a_rwnd less the
// bytes received since (what the peer sent into it, as far as we know). A window update is due when our window exceeds it by updateAt,
// as Linux TCP compares the new window with what is left of the one it
// announced: compared with the last a_rwnd alone, a window that a single
// packet filled and the reader emptied (a small buffer, or a receive
// budget's share, next to 64 KB packets) would wait for the delayed SACK
// timer on every round trip.
func (w *recvWindow) peerWindow(received uint64) int {
	return max(w.lastAdv-int(received-w.advRecv), 0)
}

// memFactor is the memory limit of held data over the receive buffer: what
// Linux allows by doubling SO_RCVBUF for the overhead of its buffers. Data
// that arrives in chunks of a reasonable size (a 1452-byte fragment costs
// 1616 bytes) stays below it before the window is full; tiny fragments
// (a 1-byte one costs 96 bytes) reach it first, and then it bounds the
// memory, not the user bytes.
const memFactor = 2

// window returns the receive window we would advertise now (a_rwnd): the
// room left in the receive buffer, or less when what the held data costs
// in memory (Charged) nears the memory limit, so that a peer sending tiny
// fragments sees the window close with the memory it really uses.
//
// With an endpoint Budget it advertises at most half of what is left of
// the budget too, so that the windows of every association shrink as the
// endpoint's memory fills; with a RecvBudget shared with other receiving
// associations, at most its share.
func (r *receiver) window() int {
	w := min(r.win.capacity-r.held(), (r.win.memLimit-r.charged())/memFactor)
	if r.win.budget != nil {
		w = min(w, r.win.budget.room()/memFactor)
	}
	if s := r.win.shareCap(); s > 0 {
		w = min(w, s)
	}
	return max(w, 0)
}

// chunkCost is what a chunk of n user bytes costs held.
func chunkCost(n int) int { return interleave.FragCost(n) }

// full reports whether a chunk of n user bytes does not fit: in the
// receive buffer, or within the memory limit.
func (r *receiver) full(n int) bool {
	return r.held()+n > r.win.capacity || r.charged()+chunkCost(n) > r.win.memLimit ||
		(r.win.budget != nil && chunkCost(n) > r.win.budget.room())
}

// advertise returns the a_rwnd to put in a SACK. 6.2: "The receiver MUST
// also have an algorithm for advertising its receive window to avoid
// receiver silly window syndrome (SWS), as described in [RFC1122]": a
// window smaller than both a full-sized chunk and half the buffer is
// advertised as 0, so the peer does not dribble small chunks into it.
func (r *receiver) advertise() int {
	w := r.window()
	if w < min(r.cfg.MTU, r.win.effCapacity()/2) {
		return 0
	}
	return w
}

// effCapacity returns the receive buffer, or the receive budget's share
// when that is smaller: the window the SWS and window update rules are
// measured against.
func (w *recvWindow) effCapacity() int {
	if s := w.shareCap(); s > 0 && s < w.capacity {
		return s
	}
	return w.capacity
}

// shareBlocked reports whether a receive budget's share binds the window
// and the peer, as far as we know, has used it up to less than a full
// chunk while ours is open again: one packet can fill a share (64 KB
// packets, 16 KiB shares), so the rule of a SACK every second packet would
// leave it waiting for the delayed SACK timer.
func (r *receiver) shareBlocked() bool {
	n := r.win.effCapacity()
	if n == r.win.capacity {
		return false
	}
	sws := min(r.cfg.MTU, n/2)
	return r.win.peerWindow(r.stats.BytesReceived) < sws && r.window() >= sws
}

// updateAt returns the window opening that warrants a window update, for
// packets of up to mtu bytes: updateMin, or the same rule applied to the
// receive budget's share when that is smaller than the buffer (a window
// bound by a share never opens by a quarter of the buffer).
func (w *recvWindow) updateAt(mtu int) int {
	n := w.effCapacity()
	if n == w.capacity {
		return w.updateMin
	}
	return min(max(n/4, mtu), max(n/2, 1))
}
