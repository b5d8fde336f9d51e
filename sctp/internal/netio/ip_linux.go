//go:build linux

package netio

import (
	"net"
	"time"
)

// newIPBatcher returns the batched I/O of c's socket and the socket to
// use in c's place, as newUDPBatcher does.
func newIPBatcher(c *net.IPConn, v6, df, notices, pktinfo bool, busyPoll time.Duration) (batcher, sockConn, error) {
	b, err := ipBatchIO(c, v6, df, notices, pktinfo, busyPoll)
	if err != nil {
		return nil, nil, err
	}
	return b, quietBatch(b, c), nil
}

// ipBatchIO sets c's socket up for batched I/O.
func ipBatchIO(c *net.IPConn, v6, df, notices, pktinfo bool, busyPoll time.Duration) (*batchIO, error) {
	rc, err := c.SyscallConn()
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
	b := newBatchIO(rc, v6, !v6, false, 0, busyPoll)
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
	return b, nil
}
