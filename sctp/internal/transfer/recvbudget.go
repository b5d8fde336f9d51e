package transfer

import "time"

// RecvBudget is the receive window that the associations of an endpoint
// advertise together while several of them receive: the
// receiving counterpart of SendBudget. Each association's receive buffer
// (grown by autotuning up to RecvBufferMax) bounds what its own peer may
// have in flight; without a bound on the sum, many associations busy at
// once have a window each in flight to one socket: the endpoint's socket
// queue fills and drops datagrams, the peers retransmit, and the data
// waits so long, in the socket and then in the associations' queues,
// that it is out of the CPU's caches when it is copied out.
//
// Every receiver sharing the budget notes the DATA it receives; those that
// received at least minShare bytes in the current or the previous period
// (recvBudgetPeriod) are the active ones, so that chatty associations
// (a small message now and then) do not count. While more than one is
// active, each advertises at most its share of the limit, the limit
// divided among the active ones (at least minShare): the a_rwnd bounds
// what its peer may have in flight, so the data in flight to the endpoint
// stays within the limit (what each holds unread stays within its own
// buffer). A lone receiver is not bound by it (its own buffer and
// autotuning rule apply); an association that goes idle stops
// counting within two periods. No receiver is visited: each decision
// reads the counters here. A receiver whose share binds acknowledges at
// once a packet that left its peer less than a full chunk of window
// (receiver.shareBlocked), since one 64 KB packet may fill a share.
//
// Receivers that under-count (a peer that sends less than minShare bytes
// in a period) only loosen the bound toward what each buffer allows.
//
// A RecvBudget is owned by its endpoint like the associations that share
// it: it is not safe for concurrent use.
type RecvBudget struct {
	limit    int
	minShare int
	period   uint32    // the current period, counted from 1
	end      time.Time // when it ends
	cur      int       // receivers that noted data in the current period
	prev     int       // and in the previous one
}

// recvBudgetPeriod is the period over which a receiver that got DATA
// counts as active: several round trips over loopback or a LAN, so that
// a busy association is seen in every period.
const recvBudgetPeriod = 50 * time.Millisecond

// minRecvShare bounds a RecvBudget's least share from above: 16 KiB,
// eleven 1452-byte chunks. Smaller shares would make every association
// send one packet per round trip.
const minRecvShare = 16 << 10

// NewRecvBudget returns a receive budget of limit bytes (at least one
// byte). A receiver's share is at least an eighth of the limit, up to
// 16 KiB: with more active receivers than that allows, the total may exceed
// the limit up to that much each.
func NewRecvBudget(limit int) *RecvBudget {
	limit = max(limit, 1)
	return &RecvBudget{limit: limit, minShare: min(minRecvShare, limit/8)}
}

// Limit returns the budget's limit in bytes.
func (b *RecvBudget) Limit() int { return b.limit }

// Active returns the receivers counted as active: those that noted data in
// the current or the previous period.
func (b *RecvBudget) Active() int { return max(b.cur, b.prev) }

// Share returns what each active receiver may advertise and hold now, or 0
// when at most one is active (no bound).
func (b *RecvBudget) Share() int {
	n := b.Active()
	if n <= 1 {
		return 0
	}
	return max(b.limit/n, b.minShare)
}

// note counts the receiver of window w, which has received recv bytes
// (Stats.BytesReceived), as active at now once it received minShare bytes
// in the current period.
func (b *RecvBudget) note(w *recvWindow, recv uint64, now time.Time) {
	if b.period == 0 || now.After(b.end) {
		if b.period != 0 && now.Sub(b.end) < recvBudgetPeriod {
			b.prev = b.cur // the period that ended is the previous one
		} else {
			b.prev = 0 // a whole period passed with no data at all
		}
		b.cur = 0
		b.period++
		b.end = now.Add(recvBudgetPeriod)
	}
	if w.sharePeriod != b.period {
		// The period started before this packet: count from the
		// bytes received up to the previous one.
		w.sharePeriod, w.shareBase, w.shareCounted = b.period, w.shareSeen, false
	}
	w.shareSeen = recv
	if !w.shareCounted && recv-w.shareBase >= uint64(b.minShare) {
		w.shareCounted = true
		b.cur++
	}
}

// shareCap returns the share the receiver's window and held data stay
// within, or 0 for none.
func (w *recvWindow) shareCap() int {
	if w.recvBudget == nil {
		return 0
	}
	return w.recvBudget.Share()
}
