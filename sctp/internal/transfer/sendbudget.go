package transfer

// SendBudget is the bytes the send buffers of all the associations of an
// endpoint may hold together, queued or unacknowledged, after Linux's TCP
// small queues: with many busy associations the data written and not
// acknowledged stays about what one holds, so it is still in the CPU's
// caches when cut into packets and the peers' socket queues stay short.
//
// A sender with nothing buffered may always queue one message. Otherwise a
// message is accepted within the send buffer and within the larger of its
// fair share (the limit divided among the senders holding bytes, at least
// minShare) and what the others leave of the limit less half a fair share
// each. A lone sender may use the whole budget; greedy senders get a fair
// share each whatever their order (without the reserve the writer awake
// when others leave half their share unused would take it for good). The
// total stays under the limit plus one message per sender in steady state,
// twice that while senders above their share drain. No sender is visited:
// each decision reads the counters here.
//
// A SendBudget is owned by its endpoint like the associations sharing it:
// it is not safe for concurrent use.
type SendBudget struct {
	limit    int
	minShare int // the least fair share
	used     int // bytes held by the senders
	active   int // senders holding bytes
}

// maxMinShare caps the least fair share: 64 KiB, about 45 full packets;
// smaller batches do not pay for a writer's wake-up.
const maxMinShare = 64 << 10

// NewSendBudget returns a budget of limit bytes (at least one). A fair
// share is at least min(64 KiB, limit/8), so with many busy senders the
// total may exceed the limit.
func NewSendBudget(limit int) *SendBudget {
	limit = max(limit, 1)
	return &SendBudget{limit: limit, minShare: min(maxMinShare, limit/8)}
}

// Limit returns the budget's limit in bytes.
func (b *SendBudget) Limit() int { return b.limit }

// Used returns the bytes the senders sharing the budget hold now.
func (b *SendBudget) Used() int { return b.used }

// Active returns the number of senders holding bytes.
func (b *SendBudget) Active() int { return b.active }

// bufLimit returns the bytes the sender may hold before Queue refuses a
// message: its send buffer, within the endpoint's budget (see SendBudget).
func (q *sendQueue) bufLimit() int {
	b := q.budget
	if b == nil {
		return q.sendBuffer()
	}
	if b.active <= 1 {
		// Alone, the whole budget, or more when autotuning grew the buffer.
		lim, own := b.limit, q.sendBuffer()
		if own > q.cfg.SendBuffer {
			lim = max(lim, own)
		}
		return min(own, lim)
	}
	// What the other senders leave of the budget.
	lim := b.limit - (b.used - q.buffered)
	if b.active > 1 {
		// Less half a fair share per other sender (see SendBudget), never
		// less than the fair share itself.
		fair := max(b.limit/b.active, b.minShare)
		lim = max(lim-(b.active-1)*(fair/2), fair)
	}
	return min(q.sendBuffer(), lim)
}

// charge adds n bytes (negative: gives them back) to the sender and its
// budget.
func (q *sendQueue) charge(n int) {
	was := q.buffered
	q.buffered += n
	if b := q.budget; b != nil {
		b.used += n
		switch {
		case was == 0 && q.buffered > 0:
			b.active++
		case was > 0 && q.buffered == 0:
			b.active--
		}
	}
}

// leaveBudget gives back what the sender charges to its budget and leaves
// it, for an association that ends or restarts.
func (q *sendQueue) leaveBudget() {
	if b := q.budget; b != nil {
		b.used -= q.buffered
		if q.buffered > 0 {
			b.active--
		}
		q.budget = nil
	}
}
