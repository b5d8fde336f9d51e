package api

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// TestEventString: an event prints its kind and the fields that apply to
// it, none of the zero values of the others (an EventUp says "up", not a
// path state).
func TestEventString(t *testing.T) {
	addr := Addr{IP: netip.MustParseAddr("10.0.0.2"), Port: 5000, UDPPort: 9899}
	for _, c := range []struct {
		ev   Event
		want string
	}{
		{Event{Kind: EventUp}, "up"},
		{Event{Kind: EventShutdown}, "shutdown"},
		{Event{Kind: EventSenderDry}, "sender dry"},
		{Event{Kind: EventDown, Err: errors.New("sctp: association aborted by the peer (peer abort)")},
			"down: sctp: association aborted by the peer (peer abort)"},
		{Event{Kind: EventPeerAddrChange, Addr: addr, Reachable: true, PathState: PathActive},
			"peer address change 10.0.0.2:5000/udp:9899 (reachability, active)"},
		{Event{Kind: EventPeerAddrChange, Addr: addr, Change: AddrRemoved, PathState: PathInactive},
			"peer address change 10.0.0.2:5000/udp:9899 (removed)"},
		{Event{Kind: EventSendFailed, Stream: 1, PPID: 51, Msg: make([]byte, 100), MaybeDelivered: true, PR: PRTTL},
			"send failed (stream 1, PPID 51, 100 bytes, maybe delivered, policy " + PRTTL.String() + ")"},
		{Event{Kind: EventSendFailed, Stream: 2, Msg: make([]byte, 3), Unordered: true},
			"send failed (stream 2, PPID 0, 3 bytes, unordered, unsent, policy " + PRNone.String() + ")"},
		{Event{Kind: EventStreamReset, Direction: DirOutgoing, Streams: []uint16{3}}, "stream reset (outgoing, streams [3])"},
		{Event{Kind: EventStreamReset, Direction: DirBoth}, "stream reset (both, all streams)"},
		{Event{Kind: EventStreamsAdded, Direction: DirIncoming, Added: 4, Err: ErrReconfigDenied},
			"streams added (incoming, 4 added: " + ErrReconfigDenied.Error() + ")"},
		{Event{Kind: EventPathMTU, Addr: addr, MTU: 1372}, "path MTU 10.0.0.2:5000/udp:9899 (MTU 1372)"},
		{Event{Kind: EventAuthNewKey, KeyID: 2}, "auth new key (key 2)"},
		{Event{Kind: EventPeerError, Cause: 6}, "peer error (cause 6)"},
	} {
		if got := c.ev.String(); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.ev.Kind, got, c.want)
		}
		if strings.Contains(c.ev.String(), "unconfirmed") {
			t.Errorf("%q prints a zero path state", c.ev.String())
		}
	}
}
