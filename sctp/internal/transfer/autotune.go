package transfer

import "time"

// Buffer autotuning, after Linux TCP's (tcp_rcv_space_adjust,
// tcp_sndbuf_expand): with Config.Buffers.RecvBufferMax and SendBufferMax
// above RecvBuffer and SendBuffer, the buffers grow to the path's
// bandwidth-delay product and no further.
//
//   - Receive: the round-trip time is estimated as the time to receive one
//     advertised window (smallest sample wins). When the application read
//     more in one round trip than in any before, the buffer grows to twice
//     that, up to RecvBufferMax. It never shrinks, and the endpoint's
//     memory budget still bounds the window.
//   - Send: the send buffer is at least twice the primary path's cwnd, up
//     to SendBufferMax.

// rcvTune is the receiver's autotuning state.
type rcvTune struct {
	base int // the configured buffer: tuning runs while capacity is at least this
	// Receive RTT estimate: started at rttAt, ends when BytesReceived
	// reaches rttMark (one advertised window later).
	rttAt   time.Time
	rttMark uint64
	rtt     time.Duration
	// Bytes read: in all, at spaceAt, and the most in one round trip.
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

// sendBuffer returns the send buffer in force (see autotune above).
func (q *sendQueue) sendBuffer() int {
	b := q.cfg.SendBuffer
	if m := q.cfg.SendBufferMax; m > b {
		b = min(max(b, 2*q.paths.primary.cwnd), m)
	}
	return b
}
