//go:build linux

package netio

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// netnsPair creates the namespaces of the transport tests (netnstest.Pair):
//
//	a: usctp0 02:00:00:00:00:01 10.201.0.1/24 fd00:201::1/64
//	b: usctp0 02:00:00:00:00:02 10.201.0.2/24 fd00:201::2/64
func netnsPair(t testing.TB) (a, b string) {
	t.Helper()
	return netnstest.Pair(t, "usctp", "usctp0", 0)
}

// inNetns runs f inside the named namespace (netnstest.In).
func inNetns(t testing.TB, name string, f func()) {
	t.Helper()
	netnstest.In(t, name, f)
}

// withoutNetRaw runs f on an OS thread whose effective capabilities lack
// CAP_NET_RAW (capabilities are per thread on Linux); the thread is then
// discarded.
func withoutNetRaw(t testing.TB, f func()) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with us
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			errc <- err
			return
		}
		data[0].Effective &^= 1 << unix.CAP_NET_RAW
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			errc <- err
			return
		}
		f()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
