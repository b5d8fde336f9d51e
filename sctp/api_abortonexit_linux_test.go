//go:build linux

package sctp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The end of a process with Config.AbortOnExit, in real processes over
// real sockets: the test binary runs again as a program (exitChild) that
// dials or listens, and is killed; this process plays the peer and times
// how long it takes to learn that the association is gone.

// exitChildEnv makes the test binary, run with -test.run of
// TestAbortOnExitChild, the program that is killed: "dial PORT UDPPORT"
// or "listen PORT UDPPORT" (UDPPORT 0: one the system picks, printed
// on the "listening" line).
const exitChildEnv = "USCTP_TEST_EXIT_CHILD"

// exitSeen bounds the time from the kill to the peer's EventDown: the
// watchdog reads EOF as the process's descriptors close and sends at
// once, so this is all slack for a loaded machine.
const exitSeen = time.Second

// TestAbortOnExitChild is the program TestAbortOnExit kills; it does
// nothing in a normal run.
func TestAbortOnExitChild(t *testing.T) {
	args := strings.Fields(os.Getenv(exitChildEnv))
	if len(args) != 3 {
		t.Skip("the program of TestAbortOnExit, run by it")
	}
	// A handler that exits at once, as programs' handlers do: nothing
	// of package sctp runs after it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		os.Exit(3)
	}()
	port, _ := strconv.Atoi(args[1])
	udp, _ := strconv.Atoi(args[2])
	cfg := &Config{AbortOnExit: true}
	var as *Association
	var err error
	switch args[0] {
	case "dial":
		cfg.RemoteUDPPort = uint16(udp)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		as, err = Dial(ctx, "127.0.0.1:"+strconv.Itoa(port), cfg)
		cancel()
	case "listen":
		cfg.UDPPort = uint16(udp)
		cfg.EphemeralUDPPort = udp == 0
		var l *Endpoint
		if l, err = Listen("127.0.0.1:"+strconv.Itoa(port), cfg); err == nil {
			fmt.Printf("listening %d\n", l.Addr().UDPPort)
			as, err = l.Accept()
		}
	}
	if err != nil {
		fmt.Printf("error %v\n", err)
		os.Exit(1)
	}
	exitWatchdog.mu.Lock()
	w := exitWatchdog.w
	exitWatchdog.mu.Unlock()
	if w == nil {
		fmt.Printf("error no watchdog: %v\n", exitWatchdog.err)
		os.Exit(1)
	}
	// The timing is of a watchdog at work, not of its start (a race
	// build's runtime takes a while on a loaded machine): wait until it
	// has named itself, just before it serves.
	comm := fmt.Sprintf("/proc/%d/comm", w.cmd.Process.Pid)
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if b, _ := os.ReadFile(comm); strings.TrimSpace(string(b)) == "usctp-watchdog" {
			break
		}
		if time.Since(start) > 20*time.Second {
			fmt.Printf("error the watchdog did not start in 20 s\n")
			os.Exit(1)
		}
	}
	fmt.Printf("ready %d\n", w.cmd.Process.Pid)
	<-as.Done() // killed meanwhile
	os.Exit(1)
}

// exitChild is a running TestAbortOnExitChild.
type exitChild struct {
	cmd   *exec.Cmd
	lines chan string
}

// startExitChild runs the test binary as the program of TestAbortOnExit
// with arguments args.
func startExitChild(t *testing.T, args string) *exitChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAbortOnExitChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), exitChildEnv+"="+args)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &exitChild{cmd: cmd, lines: make(chan string, 8)}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			c.lines <- s.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

// line returns the child's next line of output, with the given prefix.
func (c *exitChild) line(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("the child ended before %q", prefix)
			}
			if strings.HasPrefix(l, "error") {
				t.Fatalf("child: %s", l)
			}
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return strings.TrimSpace(rest)
			}
		case <-timeout:
			t.Fatalf("no %q from the child in 20 s", prefix)
		}
	}
}

// TestAbortOnExit: a program with AbortOnExit, dialing or listening, is
// ended by SIGTERM (its handler calls os.Exit at once) or SIGKILL; its
// peer's association ends with the ABORT the watchdog sends ("process
// exited") in under exitSeen, the watchdog exits, and the program's UDP
// port is free again for a server started after it.
func TestAbortOnExit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		listen bool
		sig    syscall.Signal
	}{
		{"dial/SIGTERM", false, syscall.SIGTERM},
		{"dial/SIGKILL", false, syscall.SIGKILL},
		{"listen/SIGKILL", true, syscall.SIGKILL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var as *Association
			var child *exitChild
			port := 5000
			var udp int
			if tt.listen {
				// The child listens on a UDP port the system picks
				// and says which.
				child = startExitChild(t, fmt.Sprintf("listen %d 0", port))
				var err error
				if udp, err = strconv.Atoi(child.line(t, "listening")); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if as, err = Dial(ctx, "127.0.0.1:5000", &Config{RemoteUDPPort: uint16(udp)}); err != nil {
					t.Fatal(err)
				}
				defer as.Abort("test over")
			} else {
				l, dc := listenLoop(t, nil)
				udp = int(dc.RemoteUDPPort)
				child = startExitChild(t, fmt.Sprintf("dial %d %d", port, udp))
				as = accept(t, l)
			}
			pid, err := strconv.Atoi(child.line(t, "ready"))
			if err != nil {
				t.Fatal(err)
			}
			// The watchdog's pidfd, taken while it surely lives: readable
			// once it exited.
			pidfd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				t.Fatalf("the watchdog (pid %d): %v", pid, err)
			}
			defer unix.Close(pidfd)

			start := time.Now()
			if err := child.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-as.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("the association still runs %v after the %v", time.Since(start), tt.sig)
			}
			took := time.Since(start)
			t.Logf("the peer saw the end %v after the %v", took, tt.sig)
			var ae *AbortError
			if err := as.Err(); !errors.As(err, &ae) || !ae.ByPeer || ae.UserReason != exitReason {
				t.Fatalf("the association ended with %v, want the peer's ABORT %q", err, exitReason)
			}
			if took > exitSeen {
				t.Fatalf("the peer saw the end %v after the %v, want under %v", took, tt.sig, exitSeen)
			}
			err = child.cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("child: %v", err)
			}
			if tt.sig == syscall.SIGTERM && ee.ExitCode() != 3 {
				t.Fatalf("child: %v, want exit status 3 from its own handler", err)
			}
			fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
			if n, err := unix.Poll(fds, 5000); n != 1 || err != nil {
				t.Fatalf("the watchdog still runs 5 s after the program: %d %v", n, err)
			}
			if tt.listen {
				// A server started again on the program's UDP port.
				l, err := Listen("127.0.0.1:5000", &Config{UDPPort: uint16(udp)})
				if err != nil {
					t.Fatalf("listen again on UDP port %d: %v", udp, err)
				}
				l.Close()
			}
		})
	}
}

// TestAbortOnExitClose: closing an endpoint with AbortOnExit aborts its
// associations as Close always does (not with the watchdog's ABORT), the
// watchdog's copy of the socket is closed before Close returns, so a
// server can bind the UDP port again at once, and the watchdog exits
// once no endpoint is left (after exitIdle).
func TestAbortOnExitClose(t *testing.T) {
	defer func(d time.Duration) { exitIdle = d }(exitIdle)
	exitIdle = 10 * time.Millisecond
	l, udp := onFreeUDPPort(t, "127.0.0.1", func(port uint16) (*Endpoint, error) {
		return Listen("127.0.0.1:5000", &Config{AbortOnExit: true, UDPPort: port})
	})
	exitWatchdog.mu.Lock()
	w, werr := exitWatchdog.w, exitWatchdog.err
	exitWatchdog.mu.Unlock()
	if w == nil {
		l.Close()
		t.Fatalf("no watchdog: %v", werr)
	}
	c := dialLoop(t, &Config{RemoteUDPPort: udp})
	accept(t, l)
	l.Close()
	again, err := Listen("127.0.0.1:5000", &Config{UDPPort: udp})
	if err != nil {
		t.Fatalf("listen again on UDP port %d at once: %v", udp, err)
	}
	again.Close()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the dialer's association still runs")
	}
	var ae *AbortError
	if err := c.Err(); !errors.As(err, &ae) || ae.UserReason != "endpoint closed" {
		t.Fatalf("the dialer's association ended with %v, want the peer's ABORT \"endpoint closed\"", err)
	}
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watchdog still runs 10 s after the last endpoint closed")
	}
	if w.cmd.ProcessState == nil || !w.cmd.ProcessState.Exited() {
		t.Fatalf("the watchdog: %v", w.cmd.ProcessState)
	}
}

// TestAbortOnExitStrayMarker: a program started with the watchdog's
// environment variable but not as a watchdog (no socket pair on the
// descriptor it names) runs as itself.
func TestAbortOnExitStrayMarker(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "fd3")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		env   string
		files []*os.File
	}{
		{"v1:3", nil},
		{"v1:3", []*os.File{f}},
		{"v2", nil},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAbortOnExitChild$", "-test.v")
		cmd.Env = append(os.Environ(), exitWatchEnv+"="+tt.env)
		cmd.ExtraFiles = tt.files
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- SKIP: TestAbortOnExitChild") {
			t.Fatalf("%s=%s, %d extra files: %v\n%s", exitWatchEnv, tt.env, len(tt.files), err, out)
		}
	}
}
