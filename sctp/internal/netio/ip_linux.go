//go:build linux

package netio

import (
	"net"
	"time"
)

func newIPBatcher(c *net.IPConn, v6, df, notices, pktinfo bool, busyPoll time.Duration) (batcher, error) {
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
