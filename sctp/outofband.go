package sctp

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// errNoLocalPort is DialOutOfBand's error without Config.LocalPort.
var errNoLocalPort = errors.New("sctp: DialOutOfBand needs Config.LocalPort, the port agreed with the peer")

// OutOfBandInit returns an INIT chunk (RFC 9260 section 3.3.2) for
// setting up an association without the handshake, as SNAP
// (draft-hancke-tsvwg-snap, WebRTC's a=sctp-init) does: a fresh
// verification tag, a random initial TSN, and the stream counts, receive
// window and extensions an endpoint with configuration cfg offers in its
// INIT. The two ends exchange their INITs by other means (signalling) and
// each calls DialOutOfBand with its own and the peer's. Each call makes a
// new INIT; use one for one association. It fails when cfg is invalid or
// sets up AUTH or dynamic addresses, which need the handshake.
func OutOfBandInit(cfg *Config) ([]byte, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return assoc.NewEndpoint(c.coreConfig(0), time.Now()).OutOfBandInit()
}

// DialOutOfBand sets up an association to raddr (as Dial takes it, one
// address) from the INIT chunks the two ends exchanged out of band:
// localInit, made by OutOfBandInit with a configuration offering the same
// extensions as cfg, and peerInit, the peer's. No handshake runs: the
// association is established when DialOutOfBand returns, with the tags,
// TSNs, streams and extensions of the two INITs, and behaves from then on
// as one Dial made. Config.LocalPort must be the port the peer sends to.
// It fails, with Dial's errors, when either INIT is not a valid INIT
// chunk, when localInit offers other extensions than cfg, or when the
// endpoint cannot be made. The endpoint closes with the association.
func DialOutOfBand(ctx context.Context, raddr string, cfg *Config, localInit, peerInit []byte) (*Association, error) {
	return dialOutOfBandOn(ctx, raddr, cfg, nil, localInit, peerInit)
}

// dialOutOfBandOn is DialOutOfBand over conn, or over the socket cfg
// selects when conn is nil.
func dialOutOfBandOn(ctx context.Context, raddr string, cfg *Config, conn netio.Conn, localInit, peerInit []byte) (*Association, error) {
	a, err := dialAddr(ctx, raddr)
	if err != nil {
		return nil, opErr("dial", nil, err)
	}
	peers, err := peerAddrs(a.ips[:1], a.port)
	if err != nil {
		return nil, opErr("dial", nil, err)
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if a.udpPort != 0 {
		c.RemoteUDPPort = a.udpPort
	}
	if c.LocalPort == 0 {
		return nil, opErr("dial", peersAddr(peers), errNoLocalPort)
	}
	if c.MTU == 0 && conn == nil && c.PacketConn == nil && c.Conn == nil {
		c.MTU = peerMTU(a.ips[:1])
	}
	// The peer may send as soon as its own association exists: this one
	// must exist before the endpoint reads its first packet, which would
	// otherwise be out of the blue and answered with an ABORT.
	e, err := buildEndpoint(familyWildcard(a.ips[:1]), &c, conn, 0)
	if err != nil {
		return nil, opErr("dial", peersAddr(peers), err)
	}
	if err := e.connectOutOfBand(peers[0], localInit, peerInit); err != nil {
		e.Close()
		return nil, opErr("dial", peersAddr(peers), err)
	}
	e.start()
	e.wakeOwner()
	as, err := e.awaitUp(ctx, e.dialAssoc)
	if err != nil {
		return nil, opErr("dial", peersAddr(peers), err)
	}
	return as, nil
}

// connectOutOfBand creates the association of DialOutOfBand's endpoint
// from the two INITs.
func (e *Endpoint) connectOutOfBand(peer netip.AddrPort, localInit, peerInit []byte) error {
	lport := e.cfg.LocalPort
	if e.ports != nil {
		if err := e.ports.Claim(lport); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	a, err := e.core.ConnectOutOfBand(time.Now(), e.transportAddr(peer.Addr(), 0), lport, peer.Port(), localInit, peerInit)
	if err != nil {
		if e.ports != nil {
			e.ports.Release(lport)
		}
		return err
	}
	as := newAssociation(e, a)
	e.assocs[a] = as
	if e.ports != nil {
		as.claimedPort = lport
	}
	e.dialAssoc = as
	return nil
}
