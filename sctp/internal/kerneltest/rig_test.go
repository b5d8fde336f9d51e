package kerneltest

import (
	"context"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestGuestReplacedWhenNetworkDies: a guest whose first NIC carries no packets
// fails PingHost, and once a failed test marked it dead the next Get boots a new guest
// in its place and stops the old one.
func TestGuestReplacedWhenNetworkDies(t *testing.T) {
	g := &guestVM{cfg: kernelvm.Config{}}
	defer g.Close()
	vm := g.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := vm.PingHost(ctx); err != nil {
		t.Fatalf("a new guest: %v", err)
	}
	if res, err := vm.Run(ctx, "linkdown", "/bin/ip", "link", "set", "eth0", "down"); err != nil || res.Code != 0 {
		t.Fatalf("ip link set eth0 down: %v %+v", err, res)
	}
	if err := vm.PingHost(ctx); err == nil {
		t.Fatal("PingHost succeeded with the guest's eth0 down")
	}
	if got := g.Get(t); got != vm {
		t.Fatal("Get replaced a guest that was not marked dead")
	}
	g.markDead(vm)
	next := g.Get(t)
	if next == vm {
		t.Fatal("Get returned the guest marked dead")
	}
	if exited, _ := vm.Exited(); !exited {
		t.Error("the dead guest's QEMU still runs")
	}
	if err := next.PingHost(ctx); err != nil {
		t.Errorf("the new guest: %v", err)
	}
}
