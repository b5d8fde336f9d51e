package transfer

import (
	"sync/atomic"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Budget is the memory that the data received by all the associations of
// an endpoint may hold together, charged as each receiver charges its own
// (receiver.charged: fragment records and buffers, not user bytes). Each
// association's receive buffer bounds what one peer can make it hold
// (twice the buffer); the budget bounds the sum, whatever the number of
// associations, including those not accepted yet:
//
//   - as it fills, every receiver sharing it advertises at most half of
//     what is left (the same memory factor as its own limit), so windows
//     shrink together and peers slow down before anything is dropped;
//   - a chunk that would take it past its limit is handled as a chunk
//     beyond a full window (RFC 9260 section 6.2: dropped, or room made by
//     dropping the highest TSN held for reordering);
//   - Admit tells the endpoint whether a new association may start, and
//     counts the refusals (the endpoint answers the COOKIE ECHO with an
//     ABORT carrying "Out of Resource", RFC 9260 section 3.3.10.4).
//
// The endpoint makes one Budget and gives it to every association's
// Config.Budget; an association that ends calls Engine.ReleaseBudgets. A Budget
// is safe for concurrent use (associations of one endpoint may be driven
// from several goroutines).
type Budget struct {
	limit   int64
	used    atomic.Int64
	refused atomic.Uint64
}

// NewBudget returns a budget of limit bytes (api.DefaultMemoryBudget if limit is 0
// or less).
func NewBudget(limit int) *Budget {
	if limit <= 0 {
		limit = api.DefaultMemoryBudget
	}
	return &Budget{limit: int64(limit)}
}

// Limit returns the budget's limit in bytes.
func (b *Budget) Limit() int { return int(b.limit) }

// Used returns the bytes charged to the budget now.
func (b *Budget) Used() int { return int(b.used.Load()) }

// room returns what is left, 0 when the budget is spent.
func (b *Budget) room() int { return int(max(b.limit-b.used.Load(), 0)) }

// admitDivisor sets the share of the budget that must be left for Admit
// to let a new association start: an eighth, so that those already
// running keep room to make progress.
const admitDivisor = 8

// Admit reports whether a new association may start: at least an eighth
// of the budget is left. A refusal is counted (Refused).
func (b *Budget) Admit() bool {
	if b.room() >= int(b.limit/admitDivisor) {
		return true
	}
	b.refused.Add(1)
	return false
}

// Refused returns the associations Admit refused.
func (b *Budget) Refused() uint64 { return b.refused.Load() }

// charge adds delta bytes (negative: gives them back).
func (b *Budget) charge(delta int) { b.used.Add(int64(delta)) }

// syncBudget brings what the receiver charged to its budget up to date.
func (r *receiver) syncBudget() {
	if r.win.budget == nil {
		return
	}
	if c := r.charged(); c != r.win.budgeted {
		r.win.budget.charge(c - r.win.budgeted)
		r.win.budgeted = c
	}
}

// release gives back to the endpoint's budget everything the receiver
// charged to it, for an association that ended: its held data is garbage
// from then on (the fragments go back to the pools with the engine). The
// receiver leaves the budget: reading what it still holds charges nothing.
func (r *receiver) release() {
	if r.win.budget != nil {
		r.win.budget.charge(-r.win.budgeted)
		r.win.budgeted = 0
		r.win.budget = nil
	}
}
