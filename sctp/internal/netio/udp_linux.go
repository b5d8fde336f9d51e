//go:build linux

package netio

import (
	"net"
	"time"
)

// newUDPBatcher returns the batched I/O of c's socket and the socket to
// use in c's place: a quietSocket, which closed c, or c itself when the
// epoll instances of a quiet socket could not be made. On failure c is
// left open.
func newUDPBatcher(c *net.UDPConn, remotePort uint16, gso, gro, df, notices, pktinfo bool, busyPoll time.Duration) (batcher, sockConn, error) {
	b, err := udpBatchIO(c, remotePort, gso, gro, df, notices, pktinfo, busyPoll)
	if err != nil {
		return nil, nil, err
	}
	return b, quietBatch(b, c), nil
}

// udpBatchIO sets c's socket up for batched I/O.
func udpBatchIO(c *net.UDPConn, remotePort uint16, gso, gro, df, notices, pktinfo bool, busyPoll time.Duration) (*batchIO, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	v6, err := socketIsV6(rc)
	if err != nil {
		return nil, err
	}
	if df {
		if err := setDontFragment(rc, v6); err != nil {
			return nil, err
		}
	} else {
		ignoreRouteMTU(rc)
	}
	b := newBatchIO(rc, v6, false, true, remotePort, busyPoll)
	b.df = df
	if notices {
		if err := b.enableNotices(); err != nil {
			return nil, err
		}
	}
	if pktinfo {
		if err := b.enablePktinfo(); err != nil {
			return nil, err
		}
	}
	b.gso.Store(gso && probeGSO(rc))
	if gro && enableGRO(rc) {
		b.initGRO()
	}
	return b, nil
}

func (b *batchIO) gsoEnabled() bool { return b.gso.Load() }

func (b *batchIO) gathers() bool { return true }

func (b *batchIO) groEnabled() bool { return b.g != nil }

func (b *batchIO) stats() Stats {
	return Stats{Dropped: b.dropped.Load(), GSOSends: b.gsoSends.Load(), GSOFailure: b.gsoFailure.Load(), GROCoalesced: b.groCoalesced.Load(), Notices: b.notices.Load(),
		BusyPolls: b.busyPolls.Load(), BusyPollHits: b.busyPollHits.Load(),
		RecvCalls: b.recvCalls.Load(), RecvMessages: b.recvMsgs.Load(),
		SendCalls: b.sendCalls.Load(), SendMessages: b.sendMsgs.Load(), SendPackets: b.sendPkts.Load()}
}

func (b *batchIO) interruptPoll() { b.r.poll.interrupt() }
