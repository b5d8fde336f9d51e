package sctp

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/assoc"
)

// Errors of the address requests (RFC 5061 ASCONF).
var (
	// ErrASCONFNotNegotiated: the association does not do ASCONF (both
	// ends need Config.Extensions.DynamicAddrs or Linux's addip_enable,
	// and AUTH).
	ErrASCONFNotNegotiated = api.ErrASCONFNotNegotiated
	// ErrNotLocalAddr: AddLocalAddr of an address this endpoint does not
	// receive on (not an address of the host, or the endpoint is bound to
	// another one).
	ErrNotLocalAddr = api.ErrNotLocalAddr
	// ErrASCONFBusy: 16 requests already wait for the peer's answer.
	ErrASCONFBusy = api.ErrASCONFBusy
)

// ASCONFError is the peer's refusal of an address request: the RFC 5061
// error cause it answered with (0xA0 "Request to Delete Last Remaining IP
// Address", 0xA2 "Request to Delete Source IP Address", 0xA1 resource
// shortage, 0xA4 no authorization, ...).
type ASCONFError = api.ASCONFError

// AddLocalAddr asks the peer to add ip, an address this endpoint receives
// on, to the association (RFC 5061 Add IP Address): the peer confirms it
// with a HEARTBEAT before sending there. The endpoint must be bound to
// the wildcard address (or to ip) and ip must be an address of this host.
// It waits for the peer's answer or ctx; a refusal is an *ASCONFError.
func (as *Association) AddLocalAddr(ctx context.Context, ip netip.Addr) error {
	ip = ip.Unmap()
	if b := as.ep.conn.LocalAddr().Addr().Unmap(); !(b.IsUnspecified() || b == ip) || !hostAddr(ip) {
		return ErrNotLocalAddr
	}
	return as.reconfigureWith(ctx, func(a *assoc.Assoc) (uint64, error) { return a.AddLocalAddr(time.Now(), ip) })
}

// RemoveLocalAddr asks the peer to delete our address ip from the
// association (RFC 5061 Delete IP Address); the peer refuses to delete the
// last one, or the one the request came from.
func (as *Association) RemoveLocalAddr(ctx context.Context, ip netip.Addr) error {
	return as.reconfigureWith(ctx, func(a *assoc.Assoc) (uint64, error) { return a.RemoveLocalAddr(time.Now(), ip) })
}

// SetPeerPrimary asks the peer to send to our address ip (RFC 5061 Set
// Primary Address).
func (as *Association) SetPeerPrimary(ctx context.Context, ip netip.Addr) error {
	return as.reconfigureWith(ctx, func(a *assoc.Assoc) (uint64, error) { return a.SetPeerPrimary(time.Now(), ip) })
}

// hostAddr reports whether ip is an address of one of the host's
// interfaces.
func hostAddr(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if x, ok := netip.AddrFromSlice(n.IP); ok && x.Unmap() == ip {
				return true
			}
		}
	}
	return false
}
