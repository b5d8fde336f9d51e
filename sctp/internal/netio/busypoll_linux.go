//go:build linux

package netio

import (
	"sync/atomic"
	"time"
)

// busyPoll decides whether a read that finds the socket empty polls it
// for a while before it sleeps, as Linux's SO_BUSY_POLL does in the
// kernel: waking a sleeping reader (netpoller, scheduler, an idle CPU) can
// take longer than a request/response round trip over loopback.
//
// Polling is adaptive: a read polls only when the previous wait for data
// ended within the budget, when polling would have paid off, and brought
// less than pollBytes. An idle socket, or one whose packets come further
// apart than the budget, never polls, so the CPU cost is bounded by the
// budget per packet train and spent only where it buys latency. A read
// that brought a large batch (a bulk stream) does not poll either: the
// wake-up it saves is small beside the batch's processing, while the poll
// takes CPU time the sending side of a busy host needs.
type busyPoll struct {
	budget  time.Duration // how long a read polls; 0: never
	hot     bool          // the last wait for data ended within budget
	waiting bool          // the current read found the socket empty
	start   time.Time     // when it did
	gen     uint32        // kick's value when the read began
	kick    atomic.Uint32 // bumped by interrupt
}

// interrupt ends a poll in progress: the socket is closing or its read
// deadline changed, which the netpoller would see on a sleeping read.
func (p *busyPoll) interrupt() { p.kick.Add(1) }

// kicked reports whether interrupt was called since the read began.
func (p *busyPoll) kicked() bool { return p.kick.Load() != p.gen }

// reset starts a read.
func (p *busyPoll) reset() { p.waiting, p.gen = false, p.kick.Load() }

// empty is called when the current read finds the socket empty. The
// first time in a read it returns the time until which to poll, or the
// zero time not to; later calls (the netpoller woke the read, and
// another reader took the data first) return the zero time.
func (p *busyPoll) empty() time.Time {
	if p.waiting || p.budget <= 0 {
		return time.Time{}
	}
	p.waiting, p.start = true, time.Now()
	if !p.hot {
		return time.Time{}
	}
	return p.start.Add(p.budget)
}

// pollBytes is the most a read may bring for the next read to poll: a
// few requests or responses, not a batch of bulk data.
const pollBytes = 16 << 10

// arrived is called when the current read returns data, bytes in all: it
// measures how long the read waited, polling and sleeping, and decides
// whether the next read polls.
func (p *busyPoll) arrived(bytes int) {
	if bytes >= pollBytes {
		p.hot = false
	} else if p.waiting {
		p.hot = time.Since(p.start) <= p.budget
	}
}
