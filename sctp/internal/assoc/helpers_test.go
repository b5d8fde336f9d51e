package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// send queues a reliable message (the tests' shorthand for Send).
func (a *Assoc) send(now time.Time, sid uint16, ppid uint32, unordered bool, msg []byte) error {
	return a.Send(now, &Message{Stream: sid, PPID: ppid, Unordered: unordered, Payload: msg})
}

// read reads the next delivered message part and, as the shell does, lets
// a SACK go when reading opened the window.
func (a *Assoc) read(b []byte) (int, transfer.RecvInfo, error) {
	n, info, err := a.Read(b)
	a.WindowUpdate()
	return n, info, err
}

// walkParams calls fn for each TLV of b; fn returns false to stop. It
// reports false when b is malformed (before fn stopped the walk).
func walkParams(b []byte, fn func(typ chunk.ParamType, val, raw []byte) bool) bool {
	it := chunk.Params(b)
	for {
		off := it.Offset()
		p, ok := it.Next()
		if !ok {
			return it.Err() == nil
		}
		if !fn(p.Type, p.Value, b[off:off+p.Len()]) {
			return true
		}
	}
}
