package interleave

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// FuzzIDataReassembly feeds the I-DATA reassembler arbitrary fragment
// sequences, as a receiver would after its TSN map (unique TSNs) and
// window check (held bytes bounded), mixed with partial-delivery starts,
// reneging, I-FORWARD-TSNs and reads. It checks that nothing panics, the
// held bytes stay within the window and match what is queued, and the
// delivery queue carries only well-formed messages: each starts with its
// first fragment, its parts follow in FSN order under the convention in
// force, nothing of it follows its end, and without partial delivery every
// message is queued whole and uninterrupted. Reads take the queue in
// arrival order or stream by stream.
func FuzzIDataReassembly(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 3, 4, 1, 0, 0, 0, 2, 4})
	f.Add([]byte{2, 0, 0, 1, 2, 3, 0, 0, 1, 1, 0, 3, 0, 0, 1, 2, 1, 3, 5})
	f.Add([]byte{1, 0, 1, 0, 2, 8, 0, 0, 0, 0, 2, 8, 0, 1, 0, 1, 1, 8, 6, 0, 0, 2, 4, 9, 7, 9})
	f.Fuzz(fuzzIData)
}

func fuzzIData(t *testing.T, in []byte) {
	{
		if len(in) == 0 {
			return
		}
		const streams, capacity = 3, 64
		conv := FSNConvention(in[0] % 3)
		in = in[1:]
		tab := stream.NewTable[struct{}, InSide](streams, streams)
		d := NewIDataReassembler(tab, conv)
		d.Pool().Max = 64
		seen := map[chunk.TSN]bool{}
		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		type key struct {
			sid uint16
			uo  bool
			mid stream.MID
		}
		type msgState struct {
			pos   stream.FSN
			ended bool
		}
		open := map[key]*msgState{}
		partial := false
		var cur *key // message being read without partial delivery
		check := func() {
			total, ready := 0, 0
			for _, s := range tab.InSides() {
				total += s.ordered.count() + s.unordered.count()
				ready += s.ready.count()
			}
			total += ready
			if total != d.Held() || d.Held() > capacity || ready != d.Ready() {
				t.Fatalf("held %d, queued %d, ready %d of %d, capacity %d", d.Held(), total, d.Ready(), ready, capacity)
			}
			checkIndex(t, d)
		}
		for len(in) > 0 {
			op := next()
			switch op % 8 {
			case 0, 1, 2, 3: // a fragment
				tsn := chunk.TSN(next())
				sid := uint16(next() % (streams + 1)) // sometimes outside
				mb := next()
				mid := stream.MID(mb%4) - 1 + hostileSpread[mb>>2%8] // around the wrap, or far apart
				fb := next()
				fsn := uint32(fb%5) - 1 + uint32(hostileSpread[fb>>3%8])
				flags := next() & (chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered)
				n := int(next()%9) + 1
				if seen[tsn] {
					continue
				}
				for d.Held()+n > capacity {
					if _, _, ok := d.DropHighest(tsn); !ok {
						break
					}
				}
				if d.Held()+n > capacity {
					continue
				}
				fr := d.Pool().Get(make([]byte, n))
				fr.TSN, fr.SID, fr.MID, fr.Flags = tsn, sid, mid, flags
				if flags&chunk.FlagBeginning != 0 {
					fr.PPID = fsn
				} else {
					fr.FSN = stream.FSN(fsn)
				}
				if d.Add(fr) {
					seen[tsn] = true
				}
			case 4:
				if d.Partial() {
					partial = true
				}
			case 5:
				var skips []MIDSkip
				for range next() % 3 {
					skips = append(skips, MIDSkip{SID: uint16(next() % streams), Unordered: next()&1 != 0, MID: stream.MID(next()%4) - 1})
				}
				d.ForwardMID(chunk.TSN(next()), skips)
			case 6:
				d.SetCumulativeTSN(chunk.TSN(next()))
			case 7: // read everything ready: in arrival order, or (op bit 3) stream by stream
				byStream, sid := op&8 != 0, uint16(streams-1)
				pop := func() *Frag {
					if !byStream {
						return d.Pop()
					}
					for {
						if fr := d.PopStream(sid); fr != nil {
							return fr
						}
						if sid == 0 {
							return nil
						}
						sid--
					}
				}
				for fr := pop(); fr != nil; fr = pop() {
					k := key{fr.SID, fr.Flags&chunk.FlagUnordered != 0, fr.MID}
					st := open[k]
					if fr.Flags&FlagAborted != 0 {
						if st == nil || st.ended || len(fr.Data) != 0 {
							t.Fatalf("%+v: aborted marker for no message in progress", k)
						}
						st.ended = true
						d.Pool().Put(fr)
						continue
					}
					begin, end := fr.Flags&chunk.FlagBeginning != 0, fr.Flags&chunk.FlagEnd != 0
					switch {
					case begin:
						if st != nil && !st.ended {
							t.Fatalf("%+v: second first fragment", k)
						}
						if st != nil && !k.uo {
							t.Fatalf("%+v: ordered MID delivered twice", k)
						}
						st = &msgState{}
						open[k] = st
					case st == nil || st.ended:
						t.Fatalf("%+v: fragment without its first", k)
					default:
						st.pos++
						want := st.pos
						if d.Convention() == FSNLinux {
							want--
						}
						if fr.FSN != want {
							t.Fatalf("%+v: FSN %d at position %d (%v)", k, fr.FSN, st.pos, d.Convention())
						}
					}
					if !partial {
						if begin && cur != nil {
							t.Fatalf("%+v interrupts %+v", k, *cur)
						}
						if !begin && (cur == nil || *cur != k) {
							t.Fatalf("%+v: part out of its run", k)
						}
						cur = &k
					}
					if end {
						st.ended = true
						cur = nil
					}
					d.Pool().Put(fr)
				}
				if !partial && cur != nil {
					t.Fatalf("%+v: incomplete message queued without partial delivery", *cur)
				}
			}
			check()
		}
	}
}

// count returns the bytes in l.
func (l *fragList) count() int {
	n := 0
	for f := l.head; f != nil; f = f.next {
		n += len(f.Data)
	}
	return n
}

// hostileSpread are offsets the fuzzers add to MIDs and FSNs: none mostly,
// and distances around 2^31 and 2^30 where serial comparison stops being
// transitive.
var hostileSpread = [8]stream.MID{0, 0, 0, 0, 1<<31 - 1, 1 << 31, 1 << 30, 3 << 30}

// FuzzIForwardIncremental runs one sequence of fragments, I-FORWARD-TSNs
// (ordered and unordered entries), stream resets, partial-delivery starts,
// reneging, cumulative TSNs and reads through two I-DATA reassemblers: one
// whose I-FORWARD-TSNs look only at the fragments no earlier one looked at
// (and those covered since, see cover) and deliver only from what can have
// changed (the fast way), one that looks at every fragment of the streams
// it visits and delivers from all of them (fullFwd, the way before). Both
// must hold and deliver the same fragments in the same order after every
// step, and their lists must match the model of checkIndex; after each
// I-FORWARD-TSN, a look at every fragment of every stream must find
// nothing left dead (checkNoneDead), which checks the streams both ways
// passed over. TSNs mostly rise, as a peer's do, so that the fast way is
// taken; sometimes they jump back.
func FuzzIForwardIncremental(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 5, 3, 0, 5, 2})
	f.Add([]byte{1, 0, 0, 1, 0, 0, 0, 0, 2, 2, 0, 0, 3, 3, 5, 8, 1, 0, 5, 1, 4, 0, 5, 0, 2})
	f.Add([]byte{2, 0, 1, 1, 0, 0, 0, 1, 2, 1, 0, 5, 3, 1, 0, 4, 0, 7, 6, 0, 6, 1, 5, 2, 3})
	f.Fuzz(fuzzIForward)
}

func fuzzIForward(t *testing.T, in []byte) {
	{
		if len(in) == 0 {
			return
		}
		const streams = 3
		conv := FSNConvention(in[0] % 3)
		in = in[1:]
		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		var tabs [2]*stream.Table[struct{}, InSide]
		var ds [2]*IDataReassembler
		for i := range ds {
			tabs[i] = stream.NewTable[struct{}, InSide](streams, streams)
			ds[i] = NewIDataReassembler(tabs[i], conv)
		}
		ds[1].fullFwd = true
		seen := map[chunk.TSN]bool{}
		tsn := chunk.TSN(100)
		each := func(fn func(d *IDataReassembler, tab *stream.Table[struct{}, InSide])) {
			for i := range ds {
				fn(ds[i], tabs[i])
			}
		}
		for len(in) > 0 {
			op := next()
			switch op % 8 {
			case 0, 1, 2: // a fragment
				b := next()
				if b&0xc0 == 0xc0 {
					tsn -= chunk.TSN(b & 7) // back
				} else {
					tsn += 1 + chunk.TSN(b&3)
				}
				sid := uint16(next() % streams)
				mid := stream.MID(next()%6) - 1
				if op&0x80 != 0 {
					mid += 1 << 31
				}
				fsn := stream.FSN(next() % 6)
				flags := next() & (chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered)
				if seen[tsn] {
					continue
				}
				seen[tsn] = true
				each(func(d *IDataReassembler, _ *stream.Table[struct{}, InSide]) {
					fr := d.Pool().Get([]byte{byte(tsn)})
					fr.TSN, fr.SID, fr.MID, fr.Flags = tsn, sid, mid, flags
					if flags&chunk.FlagBeginning != 0 {
						fr.PPID = uint32(fsn)
					} else {
						fr.FSN = fsn
					}
					d.Add(fr)
				})
			case 3, 4: // an I-FORWARD-TSN
				var skips []MIDSkip
				for range next() % 3 {
					skips = append(skips, MIDSkip{SID: uint16(next() % streams), Unordered: next()&1 != 0, MID: stream.MID(next()%6) - 1})
				}
				cum := tsn - chunk.TSN(next()%8)
				each(func(d *IDataReassembler, _ *stream.Table[struct{}, InSide]) {
					d.ForwardMID(cum, skips)
					checkNoneDead(t, d, cum)
				})
			case 5:
				x := next()
				each(func(d *IDataReassembler, tab *stream.Table[struct{}, InSide]) {
					switch x % 4 {
					case 0: // a stream reset from outside the reassembler
						sid := uint16(x/4) % streams
						tab.In(sid).ResetSequence()
						d.Recheck(sid)
					case 1:
						d.Partial()
					case 2:
						d.DropHighest(tsn - chunk.TSN(x/4%16))
					default:
						d.SetCumulativeTSN(tsn - chunk.TSN(x/4%16))
					}
				})
			default: // read what is ready from both, and compare
				type out struct {
					tsn   chunk.TSN
					sid   uint16
					mid   stream.MID
					fsn   stream.FSN
					flags uint8
					ppid  uint32
				}
				var got [2][]out
				for i, d := range ds {
					for fr := d.Pop(); fr != nil; fr = d.Pop() {
						if fr.Flags&(flagJudged|flagTail) != 0 {
							t.Fatalf("fragment TSN %d delivered with the reassembler's flagJudged or flagTail", fr.TSN)
						}
						got[i] = append(got[i], out{fr.TSN, fr.SID, fr.MID, fr.FSN, fr.Flags, fr.PPID})
						d.Pool().Put(fr)
					}
				}
				if len(got[0]) != len(got[1]) {
					t.Fatalf("incremental delivered %d fragments, full %d:\n%+v\n%+v", len(got[0]), len(got[1]), got[0], got[1])
				}
				for i := range got[0] {
					if got[0][i] != got[1][i] {
						t.Fatalf("fragment %d: incremental %+v, full %+v", i, got[0][i], got[1][i])
					}
				}
			}
			if ds[0].Held() != ds[1].Held() || ds[0].Ready() != ds[1].Ready() {
				t.Fatalf("incremental holds %d (ready %d), full %d (ready %d)", ds[0].Held(), ds[0].Ready(), ds[1].Held(), ds[1].Ready())
			}
			checkIndex(t, ds[0])
			checkIndex(t, ds[1])
		}
	}
}

// checkNoneDead checks, after an I-FORWARD-TSN to newCum that d applied
// (not stale: see applyCum), that looking at every fragment of every
// stream against newCum, as a reassembler without the fwd heap, flagJudged
// and covers would, finds no dead message left: what the incremental look
// passed over (streams out of the heap, fragments looked at before) holds
// none.
func checkNoneDead(t *testing.T, d *IDataReassembler, newCum chunk.TSN) {
	t.Helper()
	if !d.fwdAny || d.fwdMax != newCum {
		return // stale: not applied
	}
	for sid, s := range d.streams.InSides() {
		s.sid = sid
		held, ready := d.Held(), d.Ready()
		d.applyCumTo(s, newCum)
		if d.Held() != held || d.Ready() != ready {
			t.Fatalf("stream %d held a dead message after an I-FORWARD-TSN to %d (fullFwd %v): held %d -> %d, ready %d -> %d",
				sid, newCum, d.fullFwd, held, d.Held(), ready, d.Ready())
		}
	}
}
