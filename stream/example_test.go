package stream_test

import (
	"errors"
	"fmt"

	"github.com/usctp/usctp/stream"
)

// sendQueue is an upper layer's per-stream send state.
type sendQueue struct {
	msgs   [][]byte
	queued int
}

// Reset drops the queued messages but keeps the slice's capacity.
func (q *sendQueue) Reset() {
	clear(q.msgs)
	*q = sendQueue{msgs: q.msgs[:0]}
}

func Example() {
	// 65535 streams negotiated each way; nothing is allocated per stream yet.
	t := stream.NewTable[sendQueue, struct{}](65535, 65535)

	// Queue a message on stream 3: its record and side object appear now.
	q := t.OutSide(3)
	q.msgs = append(q.msgs, []byte("hello"))
	q.queued++

	// Number it when it is sent (DATA: the SSN).
	o := t.Out(3)
	fmt.Println(o.State, o.TakeSSN(), o.TakeSSN())

	// A stream identifier from the wire is checked, never trusted.
	if _, err := t.LookupIn(65535); errors.Is(err, stream.ErrInvalidStream) {
		fmt.Println(err)
	}

	// A handle goes stale when its object is released.
	h := t.OutHandle(3)
	t.FreeOutSide(3)
	fmt.Println(t.OutSideOf(h) == nil)
	// Output:
	// Open 0 1
	// stream: invalid inbound stream 65535 (65535 negotiated)
	// true
}

func ExampleTable_AddOut() {
	t := stream.NewTable[struct{}, struct{}](10, 10)
	first, _ := t.AddOut(5) // RFC 6525 Add Outgoing Streams request sent
	fmt.Println(first, t.OutCount(), t.Out(12).State)
	t.FinishAddOut(true) // the peer performed it
	fmt.Println(t.Out(12).State)
	// Output:
	// 10 15 AddPending
	// Open
}
