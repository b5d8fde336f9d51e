package assoc

import (
	"testing"

	"github.com/usctp/usctp/sctp/internal/transfer"
)

// The stack has one MTU default: the core's packet size is it less an
// IPv6 and a UDP header, which is the transfer engine's default too.
func TestOneMTUDefault(t *testing.T) {
	var c Config
	c.setDefaults()
	if c.MTU != DefaultMTU-40-8 {
		t.Fatalf("core MTU %d, stack default %d", c.MTU, DefaultMTU)
	}
	if engine := transfer.DefaultMTU; c.MTU != engine {
		t.Fatalf("core MTU %d, transfer engine's %d", c.MTU, engine)
	}
}
