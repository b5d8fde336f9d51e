package kernelvm

import (
	"context"
	"fmt"
	"time"
)

// Retry calls try until it succeeds or ctx ends, at least every pause apart: for the first
// packets to a guest that may still be busy on a loaded machine (an INIT it drops, a read
// that times out). The error names ctx's and the last try's.
func Retry(ctx context.Context, pause time.Duration, try func() error) error {
	var last error
	for {
		start := time.Now()
		if last = try(); last == nil {
			return nil
		}
		wait := pause - time.Since(start)
		if wait < 0 {
			wait = 0
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kernelvm: %w (last try: %v)", ctx.Err(), last)
		case <-time.After(wait):
		}
	}
}
