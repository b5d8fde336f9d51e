//go:build linux

package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unsafe"
)

// AUTH (RFC 4895) socket options of Linux (include/uapi/linux/sctp.h, RFC 6458 section
// 8.1.20-8.3.3). The kernel offers AUTH only with net.sctp.auth_enable=1 set before the
// socket is created.
const (
	optAuthChunk     = 21 // SCTP_AUTH_CHUNK: struct sctp_authchunk { u8 sauth_chunk; }
	optHMACIdent     = 22 // SCTP_HMAC_IDENT: struct sctp_hmacalgo { u32 n; u16 ids[]; }
	optAuthKey       = 23 // SCTP_AUTH_KEY: struct sctp_authkey { assoc id; u16 keynumber; u16 keylength; u8 key[]; }
	optAuthActiveKey = 24 // SCTP_AUTH_ACTIVE_KEY: struct sctp_authkeyid { assoc id; u16 keynumber; }
	optAuthDeleteKey = 25 // SCTP_AUTH_DELETE_KEY: struct sctp_authkeyid
)

// authOpts are the AUTH options of listen and dial: authchunks=T,T... (chunk types the
// peer must authenticate), hmac=ID,ID... (HMAC identifiers in order of preference; 1 must
// be there), authkey=ID:HEX (an endpoint shared key, made active).
type authOpts struct {
	chunks []int
	hmacs  []int
	keyID  int
	key    []byte
	hasKey bool
}

func parseAuthOpts(a *args) authOpts {
	o := authOpts{chunks: a.ints("authchunks", nil, 0, 255), hmacs: a.ints("hmac", nil, 1, 65535)}
	if v, ok := a.m["authkey"]; ok {
		id, k, err := parseKey(v)
		if err != nil && a.err == nil {
			a.err = err
		}
		o.keyID, o.key, o.hasKey = id, k, err == nil
	}
	return o
}

// parseKey parses ID:HEX.
func parseKey(v string) (int, []byte, error) {
	ids, hx, _ := strings.Cut(v, ":")
	id, err := strconv.Atoi(ids)
	if err != nil || id < 0 || id > 65535 {
		return 0, nil, fmt.Errorf("authkey=%q: want ID:HEX", v)
	}
	k, err := hex.DecodeString(hx)
	if err != nil {
		return 0, nil, fmt.Errorf("authkey=%q: want ID:HEX", v)
	}
	return id, k, nil
}

// set applies the options to a socket before bind, listen or connect.
func (o *authOpts) set(fd int) error {
	for _, t := range o.chunks {
		b := byte(t)
		if err := setRaw(fd, optAuthChunk, unsafe.Pointer(&b), 1); err != nil {
			return fmt.Errorf("SCTP_AUTH_CHUNK %d: %w", t, err)
		}
	}
	if len(o.hmacs) > 0 {
		b := make([]byte, 4+2*len(o.hmacs))
		binary.NativeEndian.PutUint32(b, uint32(len(o.hmacs)))
		for i, id := range o.hmacs {
			binary.NativeEndian.PutUint16(b[4+2*i:], uint16(id))
		}
		if err := setRaw(fd, optHMACIdent, unsafe.Pointer(&b[0]), uintptr(len(b))); err != nil {
			return fmt.Errorf("SCTP_HMAC_IDENT %v: %w", o.hmacs, err)
		}
	}
	if o.hasKey {
		if err := setAuthKey(fd, o.keyID, o.key, true); err != nil {
			return err
		}
	}
	return nil
}

// setAuthKey adds a shared key (SCTP_AUTH_KEY) to the socket's endpoint, or to its
// association once connected (assoc id 0 names it on a one-to-one socket), and makes it
// active when asked (SCTP_AUTH_ACTIVE_KEY).
func setAuthKey(fd, id int, key []byte, active bool) error {
	b := make([]byte, 8+len(key)+1)
	binary.NativeEndian.PutUint32(b, futureAssoc)
	binary.NativeEndian.PutUint16(b[4:], uint16(id))
	binary.NativeEndian.PutUint16(b[6:], uint16(len(key)))
	copy(b[8:], key)
	if err := setRaw(fd, optAuthKey, unsafe.Pointer(&b[0]), uintptr(8+len(key))); err != nil {
		return fmt.Errorf("SCTP_AUTH_KEY %d: %w", id, err)
	}
	if active {
		return setKeyID(fd, optAuthActiveKey, id)
	}
	return nil
}

func setKeyID(fd, opt, id int) error {
	var b [8]byte
	binary.NativeEndian.PutUint32(b[:], futureAssoc)
	binary.NativeEndian.PutUint16(b[4:], uint16(id))
	if err := setRaw(fd, opt, unsafe.Pointer(&b[0]), 8); err != nil {
		return fmt.Errorf("setsockopt(%d) key %d: %w", opt, id, err)
	}
	return nil
}

// authKey runs "authkey id=C [conn=N] keyid=K [key=HEX] [active=1]": adds key K to
// the association (with key=) and makes it active (active=1).
func (p *peer) authKey(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	kid := a.int("keyid", 0, 0, 65535)
	active := a.str("active", "0") == "1"
	if a.err != nil {
		return a.err
	}
	if hx, ok := a.m["key"]; ok {
		k, err := hex.DecodeString(hx)
		if err != nil {
			return fmt.Errorf("key=%q: want hex", hx)
		}
		if err := setAuthKey(cn.fd, kid, k, active); err != nil {
			return err
		}
	} else if active {
		if err := setKeyID(cn.fd, optAuthActiveKey, kid); err != nil {
			return err
		}
	}
	p.printf("OK cmd=authkey id=%s conn=%d keyid=%d", id, cn.n, kid)
	return nil
}

// authDel runs "authdel id=C [conn=N] keyid=K" (SCTP_AUTH_DELETE_KEY; the kernel
// refuses the active key).
func (p *peer) authDel(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	kid := a.int("keyid", 0, 0, 65535)
	if a.err != nil {
		return a.err
	}
	if err := setKeyID(cn.fd, optAuthDeleteKey, kid); err != nil {
		return err
	}
	p.printf("OK cmd=authdel id=%s conn=%d keyid=%d", id, cn.n, kid)
	return nil
}

// Dynamic addresses (RFC 5061; needs net.sctp.addip_enable=1 before the socket exists).
const (
	optBindxAdd = 100 // SCTP_SOCKOPT_BINDX_ADD: packed struct sockaddr array
	optBindxRem = 101 // SCTP_SOCKOPT_BINDX_REM
)

// bindx runs "bindx id=C [conn=N] addr=A op=add|del": adds or removes a local IPv4
// address of the association's socket (sctp_bindx), which makes the kernel send an ASCONF
// to the peer.
func (p *peer) bindx(id string, a *args) error {
	cn, err := p.find(id, a)
	if err != nil {
		return err
	}
	ip := net.ParseIP(a.str("addr", "")).To4()
	op := a.str("op", "add")
	if ip == nil || (op != "add" && op != "del") {
		return fmt.Errorf("bindx: want addr=IPv4 op=add|del")
	}
	var sa [16]byte // struct sockaddr_in, port 0: the socket's port
	binary.NativeEndian.PutUint16(sa[0:], 2)
	copy(sa[4:], ip)
	opt := optBindxAdd
	if op == "del" {
		opt = optBindxRem
	}
	if err := setRaw(cn.fd, opt, unsafe.Pointer(&sa[0]), 16); err != nil {
		return fmt.Errorf("sctp_bindx %s %v: %w", op, ip, err)
	}
	p.printf("OK cmd=bindx id=%s conn=%d op=%s", id, cn.n, op)
	return nil
}
