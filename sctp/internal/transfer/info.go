package transfer

import "time"

// Info is a snapshot of the engine's state for status reports (the
// SCTP_STATUS and SCTP_GET_PEER_ADDR_INFO socket options of RFC 6458).
type Info struct {
	SRTT, RTTVar, RTO time.Duration
	Cwnd, Ssthresh    int
	FlightSize        int
	PeerRwnd          int // our view of the peer's receive window
	Rwnd              int // the window we advertise
	Outstanding       int // DATA chunks sent and not cumulatively acknowledged
	SendBuffered      int // bytes queued or unacknowledged
	RecvHeld          int // bytes received and not yet read
	InFastRecovery    bool
	PathErrors        int
	NextTSN, CumAck   TSN // our next TSN, and the peer's cumulative ack of ours
	PeerCumTSN        TSN // the cumulative TSN of data we received
}

// Info returns a snapshot of the engine's state.
func (e *Engine) Info() Info {
	p := e.send.paths.primary // path 0 until SetPrimary
	return Info{
		SRTT: p.srtt, RTTVar: p.rttvar, RTO: p.rto,
		Cwnd: p.cwnd, Ssthresh: p.ssthresh, FlightSize: p.flight,
		PeerRwnd: e.send.peerRwnd, Rwnd: e.recv.window(),
		Outstanding: e.send.ledger.outstanding(), SendBuffered: e.send.queue.buffered,
		RecvHeld: e.recv.held(), InFastRecovery: p.inFastRecovery, PathErrors: p.errors,
		NextTSN: e.send.ledger.nextTSN, CumAck: e.send.ledger.cumAck, PeerCumTSN: e.recv.tsns.cum,
	}
}
