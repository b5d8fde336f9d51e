package sctp

import (
	"os"
	"syscall"
)

// SCTPBind would add (SCTP_BINDX_ADD_ADDR) or remove addresses of a
// kernel socket; there is none here: it fails with EINVAL for other
// flags, else with ErrUnsupported. Give a listener its addresses in
// ListenSCTP's SCTPAddr instead.
func SCTPBind(fd int, addr *SCTPAddr, flags int) error {
	if flags != SCTP_BINDX_ADD_ADDR && flags != SCTP_BINDX_REM_ADDR {
		return syscall.EINVAL
	}
	return ErrUnsupported
}

// SCTPConnect would connect a kernel socket; there is none here: it fails
// with ErrUnsupported. Use DialSCTP.
func SCTPConnect(fd int, addr *SCTPAddr) (int, error) { return 0, ErrUnsupported }

// FileListener would make a listener of a kernel socket; there is none
// here: it fails with ErrUnsupported.
func FileListener(file *os.File) (*SCTPListener, error) { return nil, ErrUnsupported }
