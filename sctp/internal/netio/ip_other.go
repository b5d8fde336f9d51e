//go:build !linux

package netio

import (
	"net"
	"time"
)

// newIPBatcher falls back to one packet per call outside Linux.
func newIPBatcher(c *net.IPConn, v6, df, _, _ bool, busyPoll time.Duration) (batcher, sockConn, error) {
	return single{NewAdapter(c, AdapterConfig{})}, c, nil
}
