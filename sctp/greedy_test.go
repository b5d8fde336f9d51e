package sctp

import (
	"sync"
	"sync/atomic"
	"testing"
)

// greedyTraffic is a greedy writer of 1000-byte messages on each of a set
// of associations and a reader on each of their accepted ends, counting
// the bytes each reader got (the send and receive budget tests).
type greedyTraffic struct {
	cs, ss   []*Association
	stopping atomic.Bool
	mu       sync.Mutex
	got      []int // bytes read, by the index of the accepted end
	wg       sync.WaitGroup
}

// startGreedy starts the writers on cs and the readers on ss, the accepted
// ends in the same order.
func startGreedy(t *testing.T, cs, ss []*Association) *greedyTraffic {
	g := &greedyTraffic{cs: cs, ss: ss, got: make([]int, len(ss))}
	for i := range cs {
		g.wg.Add(2)
		go func() { // the reader of the accepted end
			defer g.wg.Done()
			buf := make([]byte, 2048)
			for {
				m, _, err := ss[i].ReadMsg(buf)
				if err != nil {
					return
				}
				g.mu.Lock()
				g.got[i] += m
				g.mu.Unlock()
			}
		}()
		go func() { // the greedy writer
			defer g.wg.Done()
			msg := make([]byte, 1000)
			for {
				if _, err := cs[i].WriteMsg(msg, SendInfo{}); err != nil {
					if !g.stopping.Load() {
						t.Errorf("write: %v", err)
					}
					return
				}
			}
		}()
	}
	return g
}

// snap returns the bytes each reader got so far.
func (g *greedyTraffic) snap() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.got...)
}

// stop aborts every association and waits for the writers and readers.
func (g *greedyTraffic) stop() {
	g.stopping.Store(true)
	for _, c := range g.cs {
		c.Abort("done")
	}
	for _, s := range g.ss {
		s.Abort("done")
	}
	g.wg.Wait()
}
