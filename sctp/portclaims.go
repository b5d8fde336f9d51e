package sctp

import "github.com/usctp/usctp/sctp/internal/netio"

// An endpoint whose socket is shared with other endpoints of the process
// (netio.SharedConn: a listener's UDP encapsulation socket on a fixed
// port, a raw IP socket; netio.DualIPConn: a pair of raw sockets) gets the
// packets of the SCTP ports it claims: its listening port as it opens,
// each dialed association's port while the association lives.

// portClaimer is a view of shared sockets on which a dialed association
// claims its SCTP port.
type portClaimer interface {
	claim(port uint16) error
	release(port uint16)
}

// portClaims is the portClaimer of a netio.SharedConn or DualIPConn.
type portClaims struct {
	conn interface {
		Claim(port uint16) error
		Release(port uint16)
	}
}

func (p portClaims) claim(port uint16) error { return p.conn.Claim(port) }
func (p portClaims) release(port uint16)     { p.conn.Release(port) }

// claimerOf returns the portClaimer of conn, or nil when conn is a socket
// of the endpoint's own.
func claimerOf(conn netio.Conn) portClaimer {
	switch c := conn.(type) {
	case *netio.SharedConn:
		return portClaims{c}
	case *netio.DualIPConn:
		return portClaims{c}
	}
	return nil
}
