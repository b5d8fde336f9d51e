package assoc

import (
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/ratelimit"
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

// The core's own fallbacks for the limits the shell leaves zero only in
// tests are the public defaults: the memory budget and the rate of
// out-of-the-blue answers.
func TestCoreLimitFallbacks(t *testing.T) {
	if b := transfer.NewBudget(0); b.Limit() != api.DefaultMemoryBudget {
		t.Fatalf("budget of a zero MemoryBudget %d, public default %d", b.Limit(), api.DefaultMemoryBudget)
	}
	if ratelimit.DefaultRate != api.DefaultInitRate {
		t.Fatalf("rate limiter default %d, InitRate default %d", ratelimit.DefaultRate, api.DefaultInitRate)
	}
}
