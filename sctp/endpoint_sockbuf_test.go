package sctp

import (
	"net/netip"
	"testing"
)

// TestListenerSocketBuffer: a listening endpoint asks the kernel for a
// socket buffer of listenSocketBuffer, four times a dialing endpoint's
// default (many peers sending to one listener at once overflow its socket
// at 4 MiB); a dialing endpoint keeps netio's default.
func TestListenerSocketBuffer(t *testing.T) {
	ip := netip.MustParseAddr("127.0.0.1")
	if got := udpConfig(&Config{}, ip, true).SocketBuffer; got != listenSocketBuffer {
		t.Errorf("listening endpoint: socket buffer %d, want %d", got, listenSocketBuffer)
	}
	if got := udpConfig(&Config{}, ip, false).SocketBuffer; got != 0 {
		t.Errorf("dialing endpoint: socket buffer %d, want 0 (netio's default)", got)
	}
}
