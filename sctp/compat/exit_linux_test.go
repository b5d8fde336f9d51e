//go:build linux

package sctp

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	usctp "github.com/usctp/usctp/sctp"
)

// exitChildEnv makes the test binary, run with -test.run of
// TestProgramEndChild, the program TestProgramEndSeenByPeer ends: its
// value is the SCTP port to dial on 127.0.0.1.
const exitChildEnv = "USCTP_TEST_COMPAT_EXIT"

// TestProgramEndChild is the program TestProgramEndSeenByPeer ends; it
// does nothing in a normal run.
func TestProgramEndChild(t *testing.T) {
	port, err := strconv.Atoi(os.Getenv(exitChildEnv))
	if err != nil {
		t.Skip("the program of TestProgramEndSeenByPeer, run by it")
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() {
		<-sig
		os.Exit(3) // as programs' handlers do
	}()
	conn, err := DialSCTP("sctp", nil, loopAddr(port))
	if err != nil {
		fmt.Printf("error %v\n", err)
		os.Exit(1)
	}
	// The timing is of a watchdog at work, not of its start (a race
	// build's runtime takes a while on a loaded machine): wait until a
	// child has named itself so, just before it serves.
	for start := time.Now(); !hasWatchdogChild(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			fmt.Printf("error no watchdog after 20 s\n")
			os.Exit(1)
		}
	}
	fmt.Printf("ready\n")
	buf := make([]byte, 64)
	for {
		if _, err := conn.Read(buf); err != nil {
			os.Exit(1)
		}
	}
}

// hasWatchdogChild reports whether a child of this process is the exit
// watchdog at work (true when the kernel cannot tell).
func hasWatchdogChild() bool {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	if len(tasks) == 0 {
		return true // a kernel without CONFIG_PROC_CHILDREN: no telling
	}
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(b)) {
			comm, _ := os.ReadFile("/proc/" + pid + "/comm")
			if strings.TrimSpace(string(comm)) == "usctp-watchdog" {
				return true
			}
		}
	}
	return false
}

// TestProgramEndSeenByPeer: a program of this package dials, and SIGTERM
// ends it through its own handler, which calls os.Exit at once; its
// peer's read fails with the program's ABORT ("process exited") in under
// a second, as with the kernel, which closes the dead program's socket.
func TestProgramEndSeenByPeer(t *testing.T) {
	ln := listenLoop(t, nil)
	cmd := exec.Command(os.Args[0], "-test.run=^TestProgramEndChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), exitChildEnv+"="+strconv.Itoa(lnPort(ln)))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string, 4)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	accepted := make(chan *SCTPConn, 1)
	go func() {
		c, err := ln.AcceptSCTP()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	var conn *SCTPConn
	select {
	case conn = <-accepted:
	case <-time.After(20 * time.Second):
		t.Fatal("no association from the program in 20 s")
	}
	if conn == nil {
		return
	}
	defer conn.Close()
	select {
	case l := <-lines:
		if !strings.HasPrefix(l, "ready") {
			t.Fatalf("program: %s", l)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the program is not ready after 20 s")
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(start.Add(10 * time.Second))
	_, err = conn.Read(make([]byte, 64))
	took := time.Since(start)
	t.Logf("the read failed %v after the SIGTERM: %v", took, err)
	var ae *usctp.AbortError
	if !errors.As(err, &ae) || !ae.ByPeer || ae.UserReason != "process exited" {
		t.Fatalf("read: %v, want the peer's ABORT \"process exited\"", err)
	}
	if took > time.Second {
		t.Fatalf("the peer saw the end %v after the SIGTERM, want under 1 s", took)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("program: %v, want exit status 3 from its handler", err)
	}
}
