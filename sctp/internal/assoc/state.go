package assoc

// state is an association state of RFC 9260 section 4.
type state uint8

const (
	stateClosed           state = iota // no TCB (RFC 9260 section 4: CLOSED)
	stateCookieWait                    // INIT sent, waiting for INIT ACK
	stateCookieEchoed                  // COOKIE ECHO sent, waiting for COOKIE ACK
	stateEstablished                   // data flows both ways
	stateShutdownPending               // user asked to shut down, data still outstanding
	stateShutdownSent                  // SHUTDOWN sent, waiting for SHUTDOWN ACK
	stateShutdownReceived              // SHUTDOWN received, data still outstanding
	stateShutdownAckSent               // SHUTDOWN ACK sent, waiting for SHUTDOWN COMPLETE
	numStates
)

var stateNames = [numStates]string{
	stateClosed:           "CLOSED",
	stateCookieWait:       "COOKIE-WAIT",
	stateCookieEchoed:     "COOKIE-ECHOED",
	stateEstablished:      "ESTABLISHED",
	stateShutdownPending:  "SHUTDOWN-PENDING",
	stateShutdownSent:     "SHUTDOWN-SENT",
	stateShutdownReceived: "SHUTDOWN-RECEIVED",
	stateShutdownAckSent:  "SHUTDOWN-ACK-SENT",
}

// String returns the RFC 9260 name of the state.
func (s state) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return "state(?)"
}

// acceptsUserData reports whether a send request from the user is accepted
// in the state (RFC 9260 section 9.2: none once shutdown has begun).
func (s state) acceptsUserData() bool {
	return s == stateCookieWait || s == stateCookieEchoed || s == stateEstablished
}
