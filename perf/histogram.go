package perf

import (
	"math"
	"math/bits"
	"time"
)

// histSub is the number of sub-buckets per power of two: values are kept
// to within 1/histSub (about 3%).
const (
	histSubBits = 5
	histSub     = 1 << histSubBits
	histBuckets = 2*histSub + (64-histSubBits-1)*histSub
)

// Histogram records durations in log-linear buckets without allocating:
// exact below 64 ns, then 32 buckets per power of two.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    float64
	max    uint64
}

func histIndex(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	e := bits.Len64(v) - histSubBits - 1 // v>>e is in [histSub, 2*histSub)
	return 2*histSub + (e-1)*histSub + int(v>>e) - histSub
}

// histLow returns the smallest value that falls in bucket i.
func histLow(i int) uint64 {
	if i < 2*histSub {
		return uint64(i)
	}
	i -= 2 * histSub
	e := i/histSub + 1
	return uint64(histSub+i%histSub) << e
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[histIndex(v)]++
	h.n++
	h.sum += float64(v)
	h.max = max(h.max, v)
}

// Merge adds the counts of o.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Count returns the number of recorded durations.
func (h *Histogram) Count() uint64 { return h.n }

// Quantile returns the duration below which a fraction q of the recorded
// durations fall (the midpoint of its bucket, never above the maximum).
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo := histLow(i)
			hi := histLow(i+1) - 1
			if i+1 >= histBuckets {
				hi = lo
			}
			return time.Duration(min(lo+(hi-lo)/2, h.max))
		}
	}
	return time.Duration(h.max)
}

// Latency summarizes the histogram in microseconds.
func (h *Histogram) Latency() Latency {
	if h.n == 0 {
		return Latency{}
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	return Latency{
		P50:  us(h.Quantile(0.50)),
		P90:  us(h.Quantile(0.90)),
		P99:  us(h.Quantile(0.99)),
		P999: us(h.Quantile(0.999)),
		Max:  float64(h.max) / 1e3,
		Mean: h.sum / float64(h.n) / 1e3,
	}
}
