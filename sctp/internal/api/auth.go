package api

import (
	"errors"
	"strconv"

	"github.com/usctp/usctp/sctp/chunk"
)

// HMAC identifiers of AUTH (RFC 4895 section 3.3), for
// Extensions.AuthHMAC.
const (
	AuthHMACSHA1   = chunk.HMACSHA1
	AuthHMACSHA256 = chunk.HMACSHA256
)

// AuthKey is an endpoint-pair shared key of AUTH (RFC 4895 section 6.1)
// with its Shared Key Identifier. String and GoString never show the key.
type AuthKey struct {
	ID  uint16
	Key []byte
}

// String describes the key without its material.
func (k AuthKey) String() string {
	return "AuthKey{ID: " + strconv.Itoa(int(k.ID)) + ", Key: <" + strconv.Itoa(len(k.Key)) + " bytes redacted>}"
}

// GoString is String, so that %#v does not print the key either.
func (k AuthKey) GoString() string { return k.String() }

// Errors of the AUTH key calls.
var (
	// ErrAuthNotNegotiated: the association does not use AUTH (not
	// configured here, or the peer did not offer it).
	ErrAuthNotNegotiated = errors.New("sctp: AUTH not in use on this association")
	// ErrAuthUnknownKey: no shared key has this identifier.
	ErrAuthUnknownKey = errors.New("sctp: no shared key with this identifier")
	// ErrAuthActiveKey: DeleteKey of the key in use.
	ErrAuthActiveKey = errors.New("sctp: the active key cannot be deleted")
	// ErrAuthTooManyKeys: an association holds at most 64 keys.
	ErrAuthTooManyKeys = errors.New("sctp: too many shared keys")
)
