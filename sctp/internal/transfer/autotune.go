package transfer

import "time"

// Buffer autotuning, in the spirit of Linux TCP's (tcp_rcv_space_adjust
// and tcp_sndbuf_expand): with Config.Buffers.RecvBufferMax and SendBufferMax set
// above RecvBuffer and SendBuffer, an association's buffers grow by
// themselves to what its path needs, the bandwidth-delay product, and no
// further, so that one long fat path does not need hand-set buffers and
// a slow one does not hold megabytes.
//
//   - Receive: the receiver estimates the round-trip time as the time it
//     takes to receive one advertised window (Linux's receive RTT
//     estimate, which needs no data of its own in flight; the smallest
//     sample wins) and counts the bytes the application read. When the
//     application read more in one such round trip than in any before,
//     the buffer grows to twice that (the sender may be sending twice as
//     much by the next round trip, as in slow start), up to RecvBufferMax.
//     The advertised window follows at once (a window update). It never
//     shrinks, and it stays within the endpoint's memory budget, which
//     bounds the window whatever the buffer (receiver.window).
//   - Send: the send buffer is at least twice the primary path's cwnd (one
//     window in flight, one queued behind it), up to SendBufferMax.

// rcvTune is the receiver's autotuning state.
type rcvTune struct {
	base int // the configured buffer: tuning runs while capacity is at least this
	// The receive round-trip estimate: started at rttAt, it ends when
	// BytesReceived reaches rttMark (one advertised window later).
	rttAt   time.Time
	rttMark uint64
	rtt     time.Duration
	// Bytes the application read: in all, at spaceAt, and the most in
	// one round trip so far.
	read      uint64
	spaceAt   time.Time
	spaceRead uint64
	space     int
}

// tuneOnData runs after DATA was accepted at now.
func (r *receiver) tuneOnData(now time.Time) {
	t := &r.win.tune
	if r.cfg.RecvBufferMax <= r.win.capacity || r.win.capacity < t.base {
		return // at the bound, not tuning, or on an admission buffer (SetRecvBuffer)
	}
	recv := r.stats.BytesReceived
	if t.rttAt.IsZero() || recv >= t.rttMark {
		if !t.rttAt.IsZero() {
			if s := now.Sub(t.rttAt); s > 0 && (t.rtt == 0 || s < t.rtt) {
				t.rtt = s
			}
		}
		t.rttAt, t.rttMark = now, recv+uint64(max(r.win.lastAdv, r.cfg.MTU))
	}
	if t.rtt == 0 {
		return
	}
	if t.spaceAt.IsZero() {
		t.spaceAt, t.spaceRead = now, t.read
		return
	}
	if now.Sub(t.spaceAt) < t.rtt {
		return
	}
	copied := int(min(t.read-t.spaceRead, uint64(r.cfg.RecvBufferMax)))
	t.spaceAt, t.spaceRead = now, t.read
	if copied <= t.space {
		return
	}
	t.space = copied
	if want := min(2*copied, r.cfg.RecvBufferMax); want > r.win.capacity {
		r.setRecvBuffer(want)
		r.stats.RecvBufferGrowths++
	}
}

// sendBuffer returns the send buffer in force: SendBuffer, or with
// SendBufferMax twice the primary path's cwnd when that is more, up to
// SendBufferMax.
func (q *sendQueue) sendBuffer() int {
	b := q.cfg.SendBuffer
	if m := q.cfg.SendBufferMax; m > b {
		b = min(max(b, 2*q.paths.primary.cwnd), m)
	}
	return b
}
