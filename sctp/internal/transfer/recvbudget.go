package transfer

import "time"

// RecvBudget is the receive window the associations of an endpoint
// advertise together while several receive: the counterpart of
// SendBudget. Without it, many busy associations each have a window in
// flight to one socket, whose queue overflows, and the data waits until it
// is out of the CPU's caches.
//
// Receivers that got at least minShare bytes in the current or previous
// period (recvBudgetPeriod) are active; while more than one is, each
// advertises at most its share, the limit divided among them (at least
// minShare). A lone receiver is not bound. No receiver is visited: each
// decision reads the counters here. Under-counting only loosens the bound.
//
// A RecvBudget is owned by its endpoint like the associations sharing it:
// it is not safe for concurrent use.
type RecvBudget struct {
	limit    int
	minShare int
	period   uint32    // the current period, counted from 1
	end      time.Time // when it ends
	cur      int       // receivers that noted data in the current period
	prev     int       // and in the previous one
}

// recvBudgetPeriod is long enough (several LAN round trips) that a busy
// association is seen in every period.
const recvBudgetPeriod = 50 * time.Millisecond

// minRecvShare caps the least share: 16 KiB, eleven 1452-byte chunks;
// smaller shares would allow one packet per round trip.
const minRecvShare = 16 << 10

// NewRecvBudget returns a receive budget of limit bytes (at least one). A
// share is at least min(16 KiB, limit/8), so with many active receivers
// the total may exceed the limit.
func NewRecvBudget(limit int) *RecvBudget {
	limit = max(limit, 1)
	return &RecvBudget{limit: limit, minShare: min(minRecvShare, limit/8)}
}

// Limit returns the budget's limit in bytes.
func (b *RecvBudget) Limit() int { return b.limit }

// Active returns the receivers that noted data in the current or the
// previous period.
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

// note counts receiver window w, with recv bytes received, as active once
// it received minShare bytes in the current period.
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
		// Count from the bytes received up to the previous packet.
		w.sharePeriod, w.shareBase, w.shareCounted = b.period, w.shareSeen, false
	}
	w.shareSeen = recv
	if !w.shareCounted && recv-w.shareBase >= uint64(b.minShare) {
		w.shareCounted = true
		b.cur++
	}
}

// shareCap returns the receive budget share, or 0 for none.
func (w *recvWindow) shareCap() int {
	if w.recvBudget == nil {
		return 0
	}
	return w.recvBudget.Share()
}
