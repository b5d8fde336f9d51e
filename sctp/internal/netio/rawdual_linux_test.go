//go:build linux

package netio

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// TestDualConnDeadlineAndClose: the pair of raw sockets behind a raw IP
// endpoint with both families (DualIPConn) keeps Conn's contract: a
// read deadline in the past, or one that passes while ReadBatch waits,
// unblocks it with os.ErrDeadlineExceeded, and Close with net.ErrClosed;
// its port claims hold on both sockets.
func TestDualConnDeadlineAndClose(t *testing.T) {
	nsA, _ := netnsPair(t)
	var d *DualIPConn
	var err error
	inNetns(t, nsA, func() { d, err = OpenDualIP(IPConfig{}, 5001, 2048, true) })
	if err != nil {
		t.Fatal(err)
	}
	pkts := []Packet{{Buf: make([]byte, 2048)}}
	d.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := d.ReadBatch(pkts); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v", err)
	}
	d.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := d.ReadBatch(pkts); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("deadline: %v", err)
	}
	// Another endpoint of the process on the same pair of sockets.
	var d2 *DualIPConn
	inNetns(t, nsA, func() { d2, err = OpenDualIP(IPConfig{}, 0, 2048, true) })
	if err != nil {
		t.Fatal(err)
	}
	if d2.c4.s != d.c4.s || d2.c6.s != d.c6.s {
		t.Fatal("the second endpoint did not share the sockets")
	}
	if err := d2.Claim(5001); !errors.Is(err, ErrPortInUse) {
		t.Errorf("port 5001 claimed by the second endpoint: %v", err)
	}
	if err := d.Claim(5002); err != nil {
		t.Fatal(err)
	}
	if err := d2.Claim(5002); err == nil {
		t.Error("port 5002 claimed by both")
	}
	d.Release(5002)
	if err := d2.Claim(5002); err != nil {
		t.Errorf("port 5002 after its release: %v", err)
	}
	d2.Close()
	d.SetReadDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() {
		_, err := d.ReadBatch(pkts)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	d.Close()
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}
