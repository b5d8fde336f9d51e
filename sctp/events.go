package sctp

import (
	"github.com/usctp/usctp/sctp/internal/api"
)

// EventKind names an association event.
type EventKind = api.EventKind

// The association events.
const (
	EventUp                     = api.EventUp                     // the association is established
	EventDown                   = api.EventDown                   // the association was lost (Event.Err says why)
	EventRestart                = api.EventRestart                // the peer restarted (RFC 9260 section 5.2.4)
	EventShutdown               = api.EventShutdown               // graceful shutdown completed
	EventPeerAddrChange         = api.EventPeerAddrChange         // a peer address became reachable or unreachable
	EventSendFailed             = api.EventSendFailed             // a message was not delivered (Event.Msg holds it)
	EventPartialDeliveryAborted = api.EventPartialDeliveryAborted // a partly delivered message will not complete
	EventSenderDry              = api.EventSenderDry              // everything written was acknowledged (with Config.SenderDryEvents)
	EventStreamReset            = api.EventStreamReset            // streams were reset, or a reset failed (RFC 6525; Event.Direction, Streams, Err)
	EventPeerError              = api.EventPeerError              // the peer sent an ERROR chunk (Event.Cause)
	EventStreamsAdded           = api.EventStreamsAdded           // streams were added, or an addition failed (RFC 6525; Event.Direction, Added, Err)
	EventAssocReset             = api.EventAssocReset             // the TSNs and every stream's numbering were reset, or a reset failed (RFC 6525 SSN/TSN Reset; Event.NextTSN, PeerNextTSN, Err)
	EventAuthNewKey             = api.EventAuthNewKey             // the peer's AUTH chunks use another shared key (RFC 6458 SCTP_AUTH_NEW_KEY; Event.KeyID)
	EventAuthKeyFree            = api.EventAuthKeyFree            // a deleted shared key is out of use and freed (SCTP_AUTH_FREE_KEY; Event.KeyID)
	EventPathMTU                = api.EventPathMTU                // a path's PLPMTU changed (path MTU discovery; Event.Addr, MTU)
	EventBufferedLow            = api.EventBufferedLow            // a stream's buffered bytes fell to its low-water mark (Stream.SetBufferedLow; Event.Stream)
)

// StreamDirection names the direction of the streams a reconfiguration
// touches, seen from this end.
type StreamDirection = api.StreamDirection

// Stream directions.
const (
	DirOutgoing = api.DirOutgoing // our outbound streams (what we send)
	DirIncoming = api.DirIncoming // our inbound streams (what the peer sends)
	DirBoth     = api.DirBoth
)

// Event is a notification about an association.
//
// EventStreamReset and EventStreamsAdded come for this end's requests
// (Association.ResetStreams, AddStreams) and for the peer's alike: a
// reset of the peer's outgoing streams is DirIncoming here. So does
// EventAssocReset (Association.ResetAssociation, or the peer's SSN/TSN
// Reset Request), with Direction DirBoth.
type Event = api.Event

// AddrChange says what an EventPeerAddrChange reports.
type AddrChange = api.AddrChange

// Address changes.
const (
	AddrReachability = api.AddrReachability // the address's reachability changed (Reachable, PathState)
	AddrAdded        = api.AddrAdded        // the peer added the address (RFC 5061 ASCONF)
	AddrRemoved      = api.AddrRemoved      // the peer deleted the address
	AddrMadePrimary  = api.AddrMadePrimary  // the address became the primary: the peer asked for it, or SetPrimary, or the data came back to it (Event.MadePrimary)
)
