//go:build !linux

package transport

import "net"

// newIPBatcher falls back to one packet per call outside Linux.
func newIPBatcher(c *net.IPConn, v6, df bool) (batcher, error) {
	return single{NewAdapter(c, AdapterConfig{})}, nil
}
