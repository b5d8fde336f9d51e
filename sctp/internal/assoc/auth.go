package assoc

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Authenticated chunks, RFC 4895. An endpoint offering AUTH sends RANDOM,
// CHUNKS and HMAC-ALGO in its INIT and INIT ACK; when the peer does too,
// every packet carrying a chunk type the peer listed gets an AUTH chunk
// first (after a COOKIE ECHO), and chunks of a type we listed are processed
// only after a valid AUTH in the same packet.

const (
	authRandomLen = 32 // RFC 4895 section 6.1: "the random number ... 32 bytes"
	maxAuthKeys   = 64 // shared keys an association holds at most
	maxChunkList  = 256
	maxHMACList   = 16
	// maxAuthVector bounds a peer's key vector: RANDOM, a CHUNKS listing
	// every type once and a HMAC-ALGO of maxHMACList identifiers.
	maxAuthVector = 4 + authRandomLen + 4 + maxChunkList + 4 + 2*maxHMACList
)

// chunkSet is a set of chunk types.
type chunkSet [4]uint64

func (s *chunkSet) add(t chunk.Type)      { s[t>>6] |= 1 << (t & 63) }
func (s *chunkSet) has(t chunk.Type) bool { return s[t>>6]&(1<<(t&63)) != 0 }
func (s *chunkSet) empty() bool           { return s[0]|s[1]|s[2]|s[3] == 0 }

// neverAuthenticated are the types RFC 4895 section 3.2 excludes from
// CHUNKS: INIT, INIT-ACK, SHUTDOWN-COMPLETE and AUTH.
func neverAuthenticated(t chunk.Type) bool {
	return t == chunk.TypeInit || t == chunk.TypeInitAck || t == chunk.TypeShutdownComplete || t == chunk.TypeAuth
}

// hmacLen returns the HMAC size of an identifier this stack supports, or 0.
func hmacLen(id uint16) int {
	switch id {
	case chunk.HMACSHA1:
		return sha1.Size
	case chunk.HMACSHA256:
		return sha256.Size
	}
	return 0
}

// authOffered reports whether the endpoint offers AUTH.
func (c *Config) authOffered() bool { return len(c.AuthKeys) > 0 || len(c.AuthChunks) > 0 }

// sanitizeAuth normalizes the AUTH settings: chunk list without excluded
// types and duplicates, HMAC list of supported identifiers with SHA-1
// (RFC 4895 section 6.1), keys copied (the last per id wins).
func (c *Config) sanitizeAuth() {
	var set chunkSet
	var chunks []chunk.Type
	for _, t := range c.AuthChunks {
		if !neverAuthenticated(t) && !set.has(t) {
			set.add(t)
			chunks = append(chunks, t)
		}
	}
	c.AuthChunks = chunks
	var hm []uint16
	for _, id := range c.AuthHMAC {
		if hmacLen(id) > 0 && !containsU16(hm, id) {
			hm = append(hm, id)
		}
	}
	if len(hm) == 0 {
		hm = []uint16{chunk.HMACSHA256}
	}
	if !containsU16(hm, chunk.HMACSHA1) {
		hm = append(hm, chunk.HMACSHA1)
	}
	c.AuthHMAC = hm
	var keys []api.AuthKey
	for _, k := range c.AuthKeys {
		k.Key = append([]byte(nil), k.Key...)
		replaced := false
		for i := range keys {
			if keys[i].ID == k.ID {
				keys[i], replaced = k, true
			}
		}
		if !replaced && len(keys) < maxAuthKeys {
			keys = append(keys, k)
		}
	}
	c.AuthKeys = keys
}

func containsU16(s []uint16, v uint16) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// authKey is one shared key of an association with the association shared
// key derived from it (section 6.1) and its HMAC states, made on first use.
type authKey struct {
	id     uint16
	secret []byte
	assoc  []byte       // association shared key; nil until negotiated
	mac    [2]hash.Hash // HMAC-SHA-1, HMAC-SHA-256 keyed with assoc
}

func (k *authKey) hmac(id uint16) hash.Hash {
	i := 0
	if id == chunk.HMACSHA256 {
		i = 1
	}
	if k.mac[i] == nil {
		if i == 0 {
			k.mac[i] = hmac.New(sha1.New, k.assoc)
		} else {
			k.mac[i] = hmac.New(sha256.New, k.assoc)
		}
	}
	k.mac[i].Reset()
	return k.mac[i]
}

// authState is an association's AUTH state: its RANDOM, the keys, and once
// the peer's parameters are known the key vectors and the chunk sets.
type authState struct {
	random     [authRandomLen]byte
	negotiated bool
	localVec   []byte
	peerVec    []byte
	sendHMAC   uint16   // first of the peer's HMAC-ALGO this stack supports
	peerNeeds  chunkSet // types we authenticate when sending (the peer's CHUNKS)
	weNeed     chunkSet // types we accept only authenticated (our CHUNKS)
	keys       []authKey
	active     uint16
	peerKey    int32 // key id the peer used last, -1 before its first AUTH
	macBuf     [sha256.Size]byte
}

var zeroHMAC [8 + sha256.Size]byte

// newAuthState returns a new association's AUTH state with the configured
// keys, or the empty key 0 when none (section 6.1).
func (ep *Endpoint) newAuthState() *authState {
	s := &authState{peerKey: -1}
	for _, t := range ep.cfg.AuthChunks {
		s.weNeed.add(t)
	}
	if len(ep.cfg.AuthKeys) == 0 {
		s.keys = []authKey{{id: 0}}
	}
	for _, k := range ep.cfg.AuthKeys {
		s.keys = append(s.keys, authKey{id: k.ID, secret: k.Key})
	}
	s.active = s.keys[0].id
	return s
}

// fillRandom draws the association's RANDOM.
func (s *authState) fillRandom(r io.Reader) {
	if _, err := io.ReadFull(r, s.random[:]); err != nil {
		panic("sctp: random source failed: " + err.Error())
	}
}

func (s *authState) key(id uint16) *authKey {
	for i := range s.keys {
		if s.keys[i].id == id {
			return &s.keys[i]
		}
	}
	return nil
}

// appendAuthParams appends RANDOM, CHUNKS (when the list is not empty)
// and HMAC-ALGO, padded, as sent in an INIT or INIT ACK.
func appendAuthParams(b []byte, random []byte, cfg *Config) []byte {
	b, _ = chunk.AppendParam(b, chunk.ParamRandom, random)
	if len(cfg.AuthChunks) > 0 {
		var types [maxChunkList]byte
		for i, t := range cfg.AuthChunks {
			types[i] = byte(t)
		}
		b, _ = chunk.AppendParam(b, chunk.ParamChunkList, types[:len(cfg.AuthChunks)])
	}
	b, _ = chunk.AppendUint16sParam(b, chunk.ParamHMACAlgo, cfg.AuthHMAC)
	return b
}

// appendAuthVector appends the key vector of section 6.1: RANDOM, CHUNKS
// and HMAC-ALGO concatenated without padding.
func appendAuthVector(b []byte, random []byte, cfg *Config) []byte {
	start := len(b)
	b = appendAuthParams(b, random, cfg)
	return unpadVector(b, start)
}

// unpadVector removes the padding between the parameters from b[start:].
func unpadVector(b []byte, start int) []byte {
	w, r := start, start
	for r+4 <= len(b) {
		n := int(binary.BigEndian.Uint16(b[r+2:]))
		w += copy(b[w:], b[r:r+n])
		r += (n + 3) &^ 3
	}
	return b[:w]
}

// authParams are the AUTH parameters of a peer's INIT or INIT ACK, each the
// whole parameter without padding, aliasing the packet.
type authParams struct {
	random, chunks, hmacs []byte
}

// present reports whether the peer offers AUTH.
func (p *authParams) present() bool { return p.random != nil }

// bad reports whether the parameters break RFC 4895 section 6.1.
func (p *authParams) bad() bool {
	if p.random == nil && p.hmacs == nil && p.chunks == nil {
		return false
	}
	if p.random == nil || p.hmacs == nil || len(p.random) != 4+authRandomLen {
		return true
	}
	if len(p.chunks) > 4+maxChunkList || len(p.hmacs) > 4+2*maxHMACList || len(p.hmacs)%2 != 0 {
		return true
	}
	for i := 4; i+2 <= len(p.hmacs); i += 2 {
		if binary.BigEndian.Uint16(p.hmacs[i:]) == chunk.HMACSHA1 {
			return false
		}
	}
	return true
}

// appendVector appends the peer's key vector.
func (p *authParams) appendVector(b []byte) []byte {
	b = append(b, p.random...)
	b = append(b, p.chunks...)
	return append(b, p.hmacs...)
}

// negotiate derives from the peer's key vector (INIT, INIT ACK or State
// Cookie) our key vector, the peer's chunk list and HMAC choice, and the
// association shared keys.
func (s *authState) negotiate(cfg *Config, peerVec []byte) bool {
	var peerNeeds chunkSet
	send := uint16(0)
	for off := 0; off+4 <= len(peerVec); {
		t := chunk.ParamType(binary.BigEndian.Uint16(peerVec[off:]))
		n := int(binary.BigEndian.Uint16(peerVec[off+2:]))
		if n < 4 || off+n > len(peerVec) {
			return false
		}
		v := peerVec[off+4 : off+n]
		switch t {
		case chunk.ParamChunkList:
			for _, ct := range v {
				if !neverAuthenticated(chunk.Type(ct)) {
					peerNeeds.add(chunk.Type(ct))
				}
			}
		case chunk.ParamHMACAlgo:
			// Section 6.1: the first of the peer's identifiers we support.
			for i := 0; i+2 <= len(v) && send == 0; i += 2 {
				if id := binary.BigEndian.Uint16(v[i:]); hmacLen(id) > 0 {
					send = id
				}
			}
		}
		off += n
	}
	if send == 0 {
		return false
	}
	s.negotiated = true
	s.sendHMAC = send
	s.peerNeeds = peerNeeds
	s.peerVec = append(s.peerVec[:0], peerVec...)
	s.localVec = appendAuthVector(s.localVec[:0], s.random[:], cfg)
	s.peerKey = -1
	for i := range s.keys {
		s.derive(&s.keys[i])
	}
	return true
}

// derive computes the association shared key of k (section 6.1): the
// numerically smaller key vector, then the larger, after the endpoint
// pair shared key (equal numbers: the shorter first).
func (s *authState) derive(k *authKey) {
	lo, hi := s.localVec, s.peerVec
	if compareVectors(lo, hi) > 0 {
		lo, hi = hi, lo
	}
	ak := make([]byte, 0, len(k.secret)+len(lo)+len(hi))
	ak = append(ak, k.secret...)
	ak = append(ak, lo...)
	k.assoc = append(ak, hi...)
	k.mac = [2]hash.Hash{}
}

// compareVectors compares two key vectors as unsigned big-endian numbers;
// equal numbers of different lengths order the shorter first.
func compareVectors(a, b []byte) int {
	ta, tb := trimZeros(a), trimZeros(b)
	switch {
	case len(ta) != len(tb):
		return cmpInt(len(ta), len(tb))
	}
	for i := range ta {
		if ta[i] != tb[i] {
			return cmpInt(int(ta[i]), int(tb[i]))
		}
	}
	return cmpInt(len(a), len(b))
}

func trimZeros(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// authOverhead returns the bytes an AUTH chunk adds to a packet to the
// peer, or 0 when the peer asked for no authenticated chunk.
func (a *Assoc) authOverhead() int {
	s := a.auth
	if s == nil || !s.negotiated || s.peerNeeds.empty() {
		return 0
	}
	return 8 + hmacLen(s.sendHMAC)
}

// sealAuth inserts the AUTH chunk first in the packet at b[start], or after
// a COOKIE ECHO, when it carries a type the peer listed (section 6.2). The
// HMAC covers the AUTH chunk, HMAC zeroed, and every chunk after it.
func (a *Assoc) sealAuth(b []byte, start int) []byte {
	n := a.authOverhead()
	if n == 0 {
		return b
	}
	s := a.auth
	body := start + commonHeaderLen
	ins := body
	need := false
	it := chunk.Chunks(b[body:])
	for first := true; ; first = false {
		off := it.Offset()
		c, ok := it.Next()
		if !ok {
			break
		}
		if first && c.Type == chunk.TypeCookieEcho {
			ins = body + off + (c.Len()+3)&^3
		} else if s.peerNeeds.has(c.Type) {
			need = true
		}
	}
	if !need {
		return b
	}
	k := s.key(s.active)
	if k == nil || k.assoc == nil {
		return b
	}
	end := len(b)
	b = append(b, zeroHMAC[:n]...)
	copy(b[ins+n:], b[ins:end])
	binary.BigEndian.PutUint16(b[ins:], uint16(chunk.TypeAuth)<<8)
	binary.BigEndian.PutUint16(b[ins+2:], uint16(n))
	binary.BigEndian.PutUint16(b[ins+4:], k.id)
	binary.BigEndian.PutUint16(b[ins+6:], s.sendHMAC)
	clear(b[ins+8 : ins+n])
	h := k.hmac(s.sendHMAC)
	h.Write(b[ins:])
	copy(b[ins+8:ins+n], h.Sum(s.macBuf[:0]))
	a.stats.Auth.Sent++
	return b
}

// authResult is the outcome of checking a received AUTH chunk.
type authResult uint8

const (
	authValid       authResult = iota
	authBadHMAC                // wrong HMAC, or a HMAC of the wrong length
	authUnknownKey             // no shared key with that identifier
	authUnsupported            // HMAC identifier not in our HMAC-ALGO
)

// verifyAuth checks AUTH chunk c of p (section 6.3) in constant time.
func (a *Assoc) verifyAuth(p *inPacket, c *rxChunk) authResult {
	s := a.auth
	v := c.value()
	if len(v) < 4 {
		return authBadHMAC
	}
	keyID, hmacID := binary.BigEndian.Uint16(v), binary.BigEndian.Uint16(v[2:])
	if !containsU16(a.ep.cfg.AuthHMAC, hmacID) {
		return authUnsupported
	}
	k := s.key(keyID)
	if k == nil || k.assoc == nil {
		return authUnknownKey
	}
	n := hmacLen(hmacID)
	if len(v) != 4+n {
		return authBadHMAC
	}
	rest := p.body[int(c.off):]
	h := k.hmac(hmacID)
	h.Write(rest[:8])
	h.Write(zeroHMAC[:n])
	h.Write(rest[8+n:])
	if !hmac.Equal(h.Sum(s.macBuf[:0]), v[4:]) {
		return authBadHMAC
	}
	if int32(keyID) != s.peerKey {
		if s.peerKey >= 0 {
			// SCTP_AUTH_NEW_KEY: the peer started using another key.
			a.emitKey(api.EventAuthNewKey, keyID)
		}
		s.peerKey = int32(keyID)
	}
	return authValid
}

// authChunk handles an AUTH chunk and reports whether the chunks after it
// are authenticated; when not, the caller discards them.
func (a *Assoc) authChunk(p *inPacket, c *rxChunk) bool {
	switch a.verifyAuth(p, c) {
	case authValid:
		a.stats.Auth.Verified++
		return true
	case authUnknownKey:
		// Section 6.3: an unknown key id: silently discard.
		a.stats.Auth.UnknownKey++
	case authUnsupported:
		// Section 6.3: an unsupported HMAC id: ERROR "Unsupported HMAC
		// Identifier", chunks discarded.
		a.stats.Auth.UnsupportedHMAC++
		a.queueErrorCause(chunk.CauseUnsupportedHMAC, c.value()[2:4])
	default:
		// Section 6.3: a mismatching HMAC: silently discard.
		a.stats.Auth.BadHMAC++
	}
	return false
}

// AddKey adds (or replaces) a shared key of the association (RFC 6458
// SCTP_AUTH_KEY). The key material is copied.
func (a *Assoc) AddKey(id uint16, key []byte) error {
	s := a.auth
	if s == nil || a.closed {
		return api.ErrAuthNotNegotiated
	}
	k := s.key(id)
	if k == nil {
		if len(s.keys) >= maxAuthKeys {
			return api.ErrAuthTooManyKeys
		}
		s.keys = append(s.keys, authKey{id: id})
		k = &s.keys[len(s.keys)-1]
	}
	k.secret = append([]byte(nil), key...)
	k.assoc, k.mac = nil, [2]hash.Hash{}
	if s.negotiated {
		s.derive(k)
	}
	return nil
}

// SetActiveKey makes the key id the one outgoing AUTH chunks use (RFC 6458
// SCTP_AUTH_ACTIVE_KEY).
func (a *Assoc) SetActiveKey(id uint16) error {
	s := a.auth
	if s == nil || a.closed {
		return api.ErrAuthNotNegotiated
	}
	if s.key(id) == nil {
		return api.ErrAuthUnknownKey
	}
	s.active = id
	return nil
}

// DeleteKey removes a shared key (RFC 6458 SCTP_AUTH_DELETE_KEY); the
// active key cannot be removed. An inactive key is used by nothing, so it
// is freed at once (EventAuthKeyFree); peer AUTH chunks naming it are
// dropped.
func (a *Assoc) DeleteKey(id uint16) error {
	s := a.auth
	if s == nil || a.closed {
		return api.ErrAuthNotNegotiated
	}
	if id == s.active {
		return api.ErrAuthActiveKey
	}
	for i := range s.keys {
		if s.keys[i].id == id {
			clear(s.keys[i].secret)
			clear(s.keys[i].assoc)
			s.keys = append(s.keys[:i], s.keys[i+1:]...)
			a.emitKey(api.EventAuthKeyFree, id)
			return nil
		}
	}
	return api.ErrAuthUnknownKey
}

// Authenticated reports whether the association negotiated AUTH, and
// the HMAC identifier it sends with.
func (a *Assoc) Authenticated() (hmacID uint16, ok bool) {
	if a.auth == nil || !a.auth.negotiated {
		return 0, false
	}
	return a.auth.sendHMAC, true
}

func (a *Assoc) emitKey(k api.EventKind, id uint16) {
	a.emit(api.Event{Kind: k, KeyID: id})
}
