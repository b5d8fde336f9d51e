package sctp

import (
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// TestIPv6Listeners: a listener on [::1] says so in Addr (not the
// wildcard), and ListenSCTP with two IPv6 addresses listens on both and
// carries an association, as the kernel's does. It runs in a network
// namespace of its own, whose loopback gets a second IPv6 address.
func TestIPv6Listeners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace")
	}
	ns, _ := netnstest.Pair(t, "c6", "v0", 61)
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", "fd00:61::2/128", "dev", "lo", "nodad"}} {
		if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	netnstest.In(t, ns, func() {
		one := &SCTPAddr{IPAddrs: []net.IPAddr{{IP: net.IPv6loopback}}}
		ln, err := ListenSCTP("sctp6", one)
		if err != nil {
			t.Errorf("listen on [::1]: %v", err)
			return
		}
		if got := ips(ln.Addr()); !slices.Equal(got, []string{"::1"}) {
			t.Errorf("listener on [::1] says %v (%v)", got, ln.Addr())
		}
		ln.Close()

		two := []net.IPAddr{{IP: net.IPv6loopback}, {IP: net.ParseIP("fd00:61::2")}}
		ln, err = ListenSCTP("sctp6", &SCTPAddr{IPAddrs: two})
		if err != nil {
			t.Errorf("listen on two IPv6 addresses: %v", err)
			return
		}
		defer ln.Close()
		if got := ips(ln.Addr()); !slices.Equal(got, []string{"::1", "fd00:61::2"}) {
			t.Errorf("listener on two IPv6 addresses says %v", got)
		}
		go func() {
			c, err := ln.AcceptSCTP()
			if err == nil {
				io.Copy(c, c)
				c.Close()
			}
		}()
		for _, ip := range two[1:] { // the second address serves too
			c, err := DialSCTP("sctp6", nil, &SCTPAddr{IPAddrs: []net.IPAddr{ip}, Port: lnPort(ln)})
			if err != nil {
				t.Errorf("dial [%v]: %v", ip.IP, err)
				continue
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 10)
			if _, err := c.Write([]byte("v6")); err != nil {
				t.Errorf("write to [%v]: %v", ip.IP, err)
			} else if n, err := c.Read(buf); err != nil || string(buf[:n]) != "v6" {
				t.Errorf("echo from [%v]: %q, %v", ip.IP, buf[:n], err)
			}
			c.Close()
		}
	})
}
