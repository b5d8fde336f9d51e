package sctp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveEnv names the listen address of a test binary run as a server
// process (serveChild).
const serveEnv = "USCTP_TEST_SERVE"

// serveChild runs the test binary as an echo server process when serveEnv
// is set, and exits: it listens on the address, writes "ready" or
// "error: ..." as its first line, echoes each message of each association
// it accepts, and closes when its standard input does.
func serveChild() {
	addr := os.Getenv(serveEnv)
	if addr == "" {
		return
	}
	l, err := Listen(addr, nil)
	if err != nil {
		fmt.Printf("error: %v\n", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	go func() {
		for {
			a, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 1<<16)
				for {
					n, info, err := a.ReadMsg(buf)
					if err != nil {
						return
					}
					if _, err := a.WriteMsg(buf[:n], SendInfo{Stream: info.Stream, PPID: info.PPID}); err != nil {
						return
					}
				}
			}()
		}
	}()
	io.Copy(io.Discard, os.Stdin)
	l.Close()
	os.Exit(0)
}

// errNoServer is wrapped by startServer's error when the process could
// not be started (a user namespace refused, ...).
var errNoServer = errors.New("cannot start a server process")

// serverProc is a test binary running serveChild.
type serverProc struct {
	cmd   *exec.Cmd
	stdin io.Closer
}

// startServer runs a server process listening on addr (attr, when set,
// its process attributes) and waits for its first line: "ready", or the
// error of its Listen, which startServer returns (errNoServer when the
// process could not start).
func startServer(t *testing.T, addr string, attr *syscall.SysProcAttr) (*serverProc, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+addr)
	cmd.SysProcAttr = attr
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %v", errNoServer, err)
	}
	p := &serverProc{cmd: cmd, stdin: in}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(io.Discard, out)
	}()
	select {
	case s := <-line:
		if s == "ready" {
			t.Cleanup(p.stop)
			return p, nil
		}
		p.stop()
		if e, ok := strings.CutPrefix(s, "error: "); ok {
			return nil, errors.New(e)
		}
		return nil, fmt.Errorf("server on %s: %q", addr, s)
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		p.stop()
		return nil, fmt.Errorf("server on %s: not ready after 30 s", addr)
	}
}

// stop closes the server's input, which ends it, and waits for it.
func (p *serverProc) stop() {
	p.stdin.Close()
	done := make(chan struct{})
	go func() {
		p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// echoVia sends msg on a and waits for it to come back.
func echoVia(t *testing.T, a *Association, msg string) {
	t.Helper()
	if _, err := a.WriteMsg([]byte(msg), SendInfo{Stream: 1, PPID: 7}); err != nil {
		t.Fatal(err)
	}
	a.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 256)
	n, _, err := a.ReadMsg(buf)
	if err != nil || string(buf[:n]) != msg {
		t.Fatalf("echo of %q: %q %v", msg, buf[:n], err)
	}
}

// TestDialUDPPortInAddress: a dial address "HOST:PORT/udp:N" (as Addr
// prints a listener's address) names the peer's UDP encapsulation port for
// that association alone: one endpoint reaches listeners on two UDP ports
// other than its Config.RemoteUDPPort, and Dial reaches one; Listen takes
// its own UDP port from such an address.
func TestDialUDPPortInAddress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l1, err := Listen("127.0.0.1:5051", loopCfg())
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Close()
	l2, port := onFreeUDPPort(t, "127.0.0.1", func(port uint16) (*Endpoint, error) {
		return Listen(fmt.Sprintf("127.0.0.1:5052/udp:%d", port), &Config{})
	})
	defer l2.Close()
	if l2.Addr().UDPPort != port {
		t.Fatalf("listener on %v, want UDP port %d", l2.Addr(), port)
	}
	if l1.Addr().UDPPort == 9899 || l1.Addr().UDPPort == port {
		t.Fatalf("listeners on %v and %v", l1.Addr(), l2.Addr())
	}
	e, err := NewEndpoint(netip.MustParseAddr("127.0.0.1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, l := range []*Endpoint{l1, l2} {
		c, err := e.Dial(ctx, l.Addr().String())
		if err != nil {
			t.Fatalf("dial %v: %v", l.Addr(), err)
		}
		s := accept(t, l)
		go func() {
			buf := make([]byte, 256)
			if n, info, err := s.ReadMsg(buf); err == nil {
				s.WriteMsg(buf[:n], SendInfo{Stream: info.Stream})
			}
		}()
		echoVia(t, c, "to "+l.Addr().String())
		if got := c.RemoteAddrs()[0].UDPPort; got != l.Addr().UDPPort {
			t.Fatalf("association to %v: peer UDP port %d", l.Addr(), got)
		}
	}
	c, err := Dial(ctx, l2.Addr().String(), nil)
	if err != nil {
		t.Fatalf("package Dial to %v: %v", l2.Addr(), err)
	}
	c.Close()
	for _, bad := range []string{"127.0.0.1:5052/udp:0", "127.0.0.1:5052/udp:x", "127.0.0.1:5052/udp:70000"} {
		var ae *net.AddrError
		if _, err := Dial(ctx, bad, nil); !errors.As(err, &ae) {
			t.Errorf("Dial(%q): %v, want a *net.AddrError", bad, err)
		}
	}
	if _, err := Listen("127.0.0.1:5053/udp:9999", loopCfg()); err == nil {
		t.Error("Listen with a UDP port in the address and EphemeralUDPPort")
	}
}

// TestWildcardAndSpecificListeners: listeners of one process on
// 127.0.0.1, 0.0.0.0 and [::] share a UDP port, as the kernel's SCTP
// sockets share a host, whether the process shares the port with others
// or not; a dial to 127.0.0.1 reaches the listener of its SCTP port
// whichever address it is bound to, the most specific one first (SCTP
// port 5061 has listeners on 127.0.0.1 and 0.0.0.0); an SCTP port nobody
// listens on is refused.
func TestWildcardAndSpecificListeners(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) { testWildcardAndSpecific(t, exclusive) })
	}
}

func testWildcardAndSpecific(t *testing.T, exclusive bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The first listener holds the port: the others share its socket or
	// another of this process, which no other program can then take.
	first, port := onFreeUDPPort(t, "::", func(port uint16) (*Endpoint, error) {
		return Listen("127.0.0.1:5061", &Config{UDPPort: port, ExclusiveUDPPort: exclusive})
	})
	defer first.Close()
	cfg := &Config{UDPPort: port, ExclusiveUDPPort: exclusive}
	ls := []*Endpoint{first}
	for _, addr := range []string{"0.0.0.0:5062", "[::]:5063", "0.0.0.0:5061"} {
		l, err := Listen(addr, cfg)
		if err != nil {
			if addr == "[::]:5063" {
				t.Skipf("no IPv6: %v", err)
			}
			t.Fatalf("listen %s beside the others: %v", addr, err)
		}
		defer l.Close()
		ls = append(ls, l)
	}
	for i, want := range []*Endpoint{ls[0], ls[1], ls[2]} {
		addr := fmt.Sprintf("127.0.0.1:%d/udp:%d", 5061+i, port)
		c, err := Dial(ctx, addr, nil)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		defer c.Close()
		s := accept(t, want)
		if got := s.LocalAddrs()[0].IP; got != netip.MustParseAddr("127.0.0.1") {
			t.Errorf("%s: accepted on %v, want 127.0.0.1", addr, got)
		}
	}
	if _, err := Dial(ctx, fmt.Sprintf("127.0.0.1:5064/udp:%d", port), nil); !errors.Is(err, ErrConnRefused) {
		t.Errorf("dial to an SCTP port nobody listens on: %v, want ErrConnRefused", err)
	}
}
