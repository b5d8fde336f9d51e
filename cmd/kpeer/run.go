//go:build linux

package main

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// run starts a program in the guest and reports its output, line by line, as
//
//	OUT id=R fd=1 line="..."   (fd 1: standard output, 2: standard error; Go-quoted)
//	EXIT id=R code=N           (N is -1 when it was killed)
//
// rest is "id=R PROG ARGS...": words separated by blanks, no quoting. run returns at once;
// the program runs on its own goroutine, so several can run at a time. A program that
// cannot start is an error (ERR id=R cmd=run).
func (p *peer) run(rest string) (id string, err error) {
	words := strings.Fields(rest)
	if len(words) < 2 || !strings.HasPrefix(words[0], "id=") {
		return "-", errors.New("want id=R PROG [ARGS...]")
	}
	id = strings.TrimPrefix(words[0], "id=")
	cmd := exec.Command(words[1], words[2:]...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return id, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return id, err
	}
	if err := cmd.Start(); err != nil {
		return id, err
	}
	p.printf("STARTED id=%s pid=%d", id, cmd.Process.Pid)
	var wg sync.WaitGroup
	for fd, r := range []io.Reader{1: stdout, 2: stderr} {
		if r == nil {
			continue
		}
		wg.Go(func() {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				p.printf("OUT id=%s fd=%d line=%q", id, fd, sc.Text())
			}
			io.Copy(io.Discard, r) // after a line too long for the scanner: read to the end
		})
	}
	go func() {
		wg.Wait() // the pipes are read to their end before Wait closes them
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code == 0 {
			code = -1
		}
		p.printf("EXIT id=%s code=%d", id, code)
	}()
	return id, nil
}
