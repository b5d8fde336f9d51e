//go:build !linux

package sctp

import "github.com/usctp/usctp/sctp/internal/netio"

// exitWatch is the exit watchdog, which runs on Linux only.
type exitWatch struct{}

// send does nothing: there is no watchdog.
func (w *exitWatch) send(msg []byte, fd int) {}

// exitRegister returns the zero exitReg: Config.AbortOnExit has no effect
// outside Linux.
func exitRegister(conn netio.Conn) exitReg { return exitReg{} }

// exitClose does nothing: there is no watchdog.
func (e *Endpoint) exitClose() {}
