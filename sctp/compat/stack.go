package sctp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// Transport names how the package's SCTP packets reach the network.
type Transport string

// Transports.
const (
	// TransportUDP is UDP encapsulation (RFC 6951) on UDPPort: it needs
	// no privilege and works on every system, and peers that are usctp
	// or a kernel with net.sctp.udp_port set understand it.
	TransportUDP Transport = "udp"
	// TransportIP is plain SCTP (IP protocol 132) over a raw socket, as
	// the kernel sends it: it needs CAP_NET_RAW (Linux), and on a host
	// whose kernel has SCTP loaded the kernel answers the packets too.
	TransportIP Transport = "ip"
	// TransportAuto is TransportIP when the process may open raw
	// sockets, else TransportUDP.
	TransportAuto Transport = "auto"
)

// DefaultTransport is the transport of the listeners and connections
// opened from now on: the environment variable USCTP_TRANSPORT ("udp",
// "ip" or "auto") when it is set, else TransportUDP. UDP is the default
// because it works for every process on every system with no privilege
// and never competes with a kernel SCTP stack for the same packets; raw
// IP is for talking to peers that only speak plain SCTP.
var DefaultTransport = transportFromEnv()

// UDPPort is the UDP encapsulation port listeners bind and connections
// send to (default 9899, IANA's; the environment variable USCTP_UDP_PORT
// when set), unless RemoteUDPPorts names another for the peer. Dialed
// connections send from a port the system picks. All listeners of the
// process share the socket of this port, as the kernel's listeners share
// its SCTP stack, told apart by SCTP port; on Linux, processes that may
// load BPF programs (CAP_BPF or CAP_SYS_ADMIN, bpffs at /sys/fs/bpf)
// share it with each other the same way (package usctp's
// Config.ExclusiveUDPPort). A listener bound to a wildcard address and
// one bound to a specific address share it too: a packet goes to the
// listener of its destination address if there is one, else to the
// wildcard one.
var UDPPort = udpPortFromEnv()

// RemoteUDPPorts names the UDP encapsulation ports of peers that do not
// listen on UDPPort, for the connections dialed from now on: a dial to a
// peer uses the port of the first entry that matches it, else UDPPort.
// An entry is "IP:PORT/udp:N" (the peer at that address and SCTP port;
// IPv6 addresses in brackets), "IP/udp:N" (every SCTP port at that
// address) or ":PORT/udp:N" (that SCTP port at every address). It starts
// as the entries of the environment variable USCTP_REMOTE_UDP_PORTS,
// separated by spaces or commas; a malformed entry fails the dials.
var RemoteUDPPorts = strings.FieldsFunc(os.Getenv("USCTP_REMOTE_UDP_PORTS"), func(r rune) bool {
	return r == ',' || r == ' ' || r == '\t' || r == '\n'
})

// remoteUDPPort returns the UDP encapsulation port of the peer at ips and
// SCTP port port (RemoteUDPPorts, else UDPPort).
func remoteUDPPort(ips []netip.Addr, port uint16) (uint16, error) {
	for _, e := range RemoteUDPPorts {
		addr, n, ok := strings.Cut(e, "/udp:")
		udp, err := strconv.ParseUint(n, 10, 16)
		if !ok || err != nil || udp == 0 {
			return 0, fmt.Errorf("sctp: RemoteUDPPorts entry %q: want IP:PORT/udp:N, IP/udp:N or :PORT/udp:N", e)
		}
		host, sport := addr, ""
		if i := strings.LastIndexByte(addr, ':'); i >= 0 && !strings.HasSuffix(addr, "]") {
			host, sport = addr[:i], addr[i+1:]
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if sport != "" {
			p, err := strconv.ParseUint(sport, 10, 16)
			if err != nil {
				return 0, fmt.Errorf("sctp: RemoteUDPPorts entry %q: bad SCTP port", e)
			}
			if uint16(p) != port {
				continue
			}
		}
		if host != "" {
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return 0, fmt.Errorf("sctp: RemoteUDPPorts entry %q: bad IP address", e)
			}
			if !slices.Contains(ips, ip.Unmap()) {
				continue
			}
		}
		return uint16(udp), nil
	}
	return UDPPort, nil
}

func transportFromEnv() Transport {
	switch t := Transport(os.Getenv("USCTP_TRANSPORT")); t {
	case TransportIP, TransportAuto, TransportUDP:
		return t
	}
	return TransportUDP
}

func udpPortFromEnv() uint16 {
	if p, err := strconv.ParseUint(os.Getenv("USCTP_UDP_PORT"), 10, 16); err == nil && p != 0 {
		return uint16(p)
	}
	return 9899
}

// ErrUnsupported is wrapped by the errors of what needs a kernel socket:
// file descriptors, raw socket options, peel-off. It matches
// errors.ErrUnsupported.
var ErrUnsupported = fmt.Errorf("sctp (usctp): no kernel socket behind this connection: %w", errors.ErrUnsupported)

// config returns package usctp's configuration for an InitMsg and a
// transport, for a listener or a connection dialed (from a UDP port the
// system picks, so that programs on one host do not compete for
// UDPPort).
//
// Multi-homing (the peer's other addresses as alternate paths) is on when
// the program named several addresses, local or remote: a peer's other
// addresses are not always reachable from here, and each costs HEARTBEATs
// (one that answers ICMP port unreachable only counts against its own
// path in package sctp).
func config(init InitMsg, t Transport, listening, multi bool) *usctp.Config {
	c := &usctp.Config{
		OutStreams:   init.NumOstreams,
		InStreams:    init.MaxInstreams,
		Paths:        usctp.Paths{Multihoming: multi},
		CloseTimeout: 5 * time.Second,
		// SCTP_SENDER_DRY_EVENT is subscribed to at run time: the
		// association reports it, and notify filters it.
		SenderDryEvents: true,
		// As the kernel, which closes a dead process's sockets: the
		// associations are aborted when the process ends.
		AbortOnExit: true,
	}
	if c.OutStreams == 0 {
		c.OutStreams = 10 // Linux's default sinit_num_ostreams
	}
	if init.MaxAttempts > 0 {
		c.Timers.MaxInitRetransmits = int(init.MaxAttempts)
	}
	if init.MaxInitTimeout > 0 {
		c.Timers.InitRTOMax = time.Duration(init.MaxInitTimeout) * time.Millisecond
	}
	if t == TransportIP {
		c.Transport = usctp.IP
	} else if listening {
		c.UDPPort = UDPPort
	}
	return c
}

// withTransport runs open with the transport DefaultTransport selects;
// for TransportAuto, raw IP and then UDP, and the error says why neither
// worked.
func withTransport[T any](open func(Transport) (T, error)) (T, error) {
	t := DefaultTransport
	if t != TransportAuto {
		return open(t)
	}
	v, err := open(TransportIP)
	if err == nil {
		return v, nil
	}
	var ae *usctp.AbortError
	if errors.As(err, &ae) || !errors.Is(err, os.ErrPermission) && !errors.Is(err, syscall.EPROTONOSUPPORT) && !errors.Is(err, errors.ErrUnsupported) {
		// Raw IP works; the operation failed (an association's EACCES
		// is a prohibit route's, not the socket's).
		return v, err
	}
	v, uerr := open(TransportUDP)
	if uerr != nil {
		return v, fmt.Errorf("sctp (usctp): neither transport works: raw IP: %v; UDP encapsulation: %w", err, uerr)
	}
	return v, nil
}

// listenHost is the host part of package usctp's listen address for
// laddr on network.
func listenHost(network string, laddr *SCTPAddr) (string, error) {
	if laddr != nil && len(laddr.IPAddrs) > 0 {
		ips, err := laddr.netIPs()
		if err != nil {
			return "", err
		}
		return hostList(ips), nil
	}
	switch network {
	case "sctp4":
		return "0.0.0.0", nil
	case "sctp6":
		return "::", nil
	case "", "sctp":
		return "", nil
	}
	return "", net.UnknownNetworkError(network)
}

// listen opens a listener on laddr; port 0 (or laddr nil) picks a free
// ephemeral SCTP port, as the kernel does.
func listen(network string, laddr *SCTPAddr, init InitMsg, handler NotificationHandler) (*SCTPListener, error) {
	host, err := listenHost(network, laddr)
	if err != nil {
		return nil, err
	}
	port := 0
	if laddr != nil {
		port = laddr.Port
	}
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("sctp: bad port %d", port)
	}
	bound := port
	ep, err := withTransport(func(t Transport) (*usctp.Endpoint, error) {
		cfg := config(init, t, true, laddr != nil && len(laddr.IPAddrs) > 1)
		if port != 0 {
			return listenHosts(host, port, cfg)
		}
		// The SCTP port only: a UDP socket that cannot bind fails at
		// once, whatever the SCTP port.
		start := rand.IntN(16384)
		for i := range 16384 {
			bound = 49152 + (start+i)%16384
			ep, err := listenHosts(host, bound, cfg)
			if !errors.Is(err, usctp.ErrPortInUse) {
				return ep, err
			}
		}
		return nil, fmt.Errorf("sctp: no free SCTP port: %w", syscall.EADDRINUSE)
	})
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: "sctp", Addr: laddr, Err: err}
	}
	return &SCTPListener{ep: ep, handler: handler, init: init, network: network, host: host, port: bound}, nil
}

// listenHosts is usctp.Listen on host (one address, or several separated
// by commas: a multi-homed endpoint) and port.
func listenHosts(host string, port int, cfg *usctp.Config) (*usctp.Endpoint, error) {
	ep, err := usctp.Listen(usctpAddr(host, port), cfg)
	return ep, opCause(err)
}

// opCause returns the cause of an error of package usctp's Dial or Listen,
// a *net.OpError of its own: this package returns a *net.OpError with the
// program's own address around it.
func opCause(err error) error {
	if oe, ok := err.(*net.OpError); ok && oe.Net == "sctp" {
		return oe.Err
	}
	return err
}

func cutComma(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// dial connects to raddr, from laddr when given.
func dial(network string, laddr, raddr *SCTPAddr, init InitMsg, handler NotificationHandler) (*SCTPConn, error) {
	if raddr == nil || len(raddr.IPAddrs) == 0 {
		return nil, &net.OpError{Op: "dial", Net: "sctp", Err: errors.New("missing address")}
	}
	switch network {
	case "", "sctp", "sctp4", "sctp6":
	default:
		return nil, net.UnknownNetworkError(network)
	}
	peers, err := raddr.netIPs()
	if err != nil {
		return nil, err
	}
	var local []netip.Addr
	if laddr != nil {
		if local, err = laddr.netIPs(); err != nil {
			return nil, err
		}
	}
	type result struct {
		as *usctp.Association
		ep *usctp.Endpoint
	}
	udpPort, err := remoteUDPPort(peers, uint16(raddr.Port))
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "sctp", Addr: raddr, Err: err}
	}
	r, err := withTransport(func(t Transport) (result, error) {
		cfg := config(init, t, false, len(peers) > 1 || len(local) > 1)
		if t != TransportIP {
			cfg.RemoteUDPPort = udpPort
		}
		if laddr != nil {
			cfg.LocalPort = uint16(laddr.Port)
		}
		// As sctp_connectx: the INIT goes to the first address and each
		// retransmission to the next; the peer's other addresses come
		// with its INIT ACK (alternate paths with Config.Paths.Multihoming).
		port, ctx := uint16(raddr.Port), context.Background()
		if len(local) > 1 {
			cfg.LocalAddrs = local // a multi-homed endpoint of the connection's own
		}
		if len(local) != 1 || local[0].IsUnspecified() {
			as, err := usctp.DialAddrs(ctx, peers, port, cfg)
			return result{as: as}, opCause(err)
		}
		ep, err := usctp.NewEndpoint(local[0], cfg)
		if err != nil {
			return result{}, err
		}
		as, err := ep.DialAddrs(ctx, peers, port)
		if err != nil {
			ep.Close()
			return result{}, opCause(err)
		}
		return result{as, ep}, nil
	})
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "sctp", Addr: raddr, Err: err}
	}
	return newConn(r.as, r.ep, handler, init), nil
}

// ListenSCTP listens on laddr (nil: every address and an ephemeral port)
// with the default InitMsg (SCTP_MAX_STREAM outbound streams).
func ListenSCTP(net string, laddr *SCTPAddr) (*SCTPListener, error) {
	return ListenSCTPExt(net, laddr, InitMsg{NumOstreams: SCTP_MAX_STREAM})
}

// ListenSCTPExt is ListenSCTP with the streams and INIT retransmissions
// of options.
func ListenSCTPExt(network string, laddr *SCTPAddr, options InitMsg) (*SCTPListener, error) {
	return listen(network, laddr, options, nil)
}

// DialSCTP connects to raddr from laddr (nil: any address, an ephemeral
// port) with the default InitMsg (SCTP_MAX_STREAM outbound streams).
func DialSCTP(net string, laddr, raddr *SCTPAddr) (*SCTPConn, error) {
	return DialSCTPExt(net, laddr, raddr, InitMsg{NumOstreams: SCTP_MAX_STREAM})
}

// DialSCTPExt is DialSCTP with the streams and INIT retransmissions of
// options.
func DialSCTPExt(network string, laddr, raddr *SCTPAddr, options InitMsg) (*SCTPConn, error) {
	return dial(network, laddr, raddr, options, nil)
}

// SocketConfig holds the options of Listen and Dial.
type SocketConfig struct {
	// Control, when set, is called before the socket is bound, as with
	// the kernel; there is no file descriptor here: the RawConn's methods
	// return ErrUnsupported, and an error Control returns fails the call.
	Control func(network, address string, c syscall.RawConn) error
	// NotificationHandler is called by SCTPRead with each notification
	// instead of returning it as data.
	NotificationHandler NotificationHandler
	// InitMsg is the streams and INIT retransmissions asked for.
	InitMsg InitMsg
}

// Listen is ListenSCTPExt with cfg's options.
func (cfg *SocketConfig) Listen(net string, laddr *SCTPAddr) (*SCTPListener, error) {
	if err := cfg.control(net, laddr); err != nil {
		return nil, err
	}
	return listen(net, laddr, cfg.InitMsg, cfg.NotificationHandler)
}

// Dial is DialSCTPExt with cfg's options.
func (cfg *SocketConfig) Dial(net string, laddr, raddr *SCTPAddr) (*SCTPConn, error) {
	if err := cfg.control(net, laddr); err != nil {
		return nil, err
	}
	return dial(net, laddr, raddr, cfg.InitMsg, cfg.NotificationHandler)
}

func (cfg *SocketConfig) control(network string, laddr *SCTPAddr) error {
	if cfg.Control == nil {
		return nil
	}
	var s string
	if laddr != nil {
		s = laddr.String()
	}
	return cfg.Control(network, s, noRawConn{})
}

// noRawConn is the syscall.RawConn of a socket that has no file
// descriptor.
type noRawConn struct{}

func (noRawConn) Control(func(fd uintptr)) error           { return ErrUnsupported }
func (noRawConn) Read(func(fd uintptr) (done bool)) error  { return ErrUnsupported }
func (noRawConn) Write(func(fd uintptr) (done bool)) error { return ErrUnsupported }
