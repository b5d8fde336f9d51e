package sctp

import (
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/assoc"
)

// HMAC identifiers of AUTH (RFC 4895 section 3.3), for
// Extensions.AuthHMAC.
const (
	AuthHMACSHA1   = api.AuthHMACSHA1
	AuthHMACSHA256 = api.AuthHMACSHA256
)

// AuthKey is an endpoint-pair shared key of AUTH (RFC 4895 section 6.1)
// with its Shared Key Identifier (Extensions.AuthKeys). String and
// GoString never show the key.
type AuthKey = api.AuthKey

// Errors of the AUTH key calls.
var (
	// ErrAuthNotNegotiated: the association does not use AUTH (not
	// configured here, or the peer did not offer it).
	ErrAuthNotNegotiated = api.ErrAuthNotNegotiated
	// ErrAuthUnknownKey: no shared key has this identifier.
	ErrAuthUnknownKey = api.ErrAuthUnknownKey
	// ErrAuthActiveKey: DeleteKey of the key in use.
	ErrAuthActiveKey = api.ErrAuthActiveKey
	// ErrAuthTooManyKeys: an association holds at most 64 keys.
	ErrAuthTooManyKeys = api.ErrAuthTooManyKeys
)

func (as *Association) authCall(fn func(a *assoc.Assoc) error) error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return ErrClosed
	}
	err := fn(as.core)
	if err == nil && as.exitID != 0 {
		as.ep.exitNoteAssoc(as) // the ABORT at exit is signed with the active key
	}
	as.ep.dispatchCall(as)
	return err
}

// AddKey adds a shared key with identifier id to the association, or
// replaces the key of that identifier (RFC 6458 SCTP_AUTH_KEY). The key is
// copied. Both ends must hold a key before either uses it (SetActiveKey).
func (as *Association) AddKey(id uint16, key []byte) error {
	return as.authCall(func(a *assoc.Assoc) error { return a.AddKey(id, key) })
}

// SetActiveKey makes the key id the one this end's AUTH chunks use (RFC
// 6458 SCTP_AUTH_ACTIVE_KEY). The peer gets an EventAuthNewKey.
func (as *Association) SetActiveKey(id uint16) error {
	return as.authCall(func(a *assoc.Assoc) error { return a.SetActiveKey(id) })
}

// DeleteKey removes the key id (RFC 6458 SCTP_AUTH_DELETE_KEY): it returns
// ErrAuthActiveKey for the key in use. The key is freed at once (nothing
// is kept signed with it) and an EventAuthKeyFree follows; the peer's
// AUTH chunks naming it are dropped from then on, so delete a key only
// after the peer moved to another one.
func (as *Association) DeleteKey(id uint16) error {
	return as.authCall(func(a *assoc.Assoc) error { return a.DeleteKey(id) })
}

// Authenticated reports whether the association uses AUTH (both ends
// offered it) and the HMAC identifier of the AUTH chunks it sends; after
// the association ended, whether it did.
func (as *Association) Authenticated() (hmacID uint16, ok bool) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.Authenticated()
}
