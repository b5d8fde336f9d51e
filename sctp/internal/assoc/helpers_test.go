package assoc

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// send queues a reliable message (the tests' shorthand for Send).
func (a *Assoc) send(now time.Time, sid uint16, ppid uint32, unordered bool, msg []byte) error {
	return a.Send(now, sid, ppid, unordered, msg, transfer.PR{})
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

// The stack has one MTU default: the core's packet size is it less an
// IPv6 and a UDP header, which is the transfer engine's default too.
func TestOneMTUDefault(t *testing.T) {
	var c Config
	c.setDefaults()
	if c.MTU != DefaultMTU-40-8 {
		t.Fatalf("core MTU %d, stack default %d", c.MTU, DefaultMTU)
	}
	if engine := transfer.DefaultMTU; c.MTU != engine {
		t.Fatalf("core MTU %d, transfer engine's %d", c.MTU, engine)
	}
}
