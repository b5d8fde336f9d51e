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
