package transfer

// SendBudget is the bytes that the send buffers of all the associations of
// an endpoint may hold together, queued or unacknowledged, in
// the spirit of Linux's TCP small queues: with many busy associations the
// data written and not yet acknowledged stays about what one association
// holds, so that it is still in the CPU's caches when it is cut into
// packets, and the peers' socket queues stay short, instead of growing with
// the number of associations (and the round-trip time with them).
//
// Each sender sharing the budget charges what it holds (sendQueue.buffered).
// A sender with nothing buffered may always queue one message. Otherwise
// a message is accepted while the sender stays within its send buffer and
// within the larger of two bounds: its fair share, the limit divided among
// the senders holding bytes (at least an eighth of it, up to 64 KiB), and
// what the others leave of the limit less half a fair share for each of
// them. A lone sender may use the whole
// budget, and one busy sender among many that hold little (a server's idle
// or chatty associations) about half of it; greedy senders get a fair
// share each, whatever their order (a sender's writer is woken once half
// its share is free, so without the reserve the writer awake when others
// leave theirs unused would take it for good, and send more than the
// others over a shared bottleneck: TestSendBudgetBoundsEndpoint). Those
// that filled the budget first wait until the others are served. The
// total therefore stays under the limit plus one message per sender in
// steady state (with more than eight senders, under the least share per
// sender), and under twice that while senders above their share drain.
// No sender is visited to decide: each decision reads the counters here.
//
// A SendBudget is owned by its endpoint like the associations that share
// it: it is not safe for concurrent use.
type SendBudget struct {
	limit    int
	minShare int // the least fair share
	used     int // bytes held by the senders
	active   int // senders holding bytes
}

// maxMinShare bounds a SendBudget's least fair share: 64 KiB, about 45 full
// packets. With a smaller share each association sends, and its writer
// is woken, in batches too small to pay for the wake-up: the cost per
// byte grows as the share shrinks.
const maxMinShare = 64 << 10

// NewSendBudget returns a budget of limit bytes (at least one byte). The
// fair share of a sender is at least an eighth of the limit, up to 64 KiB:
// with many busy senders the total may exceed the limit up to that much
// each.
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

// bufLimit returns the bytes the sender may hold now (queued plus
// unacknowledged) before Queue refuses a message: its send buffer, within
// the endpoint's budget when it has one (see SendBudget). A sender with
// nothing buffered is not bound by it (Queue takes one message).
func (q *sendQueue) bufLimit() int {
	b := q.budget
	if b == nil {
		return q.sendBuffer()
	}
	if b.active <= 1 {
		// Alone, the sender may use the whole budget, and more when
		// autotuning grew its send buffer past the configured one for
		// the path's bandwidth-delay product (autotune.go).
		lim, own := b.limit, q.sendBuffer()
		if own > q.cfg.SendBuffer {
			lim = max(lim, own)
		}
		return min(own, lim)
	}
	// What the other senders leave of the budget.
	lim := b.limit - (b.used - q.buffered)
	if b.active > 1 {
		// Less half a fair share for each other sender: the others'
		// writers are woken once half their share is free, so that much
		// of theirs is often unused, and the writer awake then would
		// take it for good. Never less than the fair share itself:
		// those that filled the budget first wait instead.
		fair := max(b.limit/b.active, b.minShare)
		lim = max(lim-(b.active-1)*(fair/2), fair)
	}
	return min(q.sendBuffer(), lim)
}

// charge adds n bytes (negative: gives them back) to what the sender holds,
// and to its budget.
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

// leaveBudget gives back to the endpoint's send budget what the sender
// still charges to it, for an association that ends or restarts (its
// engine is dropped with whatever it held), and leaves the budget.
func (q *sendQueue) leaveBudget() {
	if b := q.budget; b != nil {
		b.used -= q.buffered
		if q.buffered > 0 {
			b.active--
		}
		q.budget = nil
	}
}
