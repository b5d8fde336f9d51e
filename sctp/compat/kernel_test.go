//go:build linux

package sctp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelCompat runs the demo program (testdata/ngapdemo) built against
// this package on the host with its kernel build (testdata/ngapkernel: the
// same source importing github.com/ishidawataru/sctp) in the Linux guest
// of sctp/internal/kernelvm, over UDP encapsulation (RFC 6951) through
// QEMU's user network: the kernel's server with usctp's client, then
// usctp's server with the kernel's client. The guest kernel sends its
// encapsulated packets to net.sctp.encap_port, set to the host server's
// UDP port once that server listens.
func TestKernelCompat(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a guest")
	}
	vm := kernelvm.Boot(t, kernelvm.Config{
		Programs: []string{"./sctp/compat/testdata/ngapkernel"},
	})
	demo := buildDemo(t, t.TempDir(), "ngapdemo", "linux")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("KernelServer", func(t *testing.T) {
		// kpeer's run command, its lines read here (vm.Run would take
		// the server's listening line itself).
		if err := vm.Command("run id=ksrv /ngapkernel -server -addr 0.0.0.0:38412 -conns 1"); err != nil {
			t.Fatal(err)
		}
		prefixed := func(ps ...string) func(kernelvm.Line) bool {
			return func(l kernelvm.Line) bool {
				for _, p := range ps {
					if strings.HasPrefix(l.Raw, p) {
						return true
					}
				}
				return false
			}
		}
		// The server prints its listening line once it listens.
		l, err := vm.Wait(ctx, prefixed("OUT id=ksrv ", "EXIT id=ksrv ", "ERR id=ksrv "))
		if err != nil || l.Verb != "OUT" {
			t.Fatalf("kernel server: %v %q", err, l.Raw)
		}
		env := append(os.Environ(), fmt.Sprintf("USCTP_UDP_PORT=%d", vm.UDPAddr().Port), "USCTP_TRANSPORT=udp")
		cl := exec.CommandContext(ctx, demo, "-addr", "127.0.0.1:38412", "-n", "20")
		cl.Env = env
		out, err := cl.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "client: OK") {
			t.Fatalf("usctp client: %v\n%s\nkernel lines:\n%v", err, out, vm.Lines())
		}
		t.Logf("usctp client: %s", strings.TrimSpace(string(out)))
		if l, err = vm.Wait(ctx, prefixed("EXIT id=ksrv ")); err != nil || l.Int("code") != 0 {
			t.Fatalf("kernel server: %v %q\n%v", err, l.Raw, vm.Lines())
		}
	})

	t.Run("KernelClient", func(t *testing.T) {
		// The server listens on a port free a moment before, another
		// when another program took it in between; the guest's kernel
		// reads encap_port when its client's socket is made.
		var srv *exec.Cmd
		var srvOut *syncBuffer
		for try := 1; ; try++ {
			hostPort := freeUDPPort(t)
			srv = exec.CommandContext(ctx, demo, "-server", "-addr", "0.0.0.0:38413", "-conns", "1")
			srv.Env = append(os.Environ(), fmt.Sprintf("USCTP_UDP_PORT=%d", hostPort), "USCTP_TRANSPORT=udp")
			var err error
			if srvOut, err = startServerErr(t, srv); err == nil {
				if _, err := vm.Do(ctx, fmt.Sprintf("sysctl net.sctp.encap_port=%d", hostPort), "OK cmd=sysctl"); err != nil {
					t.Fatal(err)
				}
				break
			}
			if !strings.Contains(err.Error(), "address already in use") || try == 10 {
				t.Fatal(err)
			}
		}
		r, err := vm.Run(ctx, "kcl", "/ngapkernel", "-addr", kernelvm.HostUserIP+":38413", "-n", "20")
		if err != nil {
			t.Fatal(err)
		}
		if r.Code != 0 || !strings.Contains(strings.Join(r.Stdout, "\n"), "client: OK") {
			t.Fatalf("kernel client: exit %d\n%s\n%s\nusctp server:\n%s", r.Code, strings.Join(r.Stdout, "\n"),
				strings.Join(r.Stderr, "\n"), srvOut.String())
		}
		t.Logf("kernel client: %s", strings.Join(r.Stdout, " | "))
		if err := srv.Wait(); err != nil {
			t.Fatalf("usctp server: %v\n%s", err, srvOut.String())
		}
	})
}

// freeUDPPort returns a UDP port free on the host now.
func freeUDPPort(t *testing.T) int {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4zero})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}
