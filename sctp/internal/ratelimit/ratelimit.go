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
// argument, as everywhere in the association core: the time the caller
// read when the packet arrived) and is not safe for concurrent use: the
// endpoint's owner calls it.
//
// A legitimate host may open many associations at once (a load test, a
// pool of connections) and would be held to its burst like a reflector's
// victim. With a reserve (Config.Reserve), a source may go on past its
// burst by drawing on a pool shared by all sources, as long as the pool
// holds tokens. An answer whose COOKIE ECHO comes back (Confirm) went to a
// host that owns its address: confirming returns its token to the source
// and, if it was drawn from the pool, to the pool. Answers to forged
// addresses are never confirmed, so a flood, from one source or many,
// drains the pool: the endpoint is then under pressure, and every source
// is held to its own burst and rate again until the pool refills at Rate
// per second. What the reserve adds to the bounds without it is the pool
// once and Rate answers a second, for all sources together.
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

// maxAnswers bounds each rate and bucket size of a Config, so that a
// bucket of a burst and a reserve, in nanoseconds' worth of tokens, fits
// an int64.
const maxAnswers = 1 << 32

// Config sets a Limiter's rates. Zero fields but Reserve take the
// defaults above.
type Config struct {
	Rate, Burst             int // per source prefix: answers per second, and in a row
	GlobalRate, GlobalBurst int // for all sources together
	Sources                 int // source prefixes tracked (rounded up to a power of two)
	// Reserve is how many answers beyond its Burst a source may get
	// while the pool shared by all sources, Reserve answers refilled at
	// Rate per second and by Confirm, holds tokens (zero: no reserve;
	// every source is held to its Burst).
	Reserve int
}

// Limiter is a per-source and global rate limiter; see the package doc.
type Limiter struct {
	per, all rate
	pool     rate  // the reserve shared by all sources
	reserve  int64 // Config.Reserve: the bottom of each source's bucket, drawn only with a pool token
	global   bucket
	shared   bucket  // the reserve's pool
	table    []entry // two-way set associative: sets of two entries
	mask     uint64  // sets - 1
	seed     maphash.Seed
	// Limited counts the answers refused: by the source's bucket (its
	// burst spent, or its reserve while the pool is empty), and by the
	// global one.
	Limited, LimitedGlobal uint64
	// Reserved counts the answers drawn on the reserve, and Confirmed
	// the answers confirmed (Confirm).
	Reserved, Confirmed uint64
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
		return min(int64(v), maxAnswers)
	}
	perSec, reserve := def(c.Rate, DefaultRate), min(int64(max(c.Reserve, 0)), maxAnswers)
	l := &Limiter{
		// A source's bucket holds its burst on top of its share of the
		// reserve; it refills from the bottom, the reserve first.
		per:     rate{perSec, def(c.Burst, DefaultBurst) + reserve},
		all:     rate{def(c.GlobalRate, DefaultGlobalRate), def(c.GlobalBurst, DefaultGlobalBurst)},
		pool:    rate{perSec, reserve},
		reserve: reserve,
		seed:    maphash.MakeSeed(),
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
// and if so takes a token from src's bucket and from the global one, and
// one from the pool when src's burst is spent and its token comes from
// the reserve. A refusal is counted in Limited or LimitedGlobal.
func (l *Limiter) Allow(now time.Time, src netip.Addr) bool {
	t := now.UnixNano()
	e := l.lookup(Prefix(src), t)
	e.refill(t, l.per)
	if e.tokens < 1e9 {
		l.Limited++
		return false
	}
	reserved := e.tokens < (l.reserve+1)*1e9 // no whole token above the reserve
	if reserved {
		l.shared.refill(t, l.pool)
		if l.shared.tokens < 1e9 {
			l.Limited++ // under pressure: the source has its burst only
			return false
		}
	}
	l.global.refill(t, l.all)
	if l.global.tokens < 1e9 {
		l.LimitedGlobal++
		return false
	}
	e.tokens -= 1e9
	l.global.tokens -= 1e9
	if reserved {
		l.shared.tokens -= 1e9
		l.Reserved++
	}
	return true
}

// Confirm tells the limiter that a host at src answered one of the
// endpoint's answers (its COOKIE ECHO created an association: src is its
// own address, not a reflector's victim). The token goes back to src's
// bucket, and to the pool while src's bucket is within its reserve, so
// the pool gets back at most what src drew on it. A source the table
// has let go of gets nothing back (it starts again with a full bucket).
func (l *Limiter) Confirm(now time.Time, src netip.Addr) {
	t := now.UnixNano()
	e := l.find(Prefix(src))
	if e == nil {
		return
	}
	l.Confirmed++
	e.refill(t, l.per)
	if e.tokens < l.reserve*1e9 {
		l.shared.refill(t, l.pool)
		l.shared.tokens = min(l.shared.tokens+1e9, l.pool.burst*1e9)
	}
	e.tokens = min(e.tokens+1e9, l.per.burst*1e9)
}

// find returns p's entry, or nil when p is not tracked.
func (l *Limiter) find(p netip.Prefix) *entry {
	return in(l.set(p), p)
}

// set returns the two entries p may be kept in.
func (l *Limiter) set(p netip.Prefix) []entry {
	h := maphash.Comparable(l.seed, p)
	return l.table[2*(h&l.mask):][:2]
}

// in returns p's entry in set, or nil.
func in(set []entry, p netip.Prefix) *entry {
	for i := range set {
		if set[i].last != 0 && set[i].key == p {
			return &set[i]
		}
	}
	return nil
}

// lookup returns p's entry, making one (a full bucket) in place of the
// least recently used of its set if p is not tracked. A source is
// forgotten only when two others of its set (a random one: the hash is
// seeded per Limiter) were seen since, so a flood from many addresses
// cannot pick whom it evicts; and a forgotten source was at worst given a
// full burst again.
func (l *Limiter) lookup(p netip.Prefix, t int64) *entry {
	set := l.set(p)
	if e := in(set, p); e != nil {
		return e
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
