package assoc

import (
	"reflect"
	"unsafe"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// addStats adds the counters of o to s (for an endpoint total); path
// values are not added.
func addStats(s, o *api.Stats) {
	addCounters(&s.Counters, &o.Counters)
	for i := range s.ChunksIn {
		s.ChunksIn[i] += o.ChunksIn[i]
		s.ChunksOut[i] += o.ChunksOut[i]
	}
}

// numCounters is the number of uint64 counters in api.Counters, which
// holds nothing else (uint64 fields, structs and arrays of them: checked
// by init), so that its memory is an array of numCounters uint64 values.
const numCounters = unsafe.Sizeof(api.Counters{}) / 8

// addCounters adds each counter of o to its own in s.
func addCounters(s, o *api.Counters) {
	a := (*[numCounters]uint64)(unsafe.Pointer(s))
	b := (*[numCounters]uint64)(unsafe.Pointer(o))
	for i := range a {
		a[i] += b[i]
	}
}

func init() {
	var onlyUint64 func(t reflect.Type) bool
	onlyUint64 = func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Uint64:
			return true
		case reflect.Array:
			return onlyUint64(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if !onlyUint64(t.Field(i).Type) {
					return false
				}
			}
			return true
		}
		return false
	}
	if !onlyUint64(reflect.TypeFor[api.Counters]()) {
		panic("assoc: api.Counters holds a field that is not a uint64 counter")
	}
}

// chunkKinds numbers the chunk types this stack knows, for the compact
// per-association counts; other types count at the endpoint.
var (
	chunkKindOf [256]uint8   // type -> kind+1, 0 for unknown types
	kindType    []chunk.Type // kind -> type
)

func init() {
	for _, t := range []chunk.Type{chunk.TypeData, chunk.TypeInit, chunk.TypeInitAck, chunk.TypeSack,
		chunk.TypeHeartbeat, chunk.TypeHeartbeatAck, chunk.TypeAbort, chunk.TypeShutdown, chunk.TypeShutdownAck,
		chunk.TypeError, chunk.TypeCookieEcho, chunk.TypeCookieAck, chunk.TypeECNE, chunk.TypeCWR,
		chunk.TypeShutdownComplete, chunk.TypeAuth, chunk.TypeNRSack, chunk.TypeIData, chunk.TypeASCONFAck,
		chunk.TypeReconfig, chunk.TypePad, chunk.TypeForwardTSN, chunk.TypeASCONF, chunk.TypeIForwardTSN} {
		kindType = append(kindType, t)
		chunkKindOf[t] = uint8(len(kindType))
	}
}

const numChunkKinds = 24

// chunkCounts counts an association's chunks by known type. The counts
// are 32 bits, which keeps them in half the space of an idle association
// they would take at 64 (the association struct one allocation size class
// lower); a count that reaches spillAt moves into big, allocated then, so
// no count wraps.
type chunkCounts struct {
	in, out [numChunkKinds]uint32
	big     *[2][numChunkKinds]uint64 // in, out: what spilled
}

// spillAt is the count at which a 32-bit count moves into big.
const spillAt = 1 << 31

// countIn counts one chunk of kind k received.
func (c *chunkCounts) countIn(k int) {
	if c.in[k]++; c.in[k] == spillAt {
		c.spill(0, k, &c.in[k])
	}
}

// countOut counts one chunk of kind k sent.
func (c *chunkCounts) countOut(k int) {
	if c.out[k]++; c.out[k] == spillAt {
		c.spill(1, k, &c.out[k])
	}
}

// spill moves the count n of kind k in direction dir into big.
func (c *chunkCounts) spill(dir, k int, n *uint32) {
	if c.big == nil {
		c.big = new([2][numChunkKinds]uint64)
	}
	c.big[dir][k] += uint64(*n)
	*n = 0
}

// expand adds the counts to the per-type arrays of s.
func (c *chunkCounts) expand(s *api.Stats) {
	for k, t := range kindType {
		s.ChunksIn[t] += uint64(c.in[k])
		s.ChunksOut[t] += uint64(c.out[k])
		if c.big != nil {
			s.ChunksIn[t] += c.big[0][k]
			s.ChunksOut[t] += c.big[1][k]
		}
	}
}
