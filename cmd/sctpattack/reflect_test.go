package main

import (
	"context"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// TestReflectionPatterns runs initaddrs and asconfaddrs for a few seconds
// against an echo endpoint that uses the peer's other addresses
// (Multihoming, DynamicAddrs): the victims get some HEARTBEATs (the
// attack reached them) and at most 3 times the attacker's bytes
// (docs/SECURITY.md), while the legitimate client is served.
func TestReflectionPatterns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for seconds")
	}
	for _, name := range []string{"initaddrs", "asconfaddrs"} {
		t.Run(name, func(t *testing.T) {
			pats, err := lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			addr, port := echoTargetWith(t, &sctp.Config{Paths: sctp.Paths{Multihoming: true},
				Extensions: sctp.Extensions{DynamicAddrs: true}})
			o := &options{target: addr, udpPort: port, duration: 3 * time.Second, legitBytes: 64 << 10, seed: 7}
			r, err := attack(context.Background(), o, pats[0])
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r)
			if r.legitErr != nil || len(r.legit) == 0 {
				t.Fatalf("legitimate client: %d of %d rounds, %v", len(r.legit), r.legitRuns, r.legitErr)
			}
			if r.reflected.packets == 0 {
				t.Fatal("no HEARTBEAT reached a victim: the attack did not happen")
			}
			if f := float64(r.reflected.bytes) / float64(r.sent.bytes); f > 3 {
				t.Errorf("victims got %.2f times the attacker's bytes, want at most 3", f)
			}
		})
	}
}
