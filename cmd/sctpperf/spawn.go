package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// readyPrefix starts the line a spawned server prints once it listens.
const readyPrefix = "sctpperf server ready "

// spawnServer starts this program again as a server on a loopback port
// (in network namespace netns on its veth address, when netns is not "")
// and returns its control address and a function that stops it. The child
// also exits when its standard input closes, so it never outlives this
// process.
func spawnServer(ctx context.Context, cpuprof, netns string) (string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	host := "127.0.0.1"
	if netns != "" {
		host = netnsServerIP
	}
	args := []string{"-server", "-spawned", "-L", host, "-p", "0"}
	if cpuprof != "" {
		args = append(args, "-cpuprofile", cpuprof+".server")
	}
	cmd := exec.Command(exe, args...)
	if netns != "" {
		cmd = exec.Command("ip", append([]string{"netns", "exec", netns, exe}, args...)...)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start server: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		stdin.Close() // asks the child to finish (and write its profile)
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), readyPrefix); ok {
				lines <- addr
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case addr := <-lines:
		return addr, stop, nil
	case <-exited:
		return "", nil, fmt.Errorf("server exited before it was ready")
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, fmt.Errorf("server not ready after 30 s")
	case <-ctx.Done():
		stop()
		return "", nil, ctx.Err()
	}
}
