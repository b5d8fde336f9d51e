package sctp

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The demo program (testdata/ngapdemo) is one source built twice: as it is,
// against this package, and with only its import changed to
// github.com/ishidawataru/sctp (testdata/ngapkernel, generated from it:
// go test -run TestKernelCopyIsGenerated -update).

var update = flag.Bool("update", false, "rewrite testdata/ngapkernel from testdata/ngapdemo")

const (
	compatImport = `"github.com/usctp/usctp/sctp/compat"`
	kernelImport = `"github.com/ishidawataru/sctp"`
)

// kernelCopy returns the kernel build's source: the demo's with the import
// changed, under a generated-code header.
func kernelCopy(t *testing.T) []byte {
	src, err := os.ReadFile("testdata/ngapdemo/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(src, []byte(compatImport)) != 1 {
		t.Fatalf("testdata/ngapdemo/main.go must import %s once", compatImport)
	}
	out := bytes.Replace(src, []byte(compatImport), []byte(kernelImport), 1)
	hdr := "// Code generated from ../ngapdemo/main.go by go test -run TestKernelCopyIsGenerated -update\n" +
		"// in sctp/compat, with only the import changed; DO NOT EDIT.\n\n"
	return append([]byte(hdr), out...)
}

// TestKernelCopyIsGenerated: the kernel build's source is the demo's with
// only the import changed.
func TestKernelCopyIsGenerated(t *testing.T) {
	want := kernelCopy(t)
	const path = "testdata/ngapkernel/main.go"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is not the demo with only its import changed (%v): run go test -run TestKernelCopyIsGenerated -update", path, err)
	}
}

// buildDemo builds a testdata program into dir, for goos.
func buildDemo(t *testing.T, dir, name, goos string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/"+name)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s (GOOS=%s): %v\n%s", name, goos, err, out)
	}
	return bin
}

// TestProgramsTwoCompatBuilds runs the demo's server and client, both
// built against this package, as two processes on one host: with no
// kernel SCTP at all (UDP encapsulation), two clients one after the
// other, each checking the answers' streams and PPID 60 and reading the
// shutdown notifications. The kernel build (ishidawataru/sctp) is built
// too, from the same source (it runs in the Linux guest in
// sctp/internal/kerneltest's TestKernelCompat*), and the compat build for
// darwin and windows, where there is no kernel SCTP to use.
func TestProgramsTwoCompatBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	dir := t.TempDir()
	demo := buildDemo(t, dir, "ngapdemo", "linux")
	buildDemo(t, dir, "ngapkernel", "linux")
	buildDemo(t, dir+"/darwin", "ngapdemo", "darwin")
	buildDemo(t, dir+"/windows", "ngapdemo", "windows")
	port := childUDPPort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env := append(os.Environ(), "USCTP_UDP_PORT="+port, "USCTP_TRANSPORT=udp")
	srv := exec.CommandContext(ctx, demo, "-server", "-addr", "127.0.0.1:38412", "-conns", "2")
	srv.Env = env
	srvOut := startServer(t, srv)
	for i, n := range []string{"20", "5"} {
		cl := exec.CommandContext(ctx, demo, "-addr", "127.0.0.1:38412", "-n", n)
		cl.Env = env
		out, err := cl.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "client: OK") {
			t.Fatalf("client %d: %v\n%s\nserver:\n%s", i, err, out, srvOut.String())
		}
		t.Logf("client %d: %s", i, strings.TrimSpace(string(out)))
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("server: %v\n%s", err, srvOut.String())
	}
}

// startServer starts the demo's server and returns once it printed its
// listening line; the buffer collects the rest of its output.
func startServer(t *testing.T, srv *exec.Cmd) *syncBuffer {
	t.Helper()
	out, err := startServerErr(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startServerErr is startServer returning the failure to listen, with
// the server's log in it, instead of failing the test.
func startServerErr(t *testing.T, srv *exec.Cmd) (*syncBuffer, error) {
	t.Helper()
	out := &syncBuffer{}
	pr, err := srv.StdoutPipe()
	if err != nil {
		return nil, err
	}
	srv.Stderr = out
	if err := srv.Start(); err != nil {
		return nil, err
	}
	t.Cleanup(func() { srv.Process.Kill() })
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "server: listening") {
		srv.Wait()
		return nil, fmt.Errorf("server: %q %v\n%s", line, err, out.String())
	}
	out.Write([]byte(line))
	go io.Copy(out, br)
	return out, nil
}

// syncBuffer is a bytes.Buffer for several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
