package assoc

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Association setup from INIT chunks exchanged out of band, with no
// handshake on the wire (SNAP, draft-hancke-tsvwg-snap: WebRTC peers put
// their INIT in the SDP's a=sctp-init attribute). Each end makes its INIT
// (OutOfBandInit), the two ends swap them by other means, and each sets up
// its association from its own INIT and the peer's (ConnectOutOfBand): it
// takes its tag, initial TSN and stream counts from its own INIT, the
// peer's tag, initial TSN, a_rwnd, stream counts and extensions from the
// peer's, exactly as the handshake would have recorded them, and is
// ESTABLISHED at once. From then on it is an association like any other.
//
// The INIT never goes on the wire, so what it offers must be what the
// endpoint offers: ConnectOutOfBand refuses a local INIT whose extensions
// differ from the endpoint's configuration. AUTH (RFC 4895) and dynamic
// addresses (RFC 5061, which needs AUTH) are not set up this way: their
// keys are bound to the handshake's chunks.

// errOutOfBand wraps every reason an out-of-band INIT is refused.
var errOutOfBand = errors.New("sctp: out-of-band INIT")

// outOfBandExt are the extensions an out-of-band INIT must offer as the
// endpoint does.
const outOfBandExt = extForwardTSN | extIData | extReconfig | extZeroChecksum | extECN | extAuth | extASCONF

// OutOfBandInit returns a new INIT chunk for out-of-band setup: a fresh
// verification tag that no association of the endpoint uses, a random
// initial TSN, and the stream counts, receive window and extensions of the
// endpoint's configuration, as the endpoint's own INIT would carry them.
// It fails when the endpoint offers AUTH or dynamic addresses.
func (ep *Endpoint) OutOfBandInit() ([]byte, error) {
	if err := ep.outOfBandConfig(); err != nil {
		return nil, err
	}
	a := ep.newAssoc(assocKey{})
	a.localTag = ep.newTag()
	a.localTSN = chunk.TSN(ep.random32())
	return a.appendInit(nil), nil
}

// outOfBandConfig refuses the configurations an out-of-band INIT cannot
// set up.
func (ep *Endpoint) outOfBandConfig() error {
	if ep.cfg.authOffered() || ep.cfg.DynamicAddrs {
		return fmt.Errorf("%w: AUTH and dynamic addresses need the handshake", errOutOfBand)
	}
	return nil
}

// ConnectOutOfBand creates an association to peer (local SCTP port
// localPort, the peer's peerPort) from the INIT chunk this end made
// (localInit, from OutOfBandInit) and the one the peer made (peerInit),
// exchanged out of band: no packet is sent for its setup, and it is
// ESTABLISHED (EventUp) when ConnectOutOfBand returns. It fails, and
// creates nothing, when either INIT is not one valid INIT chunk (RFC 9260
// section 3.3.2's checks: Initiate Tag 0, a_rwnd below 1500, no streams),
// when localInit offers other extensions than the endpoint, when its tag
// is another association's, or as Connect fails.
func (ep *Endpoint) ConnectOutOfBand(now time.Time, peer netip.AddrPort, localPort, peerPort uint16, localInit, peerInit []byte) (*Assoc, error) {
	if err := ep.outOfBandConfig(); err != nil {
		return nil, err
	}
	var local, remote initInfo
	if err := parseOutOfBandInit(localInit, &local); err != nil {
		return nil, fmt.Errorf("%w: local INIT: %w", errOutOfBand, err)
	}
	if err := parseOutOfBandInit(peerInit, &remote); err != nil {
		return nil, fmt.Errorf("%w: peer's INIT: %w", errOutOfBand, err)
	}
	if got, want := local.ext&outOfBandExt, ep.cfg.offered()&outOfBandExt; got != want {
		return nil, fmt.Errorf("%w: local INIT offers %s, the endpoint %s", errOutOfBand, extNames(got), extNames(want))
	}
	if localPort == 0 || peerPort == 0 {
		return nil, errInvalidPort
	}
	key := assocKey{peer: peer, localPort: localPort, peerPort: peerPort}
	if ep.assocs[key] != nil {
		return nil, ErrExists
	}
	if ep.tags[local.tag] != nil {
		return nil, fmt.Errorf("%w: local INIT: tag %08x is another association's", errOutOfBand, local.tag)
	}
	if max := ep.cfg.MaxAssociations; max > 0 && len(ep.assocs) >= max {
		return nil, errTooMany
	}
	a := ep.newAssoc(key)
	a.localTag, a.localTSN = local.tag, local.tsn
	a.localOS, a.localMIS = local.os, local.mis
	a.peerTag, a.peerTSN, a.peerRwnd = remote.tag, remote.tsn, remote.rwnd
	a.peerOS, a.peerMIS = remote.os, remote.mis
	a.peerExt = remote.ext
	for _, ip := range remote.addrs[:remote.naddrs] {
		a.addPeerAddr(ip)
	}
	a.stats.PeerAddrsIgnored += uint64(remote.ignored)
	a.negotiateStreams()
	ep.insert(a)
	a.startData(now)
	a.setState(stateEstablished)
	a.stats.AssocsUp++
	a.emit(api.Event{Kind: api.EventUp})
	a.startHeartbeat(now)
	a.setupPaths(now)
	ep.reached(a)
	return a, nil
}

// parseOutOfBandInit parses b, which must hold one INIT chunk (its padding
// optional), into in and applies the checks of RFC 9260 section 3.3.2.
func parseOutOfBandInit(b []byte, in *initInfo) error {
	it := chunk.Chunks(b)
	c, ok := it.Next()
	switch {
	case !ok && it.Err() != nil:
		return it.Err()
	case !ok:
		return errors.New("empty")
	case c.Type != chunk.TypeInit:
		return fmt.Errorf("chunk type %v, not INIT", c.Type)
	case c.Flags != 0:
		return fmt.Errorf("INIT with flags %#x", c.Flags)
	}
	if _, more := it.Next(); more || it.Err() != nil {
		return errors.New("bytes after the INIT chunk")
	}
	rx := rxChunk{typ: c.Type, flags: c.Flags, raw: b[:c.Len()]}
	if !parseInit(&rx, in) {
		_, err := chunk.ParseInit(c)
		return err
	}
	switch in.check(false) {
	case initZeroTag:
		return errors.New("Initiate Tag 0")
	case initBadMandatory:
		return fmt.Errorf("a_rwnd %d, %d outbound and %d inbound streams (at least 1500 and 1 each)", in.rwnd, in.os, in.mis)
	case initHostName:
		return errors.New("Host Name Address parameter")
	case initAuthBad:
		return errors.New("AUTH parameters against RFC 4895 section 6.1")
	}
	return nil
}

// extNames names the extensions of f, for errors.
func extNames(f extFlags) string {
	var names []string
	for _, e := range []struct {
		f    extFlags
		name string
	}{
		{extForwardTSN, "FORWARD-TSN"}, {extIData, "I-DATA"}, {extReconfig, "RE-CONFIG"},
		{extZeroChecksum, "zero checksum"}, {extECN, "ECN"}, {extAuth, "AUTH"}, {extASCONF, "ASCONF"},
	} {
		if f&e.f != 0 {
			names = append(names, e.name)
		}
	}
	if names == nil {
		return "no extension"
	}
	return "[" + strings.Join(names, " ") + "]"
}
