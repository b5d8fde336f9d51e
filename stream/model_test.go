package stream

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// tableModel is the obvious implementation Table is checked against: maps
// of the records written so far, with defaults for the rest.
type tableModel struct {
	outN, inN, outOpen int
	out                map[uint16]Out // records written; others are default
	in                 map[uint16]In
	outSide            map[uint16]sideInc // live side objects
	inSide             map[uint16]sideInc
	serial             int
}

// sideInc is one incarnation of a side object: its value and a serial
// number no other incarnation shares.
type sideInc struct {
	val    int64
	serial int
}

type heldHandle struct {
	h      Handle
	serial int
}

type tableChecker struct {
	t       testing.TB
	tb      *Table[sendSide, recvSide]
	m       tableModel
	handles []heldHandle
}

func newTableChecker(t testing.TB, out, in uint16) *tableChecker {
	return &tableChecker{t: t, tb: NewTable[sendSide, recvSide](out, in), m: tableModel{
		outN: int(out), inN: int(in), outOpen: int(out),
		out: map[uint16]Out{}, in: map[uint16]In{},
		outSide: map[uint16]sideInc{}, inSide: map[uint16]sideInc{},
	}}
}

func (c *tableChecker) defaultOut(sid uint16) Out {
	if int(sid) >= c.m.outOpen {
		return Out{State: AddPending}
	}
	return Out{State: Open}
}

// public returns the fields of o a user can see.
func public(o Out) Out { return Out{MID: o.MID, MIDUO: o.MIDUO, State: o.State} }

func (c *tableChecker) shrinkOut(n int) {
	for sid := range c.m.out {
		if int(sid) >= n {
			delete(c.m.out, sid)
		}
	}
	for sid := range c.m.outSide {
		if int(sid) >= n {
			delete(c.m.outSide, sid)
		}
	}
}

func (c *tableChecker) op(op byte, arg uint32, maxN int) {
	m := &c.m
	switch op % 12 {
	case 0: // ResizeOut
		n := int(arg) % (maxN + 1)
		c.tb.ResizeOut(uint16(n))
		if n < m.outN {
			c.shrinkOut(n)
			m.outOpen = min(m.outOpen, n)
		} else if m.outOpen == m.outN {
			m.outOpen = n
		}
		m.outN = n
	case 1: // ResizeIn
		n := int(arg) % (maxN + 1)
		c.tb.ResizeIn(uint16(n))
		for sid := range m.in {
			if int(sid) >= n {
				delete(m.in, sid)
			}
		}
		for sid := range m.inSide {
			if int(sid) >= n {
				delete(m.inSide, sid)
			}
		}
		m.inN = n
	case 2: // AddOut
		k := int(arg % 300)
		if arg%7 == 0 {
			k = int(arg % 65536)
		}
		first, err := c.tb.AddOut(uint16(k))
		switch {
		case m.outOpen != m.outN:
			if !errors.Is(err, ErrAddPending) {
				c.t.Fatalf("AddOut while pending: %v", err)
			}
		case m.outN+k > MaxStreams:
			if !errors.Is(err, ErrTooManyStreams) {
				c.t.Fatalf("AddOut(%d) on %d: %v", k, m.outN, err)
			}
		default:
			if err != nil || int(first) != m.outN {
				c.t.Fatalf("AddOut(%d) on %d: %d, %v", k, m.outN, first, err)
			}
			m.outN += k
		}
	case 3: // FinishAddOut
		performed := arg&1 == 0
		c.tb.FinishAddOut(performed)
		if performed {
			for sid, o := range m.out {
				if int(sid) >= m.outOpen && o.State == AddPending {
					o.State, o.MID, o.MIDUO = Open, 0, 0
					m.out[sid] = o
				}
			}
			m.outOpen = m.outN
		} else {
			c.shrinkOut(m.outOpen)
			m.outN = m.outOpen
		}
	case 4: // Out: read, compare, write
		sid := pickSID(arg, m.outN)
		o := c.tb.Out(sid)
		if int(sid) >= m.outN {
			if o != nil {
				c.t.Fatalf("Out(%d) with %d streams", sid, m.outN)
			}
			return
		}
		want, ok := m.out[sid]
		if !ok {
			want = c.defaultOut(sid)
		}
		if _, side := m.outSide[sid]; public(*o) != public(want) || o.HasSide() != side {
			c.t.Fatalf("Out(%d) = %+v (side %v), model %+v (side %v)", sid, public(*o), o.HasSide(), public(want), side)
		}
		o.MID = MID(arg)
		if arg%5 == 0 {
			o.State = State(arg/5) % 4
		}
		m.out[sid] = public(*o)
	case 5: // In
		sid := pickSID(arg, m.inN)
		in := c.tb.In(sid)
		if int(sid) >= m.inN {
			if in != nil {
				c.t.Fatalf("In(%d) with %d streams", sid, m.inN)
			}
			return
		}
		want := m.in[sid]
		want.sideGen, want.sideIdx = in.sideGen, in.sideIdx
		if _, side := m.inSide[sid]; *in != want || in.HasSide() != side {
			c.t.Fatalf("In(%d) = %+v, model %+v", sid, *in, want)
		}
		in.MID, in.PD = MID(arg), arg&1 == 1
		m.in[sid] = In{MID: in.MID, PD: in.PD}
	case 6, 7: // OutSide / InSide
		inbound := op%12 == 7
		n, sides := m.outN, m.outSide
		if inbound {
			n, sides = m.inN, m.inSide
		}
		sid := pickSID(arg, n)
		var val *int64
		var h Handle
		if inbound {
			if s := c.tb.InSide(sid); s != nil {
				p := int64(s.pending)
				val = &p
				defer func() { s.pending = int(*val) }()
			}
			h = c.tb.InHandle(sid)
		} else {
			if s := c.tb.OutSide(sid); s != nil {
				val = &s.queued
			}
			h = c.tb.OutHandle(sid)
		}
		if int(sid) >= n {
			if val != nil || !h.IsZero() {
				c.t.Fatalf("side object for stream %d of %d", sid, n)
			}
			return
		}
		inc, ok := sides[sid]
		if !ok {
			m.serial++
			inc = sideInc{serial: m.serial}
		}
		if *val != inc.val {
			c.t.Fatalf("side object of %d holds %d, model %d (inbound %v)", sid, *val, inc.val, inbound)
		}
		*val = int64(arg)
		inc.val = int64(arg)
		sides[sid] = inc
		c.handles = append(c.handles, heldHandle{h, inc.serial})
	case 8, 9: // FreeOutSide / FreeInSide
		if op%12 == 8 {
			sid := pickSID(arg, m.outN)
			c.tb.FreeOutSide(sid)
			delete(m.outSide, sid)
		} else {
			sid := pickSID(arg, m.inN)
			c.tb.FreeInSide(sid)
			delete(m.inSide, sid)
		}
	case 10: // ResetSequences
		c.tb.ResetSequences()
		for sid, o := range m.out {
			o.MID, o.MIDUO = 0, 0
			m.out[sid] = o
		}
		for sid := range m.in {
			m.in[sid] = In{}
		}
	case 11:
		c.checkAll()
	}
}

// checkAll compares handles, side-object sets and counts with the model.
func (c *tableChecker) checkAll() {
	m := &c.m
	if c.tb.OutCount() != m.outN || c.tb.InCount() != m.inN {
		c.t.Fatalf("counts %d/%d, model %d/%d", c.tb.OutCount(), c.tb.InCount(), m.outN, m.inN)
	}
	if first, pending := c.tb.AddOutPending(); pending != (m.outOpen != m.outN) || (pending && int(first) != m.outOpen) {
		c.t.Fatalf("AddOutPending %d %v, model open %d of %d", first, pending, m.outOpen, m.outN)
	}
	if c.tb.OutSideCount() != len(m.outSide) || c.tb.InSideCount() != len(m.inSide) {
		c.t.Fatalf("side objects %d/%d, model %d/%d", c.tb.OutSideCount(), c.tb.InSideCount(), len(m.outSide), len(m.inSide))
	}
	n := 0
	for sid, s := range c.tb.OutSides() {
		if inc, ok := m.outSide[sid]; !ok || inc.val != s.queued {
			c.t.Fatalf("OutSides yields stream %d wrongly", sid)
		}
		n++
	}
	for sid, s := range c.tb.InSides() {
		if inc, ok := m.inSide[sid]; !ok || inc.val != int64(s.pending) {
			c.t.Fatalf("InSides yields stream %d wrongly", sid)
		}
		n++
	}
	if n != len(m.outSide)+len(m.inSide) {
		c.t.Fatal("side iteration misses objects")
	}
	for _, hh := range c.handles {
		sides := m.outSide
		var got bool
		if hh.h.Inbound() {
			sides = m.inSide
			got = c.tb.InSideOf(hh.h) != nil
		} else {
			got = c.tb.OutSideOf(hh.h) != nil
		}
		inc, ok := sides[hh.h.SID()]
		if want := ok && inc.serial == hh.serial; got != want {
			c.t.Fatalf("handle for stream %d (inbound %v) resolves %v, model %v", hh.h.SID(), hh.h.Inbound(), got, want)
		}
	}
	if len(c.handles) > 200 {
		c.handles = c.handles[100:]
	}
}

// pickSID returns the stream identifier an operation's argument names: one
// of the n streams or one of the two past them. The modulus is taken in
// int: with 65534 streams, n+2 is 1<<16.
func pickSID(arg uint32, n int) uint16 { return uint16(int(arg>>8) % (n + 2)) }

func (c *tableChecker) run(data []byte, maxN int) {
	for len(data) >= 5 {
		c.op(data[0], binary.LittleEndian.Uint32(data[1:5]), maxN)
		data = data[5:]
	}
	c.checkAll()
}

// TestTableAgainstModel is the property test: random sequences of every
// Table operation agree with a map-based model, including side-object
// handles going stale exactly when their object is released.
func TestTableAgainstModel(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 7))
		data := make([]byte, 5*3000)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		maxN := 600
		if seed%4 == 3 {
			maxN = MaxStreams
		}
		newTableChecker(t, uint16(r.IntN(maxN)), uint16(r.IntN(maxN))).run(data, maxN)
	}
}

// FuzzTableOps drives the model check with fuzzer-chosen operations and
// stream identifiers, as from the wire.
func FuzzTableOps(f *testing.F) {
	f.Add(uint16(10), uint16(10), []byte{4, 0, 5, 0, 0, 6, 0, 3, 0, 0, 8, 0, 3, 0, 0, 6, 0, 7, 0, 0, 11, 0, 0, 0, 0})
	f.Add(uint16(300), uint16(1), []byte{2, 100, 0, 0, 0, 4, 0, 90, 1, 0, 3, 1, 0, 0, 0, 11, 0, 0, 0, 0})
	f.Add(uint16(MaxStreams-1), uint16(MaxStreams-1), []byte{8, 0, 0, 0, 0, 9, 0, 0, 0, 0, 11, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, out, in uint16, data []byte) {
		newTableChecker(t, out, in).run(data, MaxStreams)
	})
}
