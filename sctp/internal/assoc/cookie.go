package assoc

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"hash"
	"io"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// The State Cookie (RFC 9260 section 5.1.3) is all the state this endpoint
// needs to build a TCB, sent to the peer inside INIT ACK and echoed back in
// COOKIE ECHO, so that an INIT costs no memory here. Its layout is private to
// this endpoint ("The method used to generate the MAC is strictly a private
// matter for the receiver of the INIT chunk"):
//
//	offset size field
//	0      1    version (high 7 bits) and secret generation (low bit)
//	1      8    creation time, Unix nanoseconds
//	9      4    lifespan, milliseconds
//	13     2    peer port (source port of the INIT)
//	15     2    local port
//	17     4    local verification tag (our Initiate Tag in the INIT ACK)
//	21     4    peer verification tag (Initiate Tag of the INIT)
//	25     4    Local-Tie-Tag
//	29     4    Peer's-Tie-Tag
//	33     4    local initial TSN
//	37     4    peer initial TSN
//	41     4    peer a_rwnd
//	45     2    local OS, 2 local MIS, 2 peer OS, 2 peer MIS
//	53     4    peer extension bits (extFlags)
//	57     16   HMAC-SHA-256 over bytes 0..56, truncated to 128 bits
//
// With multi-homing the peer's other addresses come before the MAC: a
// count, then 16 bytes each. An authenticated association's cookie
// (version 2) adds after the body the address count and addresses, a
// 16-bit length L (high bit: our RANDOM follows), the peer's key vector
// (L&0x7fff bytes, at most maxAuthVector), our 32-byte RANDOM when
// flagged, then the MAC. Our RANDOM is normally derived from the secret and
// the cookie (authRandom); it is carried only when the INIT ACK repeats
// our own INIT's (a setup collision, RFC 9260 section 5.2.1).
//
// The cookie is not encrypted and holds nothing the peer does not know
// (section 5.1.3).
const (
	cookieVersion     = 1
	cookieVersionAuth = 2
	cookieBody        = 57
	cookieMACLen      = 16
	cookieLen         = cookieBody + cookieMACLen
)

// extFlags records the extensions a peer announced in its INIT or INIT ACK
// (Supported Extensions, Forward-TSN-Supported, ...).
type extFlags uint32

const (
	extForwardTSN   extFlags = 1 << iota // RFC 3758 PR-SCTP
	extIData                             // RFC 8260 I-DATA
	extReconfig                          // RFC 6525 stream reconfiguration
	extASCONF                            // RFC 5061
	extAuth                              // RFC 4895
	extNRSack                            // NR-SACK
	extZeroChecksum                      // RFC 9653
	extECN                               // ECN capable
	extIForwardTSN                       // RFC 8260 I-FORWARD-TSN listed
)

// cookie is the decoded content of a State Cookie.
type cookie struct {
	created    time.Time
	life       time.Duration
	peerPort   uint16
	localPort  uint16
	localTag   uint32
	peerTag    uint32
	localTie   uint32 // Local-Tie-Tag
	peerTie    uint32 // Peer's-Tie-Tag
	localTSN   chunk.TSN
	peerTSN    chunk.TSN
	peerRwnd   uint32
	localOS    uint16
	localMIS   uint16
	peerOS     uint16
	peerMIS    uint16
	peerExt    extFlags
	generation uint8 // low bit of the secret generation that signed it
	// addrs holds the peer's other INIT addresses, 16 bytes each, with
	// multi-homing; it aliases the packet while a cookie is opened.
	addrs []byte
	// authVec is the peer's key vector (RFC 4895 section 6.1) when
	// authenticated, aliasing the packet while opened; random is our
	// RANDOM; randomIn says it is carried rather than derived.
	authVec  []byte
	random   [authRandomLen]byte
	randomIn bool

	// peer is the address the INIT came from and the INIT ACK went to. It
	// is covered by the MAC, not carried: a cookie echoed from elsewhere
	// fails, and the TCB's first address is the confirmed one (section
	// 5.4).
	peer netip.AddrPort
}

// cookieSecret is one HMAC key with its generation number.
type cookieSecret struct {
	gen     uint32
	created time.Time
	mac     hash.Hash // HMAC-SHA-256 keyed with the secret, reused
	valid   bool
}

// cookieJar signs and verifies State Cookies with a rotating secret (RFC
// 9260 section 5.1.3). It keeps the previous secret too, so a cookie signed
// just before a rotation verifies; older ones are discarded (5.1.5 step 1).
type cookieJar struct {
	rand    io.Reader
	every   time.Duration // rotation period
	cur     cookieSecret
	prev    cookieSecret
	due     time.Time // when cur is to be replaced (zero: never)
	macBuf  [sha256.Size]byte
	peerBuf [18]byte
}

func newCookieJar(rand io.Reader, every time.Duration, now time.Time) *cookieJar {
	j := &cookieJar{rand: rand, every: every}
	j.cur = j.newSecret(0, now)
	j.due = j.nextRotation()
	return j
}

func (j *cookieJar) newSecret(gen uint32, now time.Time) cookieSecret {
	var key [32]byte
	if _, err := io.ReadFull(j.rand, key[:]); err != nil {
		// A broken random source must not yield a predictable key.
		panic("sctp: random source failed: " + err.Error())
	}
	return cookieSecret{gen: gen, created: now, mac: hmac.New(sha256.New, key[:]), valid: true}
}

// rotate replaces the current secret when it is older than the rotation
// period; the current one becomes the previous one.
func (j *cookieJar) rotate(now time.Time) {
	// Per packet: one comparison with the cached due time.
	if j.due.IsZero() || now.Before(j.due) {
		return
	}
	j.prev = j.cur
	j.cur = j.newSecret(j.cur.gen+1, now)
	j.due = j.nextRotation()
}

// nextRotation returns when the current secret is due to be replaced.
func (j *cookieJar) nextRotation() time.Time {
	if j.every <= 0 {
		return time.Time{}
	}
	return j.cur.created.Add(j.every)
}

func (j *cookieJar) sum(s *cookieSecret, body []byte, peer netip.AddrPort) []byte {
	s.mac.Reset()
	s.mac.Write(body)
	a16 := peer.Addr().Unmap().As16()
	copy(j.peerBuf[:], a16[:])
	binary.BigEndian.PutUint16(j.peerBuf[16:], peer.Port())
	s.mac.Write(j.peerBuf[:])
	return s.mac.Sum(j.macBuf[:0])[:cookieMACLen]
}

// appendCookie appends the signed encoding of c to b. c.generation is set
// from the current secret.
func (j *cookieJar) appendCookie(b []byte, c *cookie) []byte {
	start := len(b)
	version := byte(cookieVersion)
	if len(c.authVec) > 0 {
		version = cookieVersionAuth
	}
	b = append(b, version<<1|byte(j.cur.gen&1))
	b = binary.BigEndian.AppendUint64(b, uint64(c.created.UnixNano()))
	b = binary.BigEndian.AppendUint32(b, uint32(c.life/time.Millisecond))
	b = binary.BigEndian.AppendUint16(b, c.peerPort)
	b = binary.BigEndian.AppendUint16(b, c.localPort)
	b = binary.BigEndian.AppendUint32(b, c.localTag)
	b = binary.BigEndian.AppendUint32(b, c.peerTag)
	b = binary.BigEndian.AppendUint32(b, c.localTie)
	b = binary.BigEndian.AppendUint32(b, c.peerTie)
	b = binary.BigEndian.AppendUint32(b, uint32(c.localTSN))
	b = binary.BigEndian.AppendUint32(b, uint32(c.peerTSN))
	b = binary.BigEndian.AppendUint32(b, c.peerRwnd)
	b = binary.BigEndian.AppendUint16(b, c.localOS)
	b = binary.BigEndian.AppendUint16(b, c.localMIS)
	b = binary.BigEndian.AppendUint16(b, c.peerOS)
	b = binary.BigEndian.AppendUint16(b, c.peerMIS)
	b = binary.BigEndian.AppendUint32(b, uint32(c.peerExt))
	if n := len(c.addrs) / 16; n > 0 || version == cookieVersionAuth {
		b = append(b, byte(n))
		b = append(b, c.addrs[:16*n]...)
	}
	if version == cookieVersionAuth {
		l := uint16(len(c.authVec))
		if c.randomIn {
			l |= 0x8000
		}
		b = binary.BigEndian.AppendUint16(b, l)
		b = append(b, c.authVec...)
		if c.randomIn {
			b = append(b, c.random[:]...)
		}
	}
	return append(b, j.sum(&j.cur, b[start:], c.peer)...)
}

// cookieResult says why a cookie was rejected.
type cookieResult uint8

const (
	cookieOK        cookieResult = iota
	cookieMalformed              // wrong length or version
	cookieNoKey                  // signed by a secret no longer kept (section 5.1.5 step 1)
	cookieBadMAC                 // integrity check failed (section 5.1.5 step 2)
)

// openCookie checks the MAC of b for a COOKIE ECHO from peer and decodes
// it into c. The lifespan is left to the caller: section 5.2.4 accepts an
// expired cookie whose tags match.
func (j *cookieJar) openCookie(b []byte, peer netip.AddrPort, c *cookie) cookieResult {
	if len(b) < cookieLen || (b[0]>>1 != cookieVersion && b[0]>>1 != cookieVersionAuth) {
		return cookieMalformed
	}
	body := cookieBody
	var addrs, vec, random []byte
	if b[0]>>1 == cookieVersionAuth {
		// Addresses (count maybe 0), then the peer's key vector.
		n := int(b[cookieBody])
		at := cookieBody + 1 + 16*n
		if n > maxPeerAddrs || len(b) < at+2+cookieMACLen {
			return cookieMalformed
		}
		addrs = b[cookieBody+1 : at]
		l := int(binary.BigEndian.Uint16(b[at:]))
		vl := l & 0x7fff
		body = at + 2 + vl
		if l&0x8000 != 0 {
			body += authRandomLen
		}
		if vl == 0 || vl > maxAuthVector || len(b) != body+cookieMACLen {
			return cookieMalformed
		}
		vec = b[at+2 : at+2+vl]
		if l&0x8000 != 0 {
			random = b[at+2+vl : body]
		}
	} else if len(b) > cookieLen {
		// The peer's other addresses: a count, then 16 bytes each.
		n := int(b[cookieBody])
		if n == 0 || n > maxPeerAddrs || len(b) != cookieLen+1+16*n {
			return cookieMalformed
		}
		body = cookieBody + 1 + 16*n
		addrs = b[cookieBody+1 : body]
	}
	gen := b[0] & 1
	var s *cookieSecret
	switch {
	case j.cur.valid && uint8(j.cur.gen&1) == gen:
		s = &j.cur
	case j.prev.valid && uint8(j.prev.gen&1) == gen:
		s = &j.prev
	default:
		return cookieNoKey
	}
	if subtle.ConstantTimeCompare(j.sum(s, b[:body], peer), b[body:]) != 1 {
		return cookieBadMAC
	}
	be := binary.BigEndian
	*c = cookie{
		created:    time.Unix(0, int64(be.Uint64(b[1:]))),
		life:       time.Duration(be.Uint32(b[9:])) * time.Millisecond,
		peerPort:   be.Uint16(b[13:]),
		localPort:  be.Uint16(b[15:]),
		localTag:   be.Uint32(b[17:]),
		peerTag:    be.Uint32(b[21:]),
		localTie:   be.Uint32(b[25:]),
		peerTie:    be.Uint32(b[29:]),
		localTSN:   chunk.TSN(be.Uint32(b[33:])),
		peerTSN:    chunk.TSN(be.Uint32(b[37:])),
		peerRwnd:   be.Uint32(b[41:]),
		localOS:    be.Uint16(b[45:]),
		localMIS:   be.Uint16(b[47:]),
		peerOS:     be.Uint16(b[49:]),
		peerMIS:    be.Uint16(b[51:]),
		peerExt:    extFlags(be.Uint32(b[53:])),
		generation: gen,
		peer:       peer,
		addrs:      addrs,
		authVec:    vec,
	}
	if vec != nil {
		if random != nil {
			copy(c.random[:], random)
			c.randomIn = true
		} else {
			j.authRandom(s, c)
		}
	}
	return cookieOK
}

// staleness returns how long past its lifespan the cookie is at now, or
// zero if it is still fresh.
func (c *cookie) staleness(now time.Time) time.Duration {
	if d := now.Sub(c.created.Add(c.life)); d > 0 {
		return d
	}
	return 0
}

// authRandom derives c.random (RFC 4895 section 3.1) as an HMAC under
// secret s of the cookie's tag, TSN and creation time; the leading 0xff
// keeps it apart from cookie MACs.
func (j *cookieJar) authRandom(s *cookieSecret, c *cookie) {
	var in [17]byte
	in[0] = 0xff
	binary.BigEndian.PutUint32(in[1:], c.localTag)
	binary.BigEndian.PutUint32(in[5:], uint32(c.localTSN))
	binary.BigEndian.PutUint64(in[9:], uint64(c.created.UnixNano()))
	s.mac.Reset()
	s.mac.Write(in[:])
	copy(c.random[:], s.mac.Sum(j.macBuf[:0]))
}
