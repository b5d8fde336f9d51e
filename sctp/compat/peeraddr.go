package sctp

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// The spp_flags of struct sctp_paddrparams (<linux/sctp.h>).
const (
	SPP_HB_ENABLE         = 1 << 0
	SPP_HB_DISABLE        = 1 << 1
	SPP_HB                = SPP_HB_ENABLE | SPP_HB_DISABLE
	SPP_HB_DEMAND         = 1 << 2
	SPP_PMTUD_ENABLE      = 1 << 3
	SPP_PMTUD_DISABLE     = 1 << 4
	SPP_PMTUD             = SPP_PMTUD_ENABLE | SPP_PMTUD_DISABLE
	SPP_SACKDELAY_ENABLE  = 1 << 5
	SPP_SACKDELAY_DISABLE = 1 << 6
	SPP_SACKDELAY         = SPP_SACKDELAY_ENABLE | SPP_SACKDELAY_DISABLE
	SPP_HB_TIME_IS_ZERO   = 1 << 7
	SPP_IPV6_FLOWLABEL    = 1 << 8
	SPP_DSCP              = 1 << 9
)

// PeerAddrParams is struct sctp_paddrparams (RFC 6458 section 8.1.12,
// SCTP_PEER_ADDR_PARAMS) with the address as an SCTPAddr: the settings
// of one peer address, or of all of them (and of those to come) when
// Address is nil or the unspecified address.
type PeerAddrParams struct {
	AssocID    SCTPAssocID // 0 or the association's
	Address    *SCTPAddr   // one IP address; Port 0 or the peer's
	HBInterval uint32      // heartbeat interval in milliseconds (HB.interval)
	PathMaxRxt uint16      // Path.Max.Retrans
	PathMTU    uint32      // the path's MTU (read only here)
	SackDelay  uint32      // delayed SACK timer in milliseconds (200 here)
	Flags      uint32      // SPP_* flags
}

// PeerAddrThlds is struct sctp_paddrthlds (SCTP_PEER_ADDR_THLDS, RFC 7829
// section 8.1): Path.Max.Retrans and the potentially-failed threshold
// (PFMR) of one peer address, or of all of them when Address is nil or
// the unspecified address.
type PeerAddrThlds struct {
	AssocID    SCTPAssocID
	Address    *SCTPAddr
	PathMaxRxt uint16
	PathPFThld uint16
}

// sackDelay returns the association's delayed SACK timer in
// milliseconds (SetSackTimer sets it).
func (c *SCTPConn) sackDelay() uint32 {
	d, _, _ := c.as.DelayedSACK()
	return uint32(d / time.Millisecond)
}

// optError is the error of a socket option's equivalent: the errno the
// kernel returns in that case, and the reason.
type optError struct {
	opt   string
	errno syscall.Errno
	err   error
}

// Error says which option failed, why, and the errno.
func (e *optError) Error() string {
	return fmt.Sprintf("sctp (usctp): %s: %v (%s)", e.opt, e.err, e.errno.Error())
}

// Unwrap returns the errno and the reason, for errors.Is.
func (e *optError) Unwrap() []error { return []error{e.errno, e.err} }

// optErr returns the error of option opt: errno, and the reason made of
// format and args.
func optErr(opt string, errno syscall.Errno, format string, args ...any) error {
	return &optError{opt: opt, errno: errno, err: fmt.Errorf(format, args...)}
}

// peerIP checks the association id and the address of a socket option:
// it returns the peer IP address a names, or the zero Addr when a is nil,
// holds no address or the unspecified one (every address of the peer).
func (c *SCTPConn) peerIP(opt string, id SCTPAssocID, a *SCTPAddr) (netip.Addr, error) {
	if c.as == nil {
		return netip.Addr{}, errNoAssoc
	}
	if id != 0 && id != c.id {
		return netip.Addr{}, optErr(opt, syscall.EINVAL, "association id %d is not this connection's (%d)", id, c.id)
	}
	if a == nil || len(a.IPAddrs) == 0 {
		return netip.Addr{}, nil
	}
	if len(a.IPAddrs) > 1 {
		return netip.Addr{}, optErr(opt, syscall.EINVAL, "%d addresses given, one at a time", len(a.IPAddrs))
	}
	ips, err := a.netIPs()
	if err != nil {
		return netip.Addr{}, optErr(opt, syscall.EINVAL, "%v", err)
	}
	if ips[0].IsUnspecified() {
		return netip.Addr{}, nil
	}
	if a.Port != 0 {
		if rs := c.as.RemoteAddrs(); len(rs) > 0 && int(rs[0].Port) != a.Port {
			return netip.Addr{}, optErr(opt, syscall.EINVAL, "port %d is not the peer's (%d)", a.Port, rs[0].Port)
		}
	}
	return ips[0], nil
}

// pathErr converts an error of package usctp's path calls for option opt;
// unknown is the errno the kernel gives for an address not the peer's.
func pathErr(opt string, ip netip.Addr, unknown syscall.Errno, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, usctp.ErrUnknownAddress):
		return optErr(opt, unknown, "%w: %v", err, ip)
	case errors.Is(err, usctp.ErrUnconfirmedAddress):
		return optErr(opt, syscall.EADDRNOTAVAIL, "%w: %v", err, ip)
	case errors.Is(err, usctp.ErrInvalidPathParams):
		return optErr(opt, syscall.EINVAL, "%w", err)
	case errors.Is(err, usctp.ErrClosed):
		return optErr(opt, syscall.ENOTCONN, "%w", err)
	}
	return err
}

// SCTPSetPrimaryPeerAddr makes the peer address addr (one IP address,
// Port 0 or the peer's) the primary path, as SCTP_PRIMARY_ADDR does: new
// data goes there while it is active (RFC 9260 section 11.1), and
// SCTPGetPrimaryPeerAddr and GetStatus report it. An address not the
// peer's gives EINVAL, as the kernel's; one the peer has not confirmed by
// a HEARTBEAT yet gives EADDRNOTAVAIL (the kernel accepts it and sends
// there only once confirmed). The errors also match package usctp's
// ErrUnknownAddress and ErrUnconfirmedAddress.
func (c *SCTPConn) SCTPSetPrimaryPeerAddr(addr *SCTPAddr) error {
	const opt = "SCTP_PRIMARY_ADDR"
	ip, err := c.peerIP(opt, 0, addr)
	if err != nil {
		return err
	}
	if !ip.IsValid() {
		return optErr(opt, syscall.EINVAL, "no peer address given")
	}
	return pathErr(opt, ip, syscall.EINVAL, c.as.SetPrimary(ip))
}

// GetPeerAddrInfo returns the state of the peer address addr (one IP
// address), as SCTP_GET_PEER_ADDR_INFO does: state (a potentially failed
// path, RFC 7829, is SCTP_ACTIVE), congestion window, smoothed RTT, RTO
// and MTU. An address not the peer's gives EINVAL. Read each address of
// SCTPRemoteAddr in turn for all of them.
func (c *SCTPConn) GetPeerAddrInfo(addr *SCTPAddr) (*PeerAddrinfo, error) {
	const opt = "SCTP_GET_PEER_ADDR_INFO"
	ip, err := c.peerIP(opt, 0, addr)
	if err != nil {
		return nil, err
	}
	if !ip.IsValid() {
		return nil, optErr(opt, syscall.EINVAL, "no peer address given")
	}
	for _, p := range c.as.Paths() {
		if p.Addr.IP.Unmap() == ip.Unmap() {
			pi := peerAddrinfo(c.id, p)
			return &pi, nil
		}
	}
	if c.closedAssoc() {
		return nil, optErr(opt, syscall.ENOTCONN, "%w", usctp.ErrClosed)
	}
	return nil, optErr(opt, syscall.EINVAL, "%w: %v", usctp.ErrUnknownAddress, ip)
}

// closedAssoc reports whether the association has ended.
func (c *SCTPConn) closedAssoc() bool {
	select {
	case <-c.as.Done():
		return true
	default:
		return false
	}
}

// GetPeerAddrParams returns the settings of the peer address addr, or
// the association's (those new paths take) for a nil addr, as
// SCTP_PEER_ADDR_PARAMS does. Flags has SPP_HB_ENABLE or SPP_HB_DISABLE,
// SPP_PMTUD_ENABLE and SPP_SACKDELAY_ENABLE; SackDelay is the
// association's delayed SACK timer (SetSackTimer); PathMTU is
// the path's (the primary path's for the association).
func (c *SCTPConn) GetPeerAddrParams(addr *SCTPAddr) (*PeerAddrParams, error) {
	const opt = "SCTP_PEER_ADDR_PARAMS"
	ip, err := c.peerIP(opt, 0, addr)
	if err != nil {
		return nil, err
	}
	pp, err := c.as.PathParams(ip)
	if err != nil {
		return nil, pathErr(opt, ip, syscall.EINVAL, err)
	}
	out := &PeerAddrParams{AssocID: c.id, Address: addr, HBInterval: uint32(pp.HeartbeatInterval.Milliseconds()),
		PathMaxRxt: uint16(min(pp.PathMaxRetransmits, 0xffff)), SackDelay: c.sackDelay(),
		Flags: SPP_HB_ENABLE | SPP_PMTUD_ENABLE | SPP_SACKDELAY_ENABLE}
	if pp.HeartbeatOff {
		out.Flags ^= SPP_HB_ENABLE | SPP_HB_DISABLE
	}
	for _, p := range c.as.Paths() {
		if ip.IsValid() && p.Addr.IP.Unmap() == ip.Unmap() || !ip.IsValid() && p.Primary {
			out.PathMTU = uint32(p.MTU)
		}
	}
	return out, nil
}

// SetPeerAddrParams changes the settings of the peer address p.Address,
// or of every peer address and those to come when it is nil, as
// SCTP_PEER_ADDR_PARAMS does: a HBInterval other than 0 sets the
// heartbeat interval (SPP_HB_TIME_IS_ZERO sets it to 0: a HEARTBEAT every
// RTO), SPP_HB_ENABLE and SPP_HB_DISABLE turn HEARTBEATs of an idle
// active address on and off, a PathMaxRxt other than 0 sets
// Path.Max.Retrans; the rest is kept. As the kernel, it refuses with
// EINVAL both flags of a pair, a SackDelay over 500 ms, a PathMTU under
// 512, an association id not this one and an address not the peer's.
// SPP_HB_DEMAND, SPP_PMTUD_DISABLE (path MTU discovery is always on),
// SPP_SACKDELAY_DISABLE or a SackDelay other than 200, SPP_IPV6_FLOWLABEL
// and SPP_DSCP fail with EOPNOTSUPP, matching errors.ErrUnsupported. A
// PeerAddrParams read with GetPeerAddrParams is accepted back with changed
// fields.
func (c *SCTPConn) SetPeerAddrParams(p *PeerAddrParams) error {
	const opt = "SCTP_PEER_ADDR_PARAMS"
	if p == nil {
		return optErr(opt, syscall.EINVAL, "no parameters")
	}
	ip, err := c.peerIP(opt, p.AssocID, p.Address)
	if err != nil {
		return err
	}
	switch {
	case p.Flags&SPP_HB == SPP_HB:
		return optErr(opt, syscall.EINVAL, "SPP_HB_ENABLE and SPP_HB_DISABLE both set")
	case p.Flags&SPP_PMTUD == SPP_PMTUD:
		return optErr(opt, syscall.EINVAL, "SPP_PMTUD_ENABLE and SPP_PMTUD_DISABLE both set")
	case p.Flags&SPP_SACKDELAY == SPP_SACKDELAY:
		return optErr(opt, syscall.EINVAL, "SPP_SACKDELAY_ENABLE and SPP_SACKDELAY_DISABLE both set")
	case p.SackDelay > 500:
		return optErr(opt, syscall.EINVAL, "SackDelay %d ms over 500", p.SackDelay)
	case p.PathMTU != 0 && p.PathMTU < 512:
		return optErr(opt, syscall.EINVAL, "PathMTU %d under 512", p.PathMTU)
	case p.Flags&(SPP_HB_DEMAND|SPP_PMTUD_DISABLE|SPP_SACKDELAY_DISABLE|SPP_IPV6_FLOWLABEL|SPP_DSCP) != 0:
		return optErr(opt, syscall.EOPNOTSUPP, "flags %#x: on-demand HEARTBEATs, fixed path MTUs, SACK delays, flow labels and DSCP cannot be set: %w",
			p.Flags&(SPP_HB_DEMAND|SPP_PMTUD_DISABLE|SPP_SACKDELAY_DISABLE|SPP_IPV6_FLOWLABEL|SPP_DSCP), errors.ErrUnsupported)
	case p.SackDelay != 0 && p.SackDelay != c.sackDelay():
		return optErr(opt, syscall.EOPNOTSUPP, "SackDelay %d ms per address: the delayed SACK timer is the association's, %d ms (SetSackTimer sets it): %w", p.SackDelay, c.sackDelay(), errors.ErrUnsupported)
	}
	return c.changePathParams(opt, ip, func(pp *usctp.PathParams) {
		if p.HBInterval != 0 {
			pp.HeartbeatInterval = time.Duration(p.HBInterval) * time.Millisecond
		} else if p.Flags&SPP_HB_TIME_IS_ZERO != 0 {
			pp.HeartbeatInterval = 0
		}
		if p.Flags&SPP_HB_ENABLE != 0 {
			pp.HeartbeatOff = false
		}
		if p.Flags&SPP_HB_DISABLE != 0 {
			pp.HeartbeatOff = true
		}
		if p.PathMaxRxt != 0 {
			pp.PathMaxRetransmits = int(p.PathMaxRxt)
		}
	})
}

// GetPeerAddrThlds returns Path.Max.Retrans and the potentially-failed
// threshold of the peer address addr, or the association's for a nil
// addr, as SCTP_PEER_ADDR_THLDS does. An address not the peer's gives
// ENOENT, as the kernel's.
func (c *SCTPConn) GetPeerAddrThlds(addr *SCTPAddr) (*PeerAddrThlds, error) {
	const opt = "SCTP_PEER_ADDR_THLDS"
	ip, err := c.peerIP(opt, 0, addr)
	if err != nil {
		return nil, err
	}
	pp, err := c.as.PathParams(ip)
	if err != nil {
		return nil, pathErr(opt, ip, syscall.ENOENT, err)
	}
	return &PeerAddrThlds{AssocID: c.id, Address: addr, PathMaxRxt: uint16(min(pp.PathMaxRetransmits, 0xffff)),
		PathPFThld: uint16(min(pp.PFThreshold, 0xffff))}, nil
}

// SetPeerAddrThlds sets the potentially-failed threshold (RFC 7829's PFMR:
// a path whose errors exceed it is potentially failed, and data moves
// to another active path; at or above Path.Max.Retrans there is no such
// state) and, when PathMaxRxt is not 0, Path.Max.Retrans, of the peer
// address t.Address or of all of them when it is nil, as
// SCTP_PEER_ADDR_THLDS does. An address not the peer's gives ENOENT.
func (c *SCTPConn) SetPeerAddrThlds(t *PeerAddrThlds) error {
	const opt = "SCTP_PEER_ADDR_THLDS"
	if t == nil {
		return optErr(opt, syscall.EINVAL, "no thresholds")
	}
	ip, err := c.peerIP(opt, t.AssocID, t.Address)
	if err != nil {
		return err
	}
	return c.changePathParams(opt, ip, func(pp *usctp.PathParams) {
		if t.PathMaxRxt != 0 {
			pp.PathMaxRetransmits = int(t.PathMaxRxt)
		}
		pp.PFThreshold = int(t.PathPFThld)
	})
}

// changePathParams applies change to the settings of the peer address ip,
// or, for the zero Addr, to the association's and to each path's own (a
// path set apart keeps what change does not touch, as in the kernel).
func (c *SCTPConn) changePathParams(opt string, ip netip.Addr, change func(*usctp.PathParams)) error {
	unknown := syscall.EINVAL
	if opt == "SCTP_PEER_ADDR_THLDS" {
		unknown = syscall.ENOENT
	}
	pp, err := c.as.PathParams(ip)
	if err != nil {
		return pathErr(opt, ip, unknown, err)
	}
	type own struct {
		ip netip.Addr
		pp usctp.PathParams
	}
	var paths []own
	if !ip.IsValid() {
		for _, p := range c.as.Paths() {
			ppp, err := c.as.PathParams(p.Addr.IP)
			if err != nil {
				return pathErr(opt, p.Addr.IP, unknown, err)
			}
			change(&ppp)
			paths = append(paths, own{p.Addr.IP, ppp})
		}
	}
	change(&pp)
	if err := c.as.SetPathParams(ip, pp); err != nil {
		return pathErr(opt, ip, unknown, err)
	}
	for _, p := range paths {
		if p.pp == pp {
			continue
		}
		if err := c.as.SetPathParams(p.ip, p.pp); err != nil {
			return pathErr(opt, p.ip, unknown, err)
		}
	}
	return nil
}
