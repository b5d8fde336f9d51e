package netio

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Adapter is a Conn over a net.PacketConn or a connected net.Conn that
// the user supplies (for example DTLS for WebRTC), one packet per call.
type Adapter struct {
	pc       net.PacketConn // nil for a net.Conn
	udp      *net.UDPConn   // pc as a UDPConn: allocation-free fast path
	conn     net.Conn       // nil for a net.PacketConn
	pump     *connPump      // reads conn
	overhead int
	remote   netip.AddrPort // the net.Conn's remote address, if an IP one
	port     uint16         // peer port for a Packet.Addr with port 0
	rawIP    bool           // pc is a *net.IPConn: addresses are *net.IPAddr

	rmu sync.Mutex
	wmu sync.Mutex
	// addrs maps destinations to net.Addr values for WriteTo on a
	// generic PacketConn, so steady-state writes do not allocate.
	addrs map[netip.AddrPort]net.Addr
	last  net.Addr // last peer seen by ReadBatch on a generic PacketConn
}

// AdapterConfig configures NewAdapter and NewConnAdapter.
type AdapterConfig struct {
	// Overhead is what the user's connection adds below the SCTP common
	// header per packet (for DTLS over UDP: record header, AEAD tag, UDP
	// and IP headers). Zero means IP plus UDP headers for UDP addresses
	// and nothing otherwise.
	Overhead int
	// RemotePort is the peer port used for a Packet.Addr with port 0 on
	// a PacketConn; zero means DefaultUDPPort.
	RemotePort uint16
}

// NewAdapter returns a Conn that sends and receives one packet per call
// on pc. With a *net.UDPConn it allocates nothing per packet and drops
// datagrams too large for the caller's buffer.
func NewAdapter(pc net.PacketConn, cfg AdapterConfig) *Adapter {
	a := &Adapter{pc: pc, overhead: cfg.Overhead, port: cfg.RemotePort, addrs: make(map[netip.AddrPort]net.Addr)}
	if a.port == 0 {
		a.port = DefaultUDPPort
	}
	a.udp, _ = pc.(*net.UDPConn)
	_, a.rawIP = pc.(*net.IPConn)
	return a
}

// NewConnAdapter returns a Conn over a connected net.Conn whose Read and
// Write carry one packet each (a datagram or DTLS connection). A goroutine
// of its own reads c from the first ReadBatch on, and each ReadBatch
// returns the packets read since the last (connPump); the connection's
// read deadline is never set. Packets read carry the connection's remote
// address if it is an IP address; WriteBatch ignores Packet.Addr.
func NewConnAdapter(c net.Conn, cfg AdapterConfig) *Adapter {
	return &Adapter{conn: c, pump: newConnPump(c), overhead: cfg.Overhead, remote: netAddrPort(c.RemoteAddr())}
}

// netAddrPort converts a UDP or IP address; others give the zero value.
func netAddrPort(a net.Addr) netip.AddrPort {
	switch a := a.(type) {
	case *net.UDPAddr:
		ap := a.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	case *net.IPAddr:
		ip, _ := netip.AddrFromSlice(a.IP)
		return netip.AddrPortFrom(ip.Unmap(), 0)
	}
	return netip.AddrPort{}
}

// ReadBatch reads the packets that arrived on a net.Conn since the last
// call, at least one, or one packet from a net.PacketConn.
func (a *Adapter) ReadBatch(pkts []Packet) (int, error) {
	if len(pkts) == 0 {
		return 0, errEmptyBatch
	}
	a.rmu.Lock()
	defer a.rmu.Unlock()
	if a.pump != nil {
		n, err := a.pump.readBatch(pkts)
		for i := range pkts[:n] {
			p := &pkts[i]
			p.Addr, p.Notice, p.MTU = a.remote, NoticeNone, 0
		}
		return n, err
	}
	p := &pkts[0]
	for {
		switch {
		case a.udp != nil:
			n, _, flags, from, err := a.udp.ReadMsgUDPAddrPort(p.Buf, nil)
			if err != nil {
				return 0, err
			}
			if flags&msgTrunc != 0 || from.Port() == 0 {
				continue // too large, or unanswerable (see batchIO.unpack)
			}
			p.N, p.Addr, p.Notice, p.MTU = n, netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), NoticeNone, 0
			return 1, nil
		default:
			n, from, err := a.pc.ReadFrom(p.Buf)
			if err != nil {
				return 0, err
			}
			p.N, p.Addr, p.Notice, p.MTU = n, netAddrPort(from), NoticeNone, 0
			a.last = from
			return 1, nil
		}
	}
}

// WriteBatch writes each packet with its own call.
func (a *Adapter) WriteBatch(pkts []Packet) (int, error) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	for i := range pkts {
		p := &pkts[i]
		if !validLength(p) {
			return i, errBadLength
		}
		var err error
		switch {
		case a.conn != nil:
			_, err = a.conn.Write(p.Data())
		case a.udp != nil:
			dst := p.Addr
			if dst.Port() == 0 {
				dst = netip.AddrPortFrom(dst.Addr(), a.port)
			}
			_, err = a.udp.WriteToUDPAddrPort(p.Data(), dst)
		default:
			var to net.Addr
			to, err = a.netAddr(p.Addr)
			if err == nil {
				_, err = a.pc.WriteTo(p.Data(), to)
			}
		}
		if err != nil {
			return i, err
		}
	}
	return len(pkts), nil
}

// netAddr returns a cached net.Addr for ap; the zero ap means the last
// peer ReadBatch saw.
func (a *Adapter) netAddr(ap netip.AddrPort) (net.Addr, error) {
	if !ap.Addr().IsValid() {
		if a.last == nil {
			return nil, errors.New("netio: packet without a destination, and no peer seen yet")
		}
		return a.last, nil
	}
	if a.rawIP {
		ap = netip.AddrPortFrom(ap.Addr(), 0)
	} else if ap.Port() == 0 {
		ap = netip.AddrPortFrom(ap.Addr(), a.port)
	}
	if to, ok := a.addrs[ap]; ok {
		return to, nil
	}
	if len(a.addrs) >= 1024 {
		clear(a.addrs)
	}
	var to net.Addr = net.UDPAddrFromAddrPort(ap)
	if a.rawIP {
		to = &net.IPAddr{IP: ap.Addr().AsSlice(), Zone: ap.Addr().Zone()}
	}
	a.addrs[ap] = to
	return to, nil
}

// SetReadDeadline sets the deadline of ReadBatch: the underlying
// PacketConn's read deadline, or the pump's over a net.Conn.
func (a *Adapter) SetReadDeadline(t time.Time) error {
	if a.pump != nil {
		a.pump.setReadDeadline(t)
		return nil
	}
	return a.pc.SetReadDeadline(t)
}

// LocalAddr returns the local address if it is a UDP or IP one.
func (a *Adapter) LocalAddr() netip.AddrPort {
	if a.conn != nil {
		return netAddrPort(a.conn.LocalAddr())
	}
	return netAddrPort(a.pc.LocalAddr())
}

// RemoteAddr returns the address of the connected net.Conn's peer if it
// is a UDP or IP address, else the zero AddrPort.
func (a *Adapter) RemoteAddr() netip.AddrPort { return a.remote }

// Overhead returns AdapterConfig.Overhead, or the IP and UDP header sizes
// for a UDP connection when that was zero.
func (a *Adapter) Overhead(remote netip.Addr) int {
	if a.overhead != 0 {
		return a.overhead
	}
	var la net.Addr
	if a.conn != nil {
		la = a.conn.LocalAddr()
	} else {
		la = a.pc.LocalAddr()
	}
	if _, ok := la.(*net.UDPAddr); ok {
		return ipHeaderLen(remote) + UDPHeaderLen
	}
	return 0
}

// Close closes the underlying connection.
func (a *Adapter) Close() error {
	if a.conn != nil {
		a.pump.close()
		return a.conn.Close()
	}
	return a.pc.Close()
}
