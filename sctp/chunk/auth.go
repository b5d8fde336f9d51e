package chunk

import (
	"encoding/binary"
	"strconv"
)

// HMAC identifiers (RFC 4895 section 3.3).
const (
	HMACSHA1   uint16 = 1 // HMAC-SHA-1, 20-byte HMAC
	HMACSHA256 uint16 = 3 // HMAC-SHA-256, 32-byte HMAC
)

// Auth is an AUTH chunk (RFC 4895 section 4.2). HMAC aliases the input.
type Auth struct {
	KeyID  uint16 // shared key identifier
	HMACID uint16
	HMAC   []byte
}

// ParseAuth parses an AUTH chunk. The HMAC length is not checked against
// the identifier here: an unknown identifier is the receiver's to answer
// with UNSUPPORTED-HMAC-IDENTIFIER (RFC 4895 section 6.3).
func ParseAuth(c Chunk) (Auth, error) {
	if c.Type != TypeAuth {
		return Auth{}, wrongType("AUTH", c.Type)
	}
	if len(c.Value) < 4 {
		return Auth{}, errLen("AUTH", ErrBadLength, 8, c.Len())
	}
	return Auth{
		KeyID:  binary.BigEndian.Uint16(c.Value),
		HMACID: binary.BigEndian.Uint16(c.Value[2:]),
		HMAC:   c.Value[4:],
	}, nil
}

// Len returns the chunk's length field value.
func (a *Auth) Len() int { return 8 + len(a.HMAC) }

// Append appends the AUTH chunk, padded, to b. To compute the HMAC (RFC
// 4895 section 6.2), append it with an all-zero HMAC of the right size,
// compute over the AUTH chunk and the chunks after it, and copy the result
// into place at offset 8 of the chunk.
func (a *Auth) Append(b []byte) ([]byte, error) {
	n := a.Len()
	if n > MaxLen {
		return b, errf("AUTH", ErrTooLarge, "HMAC of "+strconv.Itoa(len(a.HMAC))+" bytes")
	}
	b, p := grow(b, pad4(n))
	putChunkHeader(p, TypeAuth, 0, n)
	binary.BigEndian.PutUint16(p[4:], a.KeyID)
	binary.BigEndian.PutUint16(p[6:], a.HMACID)
	copy(p[8:], a.HMAC)
	clear(p[n:])
	return b, nil
}
