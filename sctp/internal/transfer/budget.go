package transfer

import (
	"sync/atomic"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Budget is the memory that the received data of all the associations of
// an endpoint may hold together, charged as each receiver charges its own
// (receiver.charged). As it fills, every receiver advertises at most half
// of what is left, so windows shrink together before anything is dropped;
// a chunk that would exceed it is handled as a chunk beyond a full window
// (RFC 9260 section 6.2). Admit tells the endpoint whether a new
// association may start. An association that ends calls
// Engine.ReleaseBudgets. A Budget is safe for concurrent use.
//
// Every association gets a guaranteed minimum: the last eighth of the
// budget (the part Admit keeps for the associations running) is reserved
// for receivers holding less than minShare (256 KiB, or a 64th of a
// smaller budget), so associations that filled the budget first (peers
// that never let their data be read) leave one that needs little a window
// of half that; above its minimum each receiver advertises at most half
// of what is left outside the reserve. The reserve holds eight minimums:
// beyond eight receivers below theirs at once, they share what is left of
// it. The receivers together never hold more than the limit. A lone
// receiver may fill the budget: there is no one to be fair to.
type Budget struct {
	limit   int64
	used    atomic.Int64
	holders atomic.Int64 // receivers that charged something
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

// roomFor returns what a receiver that charged charged may still take
// (see Budget): what is left outside the reserve, or of its minimum if
// more, never more than is left.
func (b *Budget) roomFor(charged int) int {
	room := b.room()
	n := b.holders.Load()
	if charged == 0 {
		n++ // counting itself
	}
	if n <= 1 {
		return room
	}
	outside := room - int(b.limit/admitDivisor)
	if m := b.minShare(); charged < m {
		return min(room, max(m-charged, outside))
	}
	return max(outside, 0)
}

// minShare returns the charge a receiver may reach from the reserve.
func (b *Budget) minShare() int { return int(min(maxRecvMinimum, b.limit/64)) }

// maxRecvMinimum bounds minShare: a window of 128 KiB, enough for a LAN.
const maxRecvMinimum = 256 << 10

// admitDivisor: Admit needs this share of the budget left, so that the
// associations already running keep room to make progress; it is also the
// reserve of minimum shares (see Budget).
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
		b := r.win.budget
		switch {
		case r.win.budgeted == 0:
			b.holders.Add(1)
		case c == 0:
			b.holders.Add(-1)
		}
		b.charge(c - r.win.budgeted)
		r.win.budgeted = c
	}
}

// release gives back everything the receiver charged, for an association
// that ended; reading what it still holds charges nothing.
func (r *receiver) release() {
	if r.win.budget != nil {
		if r.win.budgeted != 0 {
			r.win.budget.holders.Add(-1)
		}
		r.win.budget.charge(-r.win.budgeted)
		r.win.budgeted = 0
		r.win.budget = nil
	}
}
