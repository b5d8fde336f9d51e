//go:build linux

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"unsafe"

	"github.com/ishidawataru/sctp"
)

// Multi-homing: address lists in listen and dial (sctp_bindx and
// sctp_connectx through ishidawataru/sctp's SCTPAddr with several IPs), the
// SCTP_PEER_ADDR_CHANGE notification (paddr=1), and the per-address
// options SCTP_PRIMARY_ADDR, SCTP_PEER_ADDR_PARAMS, SCTP_PEER_ADDR_THLDS and
// SCTP_GET_PEER_ADDR_INFO (include/uapi/linux/sctp.h; the structures are
// packed, aligned to 4).
const (
	optPrimaryAddr      = 6  // SCTP_PRIMARY_ADDR
	optPeerAddrParams   = 9  // SCTP_PEER_ADDR_PARAMS
	optGetPeerAddrInfo  = 15 // SCTP_GET_PEER_ADDR_INFO
	optPeerAddrThlds    = 31 // SCTP_PEER_ADDR_THLDS
	sctpPeerAddrChange  = 0x8002
	sizeofSockaddrStore = 128
	sizeofPrim          = 4 + sizeofSockaddrStore         // struct sctp_prim
	sizeofPaddrParams   = 156                             // struct sctp_paddrparams: 155 bytes packed, aligned to 4
	sizeofPaddrThlds    = 4 + sizeofSockaddrStore + 2 + 2 // struct sctp_paddrthlds
	sizeofPaddrInfo     = 4 + sizeofSockaddrStore + 4*6   // struct sctp_paddrinfo
	sppHBEnable         = 1                               // SPP_HB_ENABLE
	sppHBDisable        = 2                               // SPP_HB_DISABLE
	sppHBDemand         = 4                               // SPP_HB_DEMAND
)

// paddrStates names SCTP_PEER_ADDR_CHANGE's spc_state values.
var paddrStates = []string{"available", "unreachable", "removed", "added", "made_prim", "confirmed", "potentially_failed"}

// spinfoStates names SCTP_GET_PEER_ADDR_INFO's spinfo_state values.
var spinfoStates = []string{"inactive", "pf", "active", "unconfirmed"}

// sctpAddrs parses a comma-separated list of IPv4 addresses with one port.
func sctpAddrs(list string, port int) (*sctp.SCTPAddr, error) {
	a := &sctp.SCTPAddr{Port: port}
	for _, s := range strings.Split(list, ",") {
		ip := net.ParseIP(s)
		if ip == nil {
			return nil, fmt.Errorf("addr=%q: not an IP address list", list)
		}
		a.IPAddrs = append(a.IPAddrs, net.IPAddr{IP: ip})
	}
	return a, nil
}

// putSockaddrIn4 writes a sockaddr_in for ip and port at b (the kernel finds
// a peer address by both); the unspecified address leaves b zero (the
// association as a whole).
func putSockaddrIn4(b []byte, ip net.IP, port int) error {
	if ip == nil || ip.IsUnspecified() {
		return nil
	}
	v4 := ip.To4()
	if v4 == nil {
		return fmt.Errorf("%v: IPv4 only", ip)
	}
	binary.NativeEndian.PutUint16(b[0:], 2) // AF_INET
	binary.BigEndian.PutUint16(b[2:], uint16(port))
	copy(b[4:8], v4)
	return nil
}

// peerPort returns the peer's SCTP port.
func (cn *conn) peerPort() int {
	if ra, ok := cn.c.RemoteAddr().(*sctp.SCTPAddr); ok && ra != nil {
		return ra.Port
	}
	return 0
}

// primary sets the peer's primary address (SCTP_PRIMARY_ADDR).
func (p *peer) primary(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	var b [sizeofPrim]byte
	if err := putSockaddrIn4(b[4:], net.ParseIP(a.str("addr", "")), cn.peerPort()); err != nil {
		return err
	}
	if err := setRaw(cn.fd, optPrimaryAddr, unsafe.Pointer(&b[0]), sizeofPrim); err != nil {
		return fmt.Errorf("SCTP_PRIMARY_ADDR: %w", err)
	}
	p.printf("OK cmd=primary id=%s", id)
	return nil
}

// paddrParams sets the heartbeat interval (hbinterval=MS, 0: off),
// Path.Max.Retrans (pathmaxrxt=N) and the potentially-failed threshold
// (pfthld=N) of one peer address (addr=IP) or of all (no addr):
// SCTP_PEER_ADDR_PARAMS and SCTP_PEER_ADDR_THLDS. demand=1 (with addr)
// also sends a HEARTBEAT there at once (SPP_HB_DEMAND): Linux keeps a
// heartbeat timer armed with the old interval (30 s by default) until it
// next fires, and the HEARTBEAT re-arms it with the new one.
func (p *peer) paddrParams(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	ip := net.ParseIP(a.str("addr", "0.0.0.0"))
	hb := a.int("hbinterval", -1, -1, 1<<30)
	pmr := a.int("pathmaxrxt", 0, 0, 65535)
	pf := a.int("pfthld", -1, -1, 65535)
	demand := a.int("demand", 0, 0, 1)
	if a.err != nil {
		return a.err
	}
	if demand == 1 && ip.IsUnspecified() {
		return errors.New("demand=1 needs addr=")
	}
	var b [156]byte
	if err := putSockaddrIn4(b[4:], ip, cn.peerPort()); err != nil {
		return err
	}
	off := 4 + sizeofSockaddrStore
	var flags uint32
	switch {
	case hb == 0:
		flags |= sppHBDisable
	case hb > 0:
		flags |= sppHBEnable
		binary.NativeEndian.PutUint32(b[off:], uint32(hb))
	}
	if demand == 1 {
		flags |= sppHBDemand
	}
	binary.NativeEndian.PutUint16(b[off+4:], uint16(pmr))
	binary.NativeEndian.PutUint32(b[off+4+2+4+4:], flags) // after spp_pathmtu, spp_sackdelay
	if hb >= 0 || pmr > 0 || demand == 1 {
		if err := setRaw(cn.fd, optPeerAddrParams, unsafe.Pointer(&b[0]), sizeofPaddrParams); err != nil {
			return fmt.Errorf("SCTP_PEER_ADDR_PARAMS: %w", err)
		}
	}
	if pf >= 0 {
		var t [sizeofPaddrThlds]byte
		putSockaddrIn4(t[4:], ip, cn.peerPort())
		binary.NativeEndian.PutUint16(t[off:], uint16(pmr))
		binary.NativeEndian.PutUint16(t[off+2:], uint16(pf))
		if err := setRaw(cn.fd, optPeerAddrThlds, unsafe.Pointer(&t[0]), sizeofPaddrThlds); err != nil {
			return fmt.Errorf("SCTP_PEER_ADDR_THLDS: %w", err)
		}
	}
	p.printf("OK cmd=paddrparams id=%s", id)
	return nil
}

// paths prints a PATH line per peer address (SCTP_GET_PEER_ADDR_INFO):
// state, cwnd, srtt and rto in milliseconds.
func (p *peer) paths(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	ra, ok := cn.c.RemoteAddr().(*sctp.SCTPAddr)
	if !ok || ra == nil {
		return fmt.Errorf("no peer addresses")
	}
	for _, pa := range ra.IPAddrs {
		var b [sizeofPaddrInfo]byte
		if err := putSockaddrIn4(b[4:], pa.IP, ra.Port); err != nil {
			return err
		}
		if _, err := getRaw(cn.fd, optGetPeerAddrInfo, b[:]); err != nil {
			return fmt.Errorf("SCTP_GET_PEER_ADDR_INFO %v: %w", pa.IP, err)
		}
		off := 4 + sizeofSockaddrStore
		st := int(binary.NativeEndian.Uint32(b[off:]))
		name := fmt.Sprint(st)
		if st >= 0 && st < len(spinfoStates) {
			name = spinfoStates[st]
		}
		p.printf("PATH id=%s conn=%d addr=%v state=%s cwnd=%d srtt=%d rto=%d", id, cn.n, pa.IP, name,
			binary.NativeEndian.Uint32(b[off+4:]), binary.NativeEndian.Uint32(b[off+8:]), binary.NativeEndian.Uint32(b[off+12:]))
	}
	p.printf("OK cmd=paths id=%s", id)
	return nil
}

// paddrEvent prints an SCTP_PEER_ADDR_CHANGE notification (struct
// sctp_paddr_change: type, flags, length, sockaddr_storage, state, error).
func (cn *conn) paddrEvent(b []byte) {
	if len(b) < 8+sizeofSockaddrStore+8 {
		return
	}
	var ip net.IP
	switch binary.NativeEndian.Uint16(b[8:]) {
	case 2:
		ip = net.IP(append([]byte(nil), b[12:16]...))
	case 10:
		ip = net.IP(append([]byte(nil), b[16:32]...))
	}
	st := int(binary.NativeEndian.Uint32(b[8+sizeofSockaddrStore:]))
	name := fmt.Sprint(st)
	if st >= 0 && st < len(paddrStates) {
		name = paddrStates[st]
	}
	cn.p.printf("EVENT id=%s conn=%d type=peer_addr_change addr=%v state=%s error=%d", cn.id, cn.n, ip, name,
		binary.NativeEndian.Uint32(b[8+sizeofSockaddrStore+4:]))
}
