package kernelvm

import (
	"fmt"
	"hash/crc32"
	"testing"
	"time"
)

// TestKernelGuestBulk measures kpeer's bulk path inside the guest (kernel to kernel on
// the guest's loopback, under TCG) and checks DONE's byte count and checksum against the
// source's payload: what a byte-exact 100 MB test with usctp will rely on.
func TestKernelGuestBulk(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 3*time.Minute)
	const count, size = 8, 1 << 20
	if _, err := vm.Do(ctx, "listen id=sink addr=127.0.0.1 port=5010 mode=sink log=0 buf=4194304", "READY id=sink "); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := vm.Do(ctx, fmt.Sprintf("dial id=bulk addr=127.0.0.1 port=5010 mode=source count=%d size=%d log=0 then=close buf=4194304",
		count, size), "CONNECTED id=bulk "); err != nil {
		t.Fatal(err)
	}
	l, err := vm.Wait(ctx, func(l Line) bool {
		return (l.Verb == "DONE" && l.Get("id") == "sink") || (l.Verb == "ERR" && l.Get("id") == "bulk")
	})
	if err != nil || l.Verb == "ERR" {
		t.Fatalf("waiting for DONE id=sink: %v %s", err, l)
	}
	d := time.Since(start)
	var crc uint32
	b := make([]byte, size)
	for i := 0; i < count; i++ {
		for j := range b {
			b[j] = byte(i*7 + j)
		}
		crc = crc32.Update(crc, crc32.IEEETable, b)
	}
	if l.Int("msgs") != count || l.Int("bytes") != count*size || l.Get("crc") != fmt.Sprintf("%08x", crc) || l.Get("end") != "eof" {
		t.Fatalf("%s: want msgs=%d bytes=%d crc=%08x end=eof", l, count, count*size, crc)
	}
	t.Logf("%d MB kernel to kernel in the guest: %v, %.1f MB/s", count, d.Round(time.Millisecond), float64(count*size)/d.Seconds()/1e6)
}

// TestKernelStreamReset checks kpeer's RFC 6525 commands between two guest sockets:
// an outgoing stream reset and added streams, reported as reconfiguration events.
func TestKernelStreamReset(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 2*time.Minute)
	if _, err := vm.Do(ctx, "listen id=rs addr=127.0.0.1 port=5011 mode=sink reset=1 ostreams=10 istreams=10", "READY id=rs "); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Do(ctx, "dial id=rsc addr=127.0.0.1 port=5011 mode=sink reset=1 ostreams=10 istreams=10", "CONNECTED id=rsc "); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.WaitLine(ctx, "ACCEPT id=rs "); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Do(ctx, "reset id=rsc sids=1,2 dir=out", "OK cmd=reset id=rsc"); err != nil {
		t.Fatal(err)
	}
	// The requester's outgoing streams 1 and 2 are reset: the requester sees flags
	// 0x2 (outgoing), the peer 0x1 (incoming).
	for _, want := range []string{"EVENT id=rsc conn=1 type=stream_reset flags=0x2", "EVENT id=rs conn=1 type=stream_reset flags=0x1"} {
		if _, err := vm.WaitLine(ctx, want); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := vm.Do(ctx, "addstreams id=rsc out=5", "OK cmd=addstreams id=rsc"); err != nil {
		t.Fatal(err)
	}
	if l, err := vm.WaitLine(ctx, "EVENT id=rsc conn=1 type=stream_change"); err != nil {
		t.Fatal(err)
	} else if l.Int("ostreams") != 5 || l.Int("istreams") != 0 {
		// Linux reports the number of streams added, not the new total of 15.
		t.Fatalf("%s: want ostreams=5 istreams=0", l)
	}
	if _, err := vm.Do(ctx, "close id=rsc", "CLOSED id=rsc"); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.WaitLine(ctx, "DONE id=rs "); err != nil {
		t.Fatal(err)
	}
}

// TestKernelGuestSendAbort checks kpeer's send and abort commands between two guest
// sockets: one unordered message with its stream, PPID and checksum, then an ABORT that
// both sides report.
func TestKernelGuestSendAbort(t *testing.T) {
	vm := kvm.Get(t)
	ctx := ctxFor(t, 2*time.Minute)
	if _, err := vm.Do(ctx, "listen id=ab addr=127.0.0.1 port=5012 mode=sink", "READY id=ab "); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Do(ctx, "dial id=abc addr=127.0.0.1 port=5012 mode=sink", "CONNECTED id=abc "); err != nil {
		t.Fatal(err)
	}
	sent, err := vm.Do(ctx, "send id=abc sid=3 ppid=9 len=10 seq=5 unordered=1", "SENT id=abc ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := vm.WaitLine(ctx, "MSG id=ab ")
	if err != nil {
		t.Fatal(err)
	}
	if got.Int("sid") != 3 || got.Int("ppid") != 9 || got.Int("len") != 10 || got.Int("unordered") != 1 || got.Get("crc") != sent.Get("crc") {
		t.Fatalf("sent %s, got %s", sent, got)
	}
	if _, err := vm.Do(ctx, "abort id=abc", "ABORTED id=abc"); err != nil {
		t.Fatal(err)
	}
	if l, err := vm.WaitLine(ctx, "DONE id=abc "); err != nil {
		t.Fatal(err)
	} else if l.Get("end") != "abort" {
		t.Errorf("%s: want end=abort", l)
	}
	if _, err := vm.Wait(ctx, func(l Line) bool {
		return l.Verb == "EVENT" && l.Get("id") == "ab" && l.Get("state") == "comm_lost"
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.WaitLine(ctx, "DONE id=ab "); err != nil {
		t.Fatal(err)
	}
}
