package sctp

import (
	"bytes"
	"encoding/binary"
	"net"
	"net/netip"
	"testing"

	usctp "github.com/usctp/usctp/sctp"
)

// The notifications byte for byte against the structs of <linux/sctp.h>,
// written here as Go structs and encoded with encoding/binary in host
// byte order (independently of notify.go's field-by-field appends). Only
// sctp_remote_error's sre_error is in network byte order (__be16).

// Mirrors of the kernel's structs.
type (
	kAssocChange struct {
		Type, Flags           uint16
		Length                uint32
		State, Error, Out, In uint16
		AssocID               int32
	}
	kRemoteError struct {
		Type, Flags uint16
		Length      uint32
		Error       [2]byte // __be16
		_           uint16  // padding before sre_assoc_id
		AssocID     int32
	}
	kPDAPI struct {
		Type, Flags uint16
		Length      uint32
		Indication  uint32
		AssocID     int32
		Stream, Seq uint32
	}
	kSendFailed struct {
		Type, Flags uint16
		Length      uint32
		Error       uint32
		Info        SndRcvInfo
		AssocID     int32
	}
	kPaddrChange struct {
		Type, Flags uint16
		Length      uint32
		Addr        [128]byte
		State       int32
		Error       int32
		AssocID     int32
	}
)

// hostBytes encodes v in host byte order.
func hostBytes(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := binary.Write(&b, binary.NativeEndian, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestNotificationLayouts: SCTP_ASSOC_CHANGE, SCTP_REMOTE_ERROR,
// SCTP_PARTIAL_DELIVERY_EVENT and SCTP_SEND_FAILED are the kernel's
// structs, field for field, in the byte order the kernel uses.
func TestNotificationLayouts(t *testing.T) {
	c := &SCTPConn{id: 7, events: SCTP_EVENT_ALL}
	check := func(name string, got []byte, want any) {
		t.Helper()
		if w := hostBytes(t, want); !bytes.Equal(got, w) {
			t.Errorf("%s:\n got %x\nwant %x", name, got, w)
		}
	}
	check("sctp_assoc_change", assocChange(7, SCTP_COMM_LOST, 0x0102, 5, 6),
		kAssocChange{Type: uint16(SCTP_ASSOC_CHANGE), Length: 20, State: uint16(SCTP_COMM_LOST), Error: 0x0102, Out: 5, In: 6, AssocID: 7})
	check("sctp_remote_error", c.notification(&usctp.Event{Kind: usctp.EventPeerError, Cause: 0x0102}),
		kRemoteError{Type: uint16(SCTP_REMOTE_ERROR), Length: 16, Error: [2]byte{0x01, 0x02}, AssocID: 7})
	check("sctp_pdapi_event", c.notification(&usctp.Event{Kind: usctp.EventPartialDeliveryAborted, Stream: 9}),
		kPDAPI{Type: uint16(SCTP_PARTIAL_DELIVERY_EVENT), Length: 24, Indication: sctpPartialDeliveryAborted, AssocID: 7, Stream: 9})
	for _, maybe := range []bool{false, true} {
		flags := uint16(sctpDataUnsent)
		if maybe {
			flags = sctpDataSent
		}
		got := c.notification(&usctp.Event{Kind: usctp.EventSendFailed, Stream: 3, PPID: 0x01020304, MaybeDelivered: maybe, Msg: []byte("msg")})
		want := hostBytes(t, kSendFailed{Type: uint16(SCTP_SEND_FAILED), Flags: flags, Length: 48 + 3,
			Info: SndRcvInfo{Stream: 3, PPID: 0x01020304, AssocID: 7}, AssocID: 7})
		if want = append(want, "msg"...); !bytes.Equal(got, want) {
			t.Errorf("sctp_send_failed (may have been delivered %v):\n got %x\nwant %x", maybe, got, want)
		}
	}
}

// TestSndRcvInfoLayout: struct sctp_sndrcvinfo in host byte order, both
// ways.
func TestSndRcvInfoLayout(t *testing.T) {
	info := SndRcvInfo{Stream: 0x0102, SSN: 0x0304, Flags: SCTP_UNORDERED, PPID: 0x05060708, Context: 0x090a0b0c,
		TTL: 0x0d0e0f10, TSN: 0x11121314, CumTSN: 0x15161718, AssocID: 0x191a1b1c}
	want := hostBytes(t, info)
	if got := appendSndRcvInfo(nil, &info); !bytes.Equal(got, want) {
		t.Fatalf("appendSndRcvInfo:\n got %x\nwant %x", got, want)
	}
	if got := parseSndRcvInfo(want); *got != info {
		t.Fatalf("parseSndRcvInfo: %+v, want %+v", *got, info)
	}
}

// TestPeerAddrChangeLayout: SCTP_PEER_ADDR_CHANGE is struct sctp_paddr_change
// (148 bytes: the peer address as a sockaddr_storage, then spc_state,
// spc_error and the assoc id in host byte order), with
// SCTP_ADDR_POTENTIALLY_FAILED for a potentially failed path (RFC 7829,
// as Linux reports it), SCTP_ADDR_AVAILABLE for one reachable again and
// SCTP_ADDR_UNREACHABLE for one inactive.
func TestPeerAddrChangeLayout(t *testing.T) {
	ln := listenLoop(t, nil)
	go func() {
		if s, err := ln.AcceptSCTP(); err == nil {
			t.Cleanup(func() { s.Close() })
		}
	}()
	c, err := DialSCTP("sctp4", nil, loopAddr(lnPort(ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.mu.Lock()
	c.events = SCTP_EVENT_ALL
	c.mu.Unlock()
	peer := netip.MustParseAddr("127.0.0.1")
	for _, tt := range []struct {
		ev    usctp.Event
		state int32
	}{
		{usctp.Event{PathState: usctp.PathPotentiallyFailed}, sctpAddrPotentiallyFailed},
		{usctp.Event{PathState: usctp.PathActive, Reachable: true}, sctpAddrAvailable},
		{usctp.Event{PathState: usctp.PathInactive}, sctpAddrUnreachable},
	} {
		ev := tt.ev
		ev.Kind, ev.Addr = usctp.EventPeerAddrChange, usctp.Addr{IP: peer}
		c.mu.Lock()
		got := c.notification(&ev)
		c.mu.Unlock()
		want := kPaddrChange{Type: uint16(SCTP_PEER_ADDR_CHANGE), Length: 148, State: tt.state, AssocID: int32(c.id)}
		copy(want.Addr[:], appendSockaddr(nil, net.IPAddr{IP: net.IP(peer.AsSlice())}, uint16(lnPort(ln))))
		if w := hostBytes(t, want); !bytes.Equal(got, w) {
			t.Errorf("path %v: sctp_paddr_change\n got %x\nwant %x", ev.PathState, got, w)
		}
	}
}
