// Package ratelimit bounds how often an endpoint answers the packets it
// answers without an association, INIT above all: an INIT ACK is several
// times the size of a minimal INIT, so an endpoint that answers every INIT
// reflects amplified traffic toward whoever's address the INITs carry (RFC
// 9260 section 5.1 asks the responder to keep no state, not to answer
// everything).
//
// A Limiter keeps a token bucket per source address prefix (/32 for IPv4,
// /64 for IPv6: one host, or one site that can pick any address in its
// /64) in a fixed-size table, and one bucket for all sources together.
// It allocates nothing after New, keeps no time of its own (now is an
// argument, as everywhere in the association core) and is not safe for
// concurrent use: the endpoint's owner calls it.
package ratelimit

import (
	"hash/maphash"
	"net/netip"
	"time"
)

// Defaults of Config fields left zero.
const (
	DefaultRate        = 100    // answers per second per source
	DefaultBurst       = 200    // answers in a row per source
	DefaultGlobalRate  = 20_000 // answers per second for all sources
	DefaultGlobalBurst = 40_000
	DefaultSources     = 4096 // sources tracked
)

// Config sets a Limiter's rates. Zero fields take the defaults above.
type Config struct {
	Rate, Burst             int // per source prefix: answers per second, and in a row
	GlobalRate, GlobalBurst int // for all sources together
	Sources                 int // source prefixes tracked (rounded up to a power of two)
}

// Limiter is a per-source and global rate limiter; see the package doc.
type Limiter struct {
	per, all rate
	global   bucket
	table    []entry // two-way set associative: sets of two entries
	mask     uint64  // sets - 1
	seed     maphash.Seed
	// Limited counts the answers refused: by the source's bucket, and by
	// the global one.
	Limited, LimitedGlobal uint64
}

// rate is a refill rate and a bucket size, in tokens of 1/1e9 answer so
// that refills are integer nanoseconds.
type rate struct {
	perSec int64 // answers per second
	burst  int64 // bucket size in answers
}

// bucket holds tokens (in nanoseconds' worth of refill: an answer costs
// 1e9) and the time of its last update.
type bucket struct {
	tokens int64
	last   int64 // Unix nanoseconds; 0: never used
}

// entry is one tracked source prefix.
type entry struct {
	key netip.Prefix
	bucket
}

// New returns a Limiter with c's rates.
func New(c Config) *Limiter {
	def := func(v, d int) int64 {
		if v <= 0 {
			return int64(d)
		}
		return int64(v)
	}
	l := &Limiter{
		per:  rate{def(c.Rate, DefaultRate), def(c.Burst, DefaultBurst)},
		all:  rate{def(c.GlobalRate, DefaultGlobalRate), def(c.GlobalBurst, DefaultGlobalBurst)},
		seed: maphash.MakeSeed(),
	}
	n := 2
	for n < int(def(c.Sources, DefaultSources)) {
		n *= 2
	}
	l.table = make([]entry, n)
	l.mask = uint64(n/2 - 1)
	return l
}

// Prefix returns the source prefix addr is limited as: its /32 (IPv4,
// also IPv4-mapped IPv6) or /64 (IPv6).
func Prefix(addr netip.Addr) netip.Prefix {
	addr = addr.Unmap()
	bits := 64
	if addr.Is4() {
		bits = 32
	}
	p, _ := addr.Prefix(bits)
	return p
}

// Allow reports whether the endpoint may answer a packet from src at now,
// and if so takes a token from src's bucket and from the global one. A
// refusal is counted in Limited or LimitedGlobal.
func (l *Limiter) Allow(now time.Time, src netip.Addr) bool {
	t := now.UnixNano()
	e := l.lookup(Prefix(src), t)
	e.refill(t, l.per)
	if e.tokens < 1e9 {
		l.Limited++
		return false
	}
	l.global.refill(t, l.all)
	if l.global.tokens < 1e9 {
		l.LimitedGlobal++
		return false
	}
	e.tokens -= 1e9
	l.global.tokens -= 1e9
	return true
}

// lookup returns p's entry, making one (a full bucket) in place of the
// least recently used of its set if p is not tracked. A source is
// forgotten only when two others of its set (a random one: the hash is
// seeded per Limiter) were seen since, so a flood from many addresses
// cannot pick whom it evicts; and a forgotten source was at worst given a
// full burst again.
func (l *Limiter) lookup(p netip.Prefix, t int64) *entry {
	h := maphash.Comparable(l.seed, p)
	set := l.table[2*(h&l.mask):][:2]
	for i := range set {
		if set[i].last != 0 && set[i].key == p {
			return &set[i]
		}
	}
	e := &set[0]
	if set[1].last < set[0].last {
		e = &set[1]
	}
	*e = entry{key: p, bucket: bucket{tokens: l.per.burst * 1e9, last: t}}
	return e
}

// refill adds the tokens earned since b.last at r, up to r's burst.
func (b *bucket) refill(t int64, r rate) {
	if b.last == 0 {
		b.tokens, b.last = r.burst*1e9, t
		return
	}
	if dt := t - b.last; dt > 0 {
		// dt * perSec nanoseconds' worth; dt is capped first so the
		// product cannot overflow (a full refill takes burst/perSec s).
		full := r.burst * int64(time.Second) / r.perSec
		b.tokens = min(b.tokens+min(dt, full+1)*r.perSec, r.burst*1e9)
		b.last = t
	}
}
