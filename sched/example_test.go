package sched_test

import (
	"fmt"

	"github.com/usctp/usctp/sched"
)

// The association drives a scheduler like this: it announces messages with
// Enqueue, asks Next for a stream when it starts a message (or, with I-DATA,
// for every chunk), and reports every chunk it packs with Sent.
func Example() {
	s, err := sched.New(sched.WFQ, sched.Options{Interleaved: true, Streams: 4})
	if err != nil {
		panic(err)
	}
	s.SetValue(1, 3) // stream 1 gets three times the bytes of stream 2
	queued := map[uint16]int{1: 4000, 2: 4000}
	s.Enqueue(1, 4000)
	s.Enqueue(2, 4000)
	var order []uint16
	for range 8 {
		sid, ok := s.Next()
		if !ok {
			break
		}
		n := min(1000, queued[sid]) // one chunk
		queued[sid] -= n
		s.Sent(sid, n, queued[sid] == 0, queued[sid] == 0)
		s.PacketDone()
		order = append(order, sid)
	}
	fmt.Println(order)
	// Output: [1 2 1 1 2 1 2 2]
}
